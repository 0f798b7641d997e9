/** A ParaAct run of one task as a model would write it, turn by turn, and the fixture's dependency graph for it. */
import { after, before } from 'node:test';
import { writeGraph } from '../../src/graph/store.js';
import type { RunningServer } from '../../src/server/serve.js';
import { episodeLibrary, episodeTools, startEpisodeServer } from './fixture.js';

export const ADD = 'petstore_test__addPet';
export const GET = 'petstore_test__getPetById';
export const TASK = {
  id: 'rex',
  query: 'Add a pet named Rex to the store, then look it up by its id.',
  reference_tools: [ADD, GET],
  answer: 'Rex',
};

/** The four turns of a ParaAct run of TASK, as a model would write them. */
export const EXPLORE =
  '<think>I need a tool to add a pet and one to read it back.</think>\n' +
  '<plan>{"phase": "exploration", "slots": [{"capability": "add a pet", "query": "Add a pet"}, {"capability": "read ' +
  'a pet", "query": "Find pet by ID"}]}</plan>\n' +
  '<search_tool>Add a pet</search_tool>\n' +
  '<search_tool>Find pet by ID</search_tool>';
export const EXECUTE =
  '<think>addPet gives the id getPetById needs.</think>\n' +
  `<plan>{"phase": "execution", "tools": ["${ADD}", "${GET}"], "calls": [{"id": "c1", "tool": "${ADD}", "arguments": ` +
  `{"name": "Rex", "status": "available"}}, {"id": "c2", "tool": "${GET}", "arguments": {"petId": {"$ref": ` +
  '"c1.body.id"}}, "depends_on": ["c1"]}], "layers": [["c1"], ["c2"]]}</plan>\n' +
  '<tool_call>{"id": "c1"}</tool_call>';
export const NEXT = '<think>c1 is done; now c2.</think>\n<tool_call>{"id": "c2"}</tool_call>';
export const ANSWER =
  '<think>Both calls succeeded.</think>\n<answer>Rex was added to the store and read back.</answer>';

/**
 * The fixture library with G_dep written beside it: addPet creates what getPetById reads. Returns the library
 * directory.
 */
export async function withGraph(): Promise<string> {
  const library = await episodeLibrary();
  writeGraph(library, {
    nodes: episodeTools.map((t) => ({ id: t.id, api: 'fixture' })),
    edges: [
      { src: ADD, dst: GET, kind: 'hard', rule: 'creates', score: 0.9, evidence: 'POST /pet → GET /pet/{petId}' },
    ],
    meta: {},
  });
  return library;
}

/**
 * A describe block's episode server over the fixture library with its graph: started before its tests, closed after
 * them.
 */
export function graphServer(): { readonly url: string } {
  let server: RunningServer | undefined;
  before(async () => {
    await withGraph();
    server = await startEpisodeServer();
  });
  after(() => server?.close());
  return {
    get url() {
      return server!.url;
    },
  };
}
