/** A library for task synthesis: the episode fixture's tools and a G_dep with chains of two and three. */
import { writeGraph } from '../../src/graph/store.js';
import { LibraryStore } from '../../src/library/store.js';
import { createSimulator } from '../../src/simulator/pipeline.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { episodeLibrary, episodeTools } from '../episodes/fixture.js';

/** addPet → getPetById, createNote → getNote, and a chain of three: createNote → listComments → addComment. */
export const SYNTH_EDGES = [
  ['petstore_test__addPet', 'petstore_test__getPetById'],
  ['notes_test__createNote', 'notes_test__getNote'],
  ['notes_test__createNote', 'notes_test__listComments'],
  ['notes_test__listComments', 'notes_test__addComment'],
] as const;

let dir: string | undefined;

export async function synthLibrary(): Promise<string> {
  if (dir) return dir;
  const library = await episodeLibrary();
  writeGraph(library, {
    nodes: episodeTools.map((t) => ({ id: t.id, api: t.origin.format === 'openapi' ? t.origin.api_id : 'other' })),
    edges: SYNTH_EDGES.map(([src, dst]) => ({
      src,
      dst,
      kind: 'hard' as const,
      rule: 'creates' as const,
      score: 0.9,
      evidence: 'fixture',
    })),
    meta: {},
  });
  return (dir = library);
}

/**
 * The library, its graph and a simulator as `serve` builds them (examples, then the synthesizer; seed 0, no errors).
 */
export async function synthParts(): Promise<{
  store: LibraryStore;
  simulator: ReturnType<typeof createSimulator>;
  close: () => void;
  dir: string;
}> {
  const library = await synthLibrary();
  const store = LibraryStore.open(library);
  const simulator = createSimulator({ store, responders: [examplesResponder, synthResponder], seed: 0, errorRate: 0 });
  return { store, simulator, dir: library, close: () => store.close() };
}
