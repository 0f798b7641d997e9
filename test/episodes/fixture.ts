import type { ApiRecord, JsonSchemaObject, Tool, HttpMethod } from '../../src/library/tool.js';
import { ToolSearch } from '../../src/retrieval/searcher.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/server/serve.js';
import { synthResponder } from '../../src/simulator/synth/index.js';
import { join } from 'node:path';
import { petstoreApi, petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';
import { extraTools } from '../retrieval/fixture.js';

const note = {
  type: 'object',
  required: ['id', 'title'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    title: { type: 'string' },
    tag: { type: 'string', enum: ['work', 'home'] },
    done: { type: 'boolean' },
  },
};
const noteBody: JsonSchemaObject = {
  type: 'object',
  properties: { title: { type: 'string' }, tag: { type: 'string', enum: ['work', 'home'] }, done: { type: 'boolean' } },
};
const comment = {
  type: 'object',
  required: ['id', 'text'],
  properties: { id: { type: 'integer', minimum: 1 }, text: { type: 'string' } },
};

const origin = (method: HttpMethod, path: string, operation_id: string) =>
  ({ format: 'openapi', api_id: 'notes.test', method, path, operation_id, server: 'https://notes.test' }) as const;
const noteId = { noteId: { in: 'path', name: 'noteId' } } as const;
const bodyOf = (names: string[]) => Object.fromEntries(names.map((n) => [n, { in: 'body' as const, name: n }]));

/**
 * A notes API with every REST verb: string ids, a wrapped list (`{"items": [...]}`), PUT and PATCH, and comments nested
 * under notes.
 */
export const notesTools: Tool[] = [
  {
    id: 'notes_test__listNotes',
    name: 'List notes',
    description: 'List the notes in the notebook, optionally only those with a tag.',
    category: 'productivity',
    parameters: { type: 'object', properties: { tag: { type: 'string' }, limit: { type: 'integer', minimum: 1 } } },
    bindings: { tag: { in: 'query', name: 'tag' }, limit: { in: 'query', name: 'limit' } },
    response_schema: {
      type: 'object',
      required: ['items'],
      properties: { items: { type: 'array', items: note }, total: { type: 'integer' } },
    },
    examples: [],
    origin: origin('get', '/notes', 'listNotes'),
  },
  {
    id: 'notes_test__createNote',
    name: 'Create a note',
    description: 'Create a new note in the notebook with a title and a tag.',
    category: 'productivity',
    parameters: { ...noteBody, required: ['title'] },
    bindings: bodyOf(['title', 'tag', 'done']),
    response_status: 201,
    response_schema: note,
    examples: [],
    origin: origin('post', '/notes', 'createNote'),
  },
  {
    id: 'notes_test__getNote',
    name: 'Get a note',
    description: 'Get one note of the notebook by its id.',
    category: 'productivity',
    parameters: { type: 'object', required: ['noteId'], properties: { noteId: { type: 'string' } } },
    bindings: noteId,
    response_schema: note,
    examples: [],
    origin: origin('get', '/notes/{noteId}', 'getNote'),
  },
  {
    id: 'notes_test__replaceNote',
    name: 'Replace a note',
    description: 'Replace a note of the notebook.',
    category: 'productivity',
    parameters: {
      type: 'object',
      required: ['noteId'],
      properties: { noteId: { type: 'string' }, ...noteBody.properties },
    },
    bindings: { ...noteId, ...bodyOf(['title', 'tag', 'done']) },
    response_schema: note,
    examples: [],
    origin: origin('put', '/notes/{noteId}', 'replaceNote'),
  },
  {
    id: 'notes_test__updateNote',
    name: 'Update a note',
    description: 'Change some fields of a note of the notebook.',
    category: 'productivity',
    parameters: {
      type: 'object',
      required: ['noteId'],
      properties: { noteId: { type: 'string' }, ...noteBody.properties },
    },
    bindings: { ...noteId, ...bodyOf(['title', 'tag', 'done']) },
    response_schema: note,
    examples: [],
    origin: origin('patch', '/notes/{noteId}', 'updateNote'),
  },
  {
    id: 'notes_test__deleteNote',
    name: 'Delete a note',
    description: 'Delete a note from the notebook.',
    category: 'productivity',
    parameters: { type: 'object', required: ['noteId'], properties: { noteId: { type: 'string' } } },
    bindings: noteId,
    response_status: 204,
    examples: [],
    origin: origin('delete', '/notes/{noteId}', 'deleteNote'),
  },
  {
    id: 'notes_test__addComment',
    name: 'Comment on a note',
    description: 'Add a comment to a note.',
    category: 'productivity',
    parameters: {
      type: 'object',
      required: ['noteId', 'text'],
      properties: { noteId: { type: 'string' }, text: { type: 'string' } },
    },
    bindings: { ...noteId, text: { in: 'body', name: 'text' } },
    response_status: 201,
    response_schema: comment,
    examples: [],
    origin: origin('post', '/notes/{noteId}/comments', 'addComment'),
  },
  {
    id: 'notes_test__listComments',
    name: 'List comments',
    description: 'List the comments on a note.',
    category: 'productivity',
    parameters: { type: 'object', required: ['noteId'], properties: { noteId: { type: 'string' } } },
    bindings: noteId,
    response_schema: { type: 'array', items: comment },
    examples: [],
    origin: origin('get', '/notes/{noteId}/comments', 'listComments'),
  },
];

const notesApi: ApiRecord = {
  api_id: 'notes.test',
  title: 'Notes',
  provider: 'notes.test',
  category: 'productivity',
  format: 'openapi',
};

export const episodeTools: Tool[] = [...petstoreTools, ...notesTools, ...extraTools];

/**
 * The notes API where a create may name its own id, as APIs with client-chosen keys allow (an undeclared `id` is
 * refused).
 */
export const notesToolsWithClientIds: Tool[] = notesTools.map((tool) =>
  tool.id === 'notes_test__createNote'
    ? {
        ...tool,
        parameters: { ...tool.parameters, properties: { id: { type: 'string' }, ...tool.parameters.properties } },
        bindings: { id: { in: 'body', name: 'id' }, ...tool.bindings },
      }
    : tool,
);

const libraries = new Map<readonly Tool[], string>();

/**
 * A fixture library (by default petstore, notes, the retrieval extras) with its BM25 index built, written once per test
 * process.
 */
export async function episodeLibrary(tools: readonly Tool[] = episodeTools): Promise<string> {
  const written = libraries.get(tools);
  if (written) return written;
  const dir = writeFixtureLibrary([...tools], [petstoreApi, notesApi]);
  const search = ToolSearch.open(dir);
  await search.index('bm25');
  await search.close();
  libraries.set(tools, dir);
  return dir;
}

/** A real server on 127.0.0.1 over a fixture library, answering with the synthesizer (ids that differ per call). */
export async function startEpisodeServer(
  options: Partial<ServeOptions> & { tools?: readonly Tool[] } = {},
): Promise<RunningServer> {
  const { tools, ...rest } = options;
  return startServer({
    library: await episodeLibrary(tools),
    cache: join(tempDir('toolenv-cache-'), 'responses.db'),
    responders: [synthResponder],
    errorRate: 0,
    port: 0,
    log: () => {},
    ...rest,
  });
}

type Json = Record<string, any>;

export async function json(response: Response, status = 200): Promise<Json> {
  const text = await response.text();
  if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${text}`);
  return JSON.parse(text) as Json;
}

export const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

/** Starts an episode and returns its summary. */
export async function createEpisode(url: string, config: unknown = {}): Promise<Json> {
  return json(await post(`${url}/v1/episodes`, config), 201);
}

/** Runs one step and returns its result. */
export async function step(url: string, id: string, actions: unknown[]): Promise<Json> {
  return json(await post(`${url}/v1/episodes/${id}/step`, { actions }));
}

export const call = (tool: string, args: Record<string, unknown> = {}, id?: string) => ({
  type: 'tool_call',
  tool,
  arguments: args,
  ...(id ? { id } : {}),
});
export const search = (query: string, k?: number) => ({ type: 'search_tool', query, ...(k ? { k } : {}) });
