import type { AgentTask } from '../agent/types.js';
import { isValidId, makeId } from '../library/ids.js';
import type { Tool } from '../library/tool.js';
import type { LibraryClient } from './library-client.js';
import { mapLimit } from './pool.js';
import type { FunctionReference, LoadedTask, NamedReference, ToolReference } from './tasks.js';

/**
 * How a reference found its tool: by id (own format, or a function name that is a tool's id), by identical origin
 * names, or by normalized ones.
 */
export type MatchKind = 'id' | 'exact' | 'normalized';

export interface ReferenceMapping {
  reference: ToolReference;
  /** The library tool; absent when the reference maps to nothing. */
  id?: string;
  match?: MatchKind;
  /** Other tools that matched as well, when the names did not single one out. */
  also?: string[];
}

/** A task ready to run: the agent's task (reference_tools = the mapped ids) and how each reference was mapped. */
export interface EvalTask {
  task: AgentTask;
  line: number;
  meta?: Record<string, unknown>;
  mapping: ReferenceMapping[];
  /** The episode's tools: the task's tool set mapped like its references; absent when it names none, or none maps. */
  tools?: string[];
  /** Entries of the task's tool set no library tool matched: left out of `tools`, counted by eval. */
  unmappedTools?: ToolReference[];
  /** The episode seed the task file gives. */
  seed?: number;
}

/** Candidates fetched in full per reference: the cheap name filter leaves only a handful in practice. */
const MAX_CANDIDATES = 50;

/** Case, spaces, underscores and punctuation dropped: "Get_User Info." and "getuserinfo" read the same. */
export function normalizeName(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Maps every task's references, and the tools its episode is restricted to, onto the served library. An id must
 * exist. ToolBench names `(tool_name, api_name)` match a ToolBench-imported tool's `origin` (tool_name, api_name)
 * or an OpenAPI tool's API (id or title) and operation (operationId, `METHOD /path` or tool name): identical names
 * first, then normalized ones, the category breaking ties. A function name (BFCL, API-Bank, MCP) matches an
 * OpenAI- or MCP-imported tool's origin name, else a tool with that id, else normalized origin names.
 */
export async function mapReferences(
  tasks: readonly LoadedTask[],
  library: LibraryClient,
  concurrency = 8,
): Promise<EvalTask[]> {
  const resolved = new Map<string, Promise<Omit<ReferenceMapping, 'reference'>>>();
  const resolve = (reference: ToolReference) => {
    const key = JSON.stringify(reference);
    let found = resolved.get(key);
    if (!found) {
      found =
        'id' in reference
          ? resolveId(reference.id, library)
          : 'name' in reference
            ? resolveFunction(reference, library)
            : resolveNamed(reference, library);
      resolved.set(key, found);
    }
    return found;
  };
  return mapLimit(tasks, concurrency, async (loaded) => {
    const mapping = await Promise.all(
      loaded.references.map(async (reference) => ({ reference, ...(await resolve(reference)) })),
    );
    const ids = [...new Set(mapping.flatMap((m) => (m.id === undefined ? [] : [m.id])))];
    const task: AgentTask = { id: loaded.id, query: loaded.query };
    if (ids.length > 0) task.reference_tools = ids;
    if (loaded.answer !== undefined) task.answer = loaded.answer;
    if (loaded.expect !== undefined) task.expect = loaded.expect;
    const out: EvalTask = { task, line: loaded.line, mapping };
    if (loaded.meta !== undefined) out.meta = loaded.meta;
    if (loaded.tools !== undefined) {
      const offered = await Promise.all(
        loaded.tools.map(async (reference) => ({ reference, ...(await resolve(reference)) })),
      );
      const toolIds = [...new Set(offered.flatMap((m) => (m.id === undefined ? [] : [m.id])))];
      // None mapped: the episode runs on the whole library rather than on no tool at all (the server refuses an empty
      // set).
      if (toolIds.length > 0) out.tools = toolIds;
      const unmapped = offered.filter((m) => m.id === undefined).map((m) => m.reference);
      if (unmapped.length > 0) out.unmappedTools = unmapped;
    }
    if (loaded.seed !== undefined) out.seed = loaded.seed;
    return out;
  });
}

/** Tasks that name reference tools none of which is in the library: they cannot be scored and are reported instead. */
export function isUnmappable(task: EvalTask): boolean {
  return task.mapping.length > 0 && task.mapping.every((m) => m.id === undefined);
}

async function resolveId(id: string, library: LibraryClient): Promise<Omit<ReferenceMapping, 'reference'>> {
  return (await library.tool(id)) ? { id, match: 'id' } : {};
}

async function resolveNamed(
  reference: NamedReference,
  library: LibraryClient,
): Promise<Omit<ReferenceMapping, 'reference'>> {
  const { category, tool_name, api_name } = reference;
  // The id the ToolBench importer (or the OpenAPI build, for api_id + operationId) would have given the tool.
  const guess = await library.tool(makeId([tool_name, api_name], `${category ?? ''}/${tool_name}/${api_name}`));
  if (guess && sameNames(guess, reference)) return { id: guess.id, match: 'exact' };

  const word = longestWord(api_name);
  if (word === undefined) return {};
  const api = normalizeName(api_name);
  const named = (await library.find(word))
    .filter((s) => normalizeName(s.name) === api || normalizeName(s.id).endsWith(api))
    .slice(0, MAX_CANDIDATES);
  const candidates = (await Promise.all(named.map((s) => library.tool(s.id)))).filter(
    (t): t is Tool => t !== undefined,
  );
  const exact = candidates.find((tool) => sameNames(tool, reference));
  if (exact) return { id: exact.id, match: 'exact' };

  const titles = candidates.some((t) => t.origin.format === 'openapi')
    ? new Map((await library.apis()).map((a) => [a.api_id, a.title]))
    : new Map<string, string>();
  const matches = candidates.filter((tool) => sameNames(tool, reference, titles));
  if (matches.length === 0) return {};
  const wanted = category === undefined ? undefined : normalizeName(category);
  const inCategory = matches.filter((tool) => wanted !== undefined && normalizeName(categoryOf(tool)) === wanted);
  const [best, ...rest] =
    inCategory.length > 0 ? [...inCategory, ...matches.filter((t) => !inCategory.includes(t))] : matches;
  return rest.length > 0
    ? { id: best!.id, match: 'normalized', also: rest.map((t) => t.id) }
    : { id: best!.id, match: 'normalized' };
}

/**
 * A function name: the tool an OpenAI or MCP import made of it (its origin name; its id is the name, or a slug of
 * it), else a library tool with that id, else one whose origin name reads the same normalized. A name written
 * `server/tool`, as MCP task sets name a server's tool, falls back to its tool part: the library keeps no server
 * for MCP tools.
 */
async function resolveFunction(
  { name }: FunctionReference,
  library: LibraryClient,
): Promise<Omit<ReferenceMapping, 'reference'>> {
  const guess = await library.tool(isValidId(name) ? name : makeId([name], name));
  if (guess && originName(guess) === name) return { id: guess.id, match: 'exact' };

  const word = longestWord(name);
  const wanted = normalizeName(name);
  const named =
    word === undefined
      ? []
      : (await library.find(word)).filter((s) => normalizeName(s.name) === wanted).slice(0, MAX_CANDIDATES);
  const candidates = (await Promise.all(named.map((s) => library.tool(s.id)))).filter(
    (t): t is Tool => t !== undefined && originName(t) !== undefined,
  );
  const exact = candidates.find((tool) => originName(tool) === name);
  if (exact) return { id: exact.id, match: 'exact' };
  if (guess?.id === name) return { id: name, match: 'id' };

  const matches = candidates.filter((tool) => normalizeName(originName(tool)!) === wanted);
  if (matches.length > 0) {
    const [best, ...rest] = matches;
    return rest.length > 0
      ? { id: best!.id, match: 'normalized', also: rest.map((t) => t.id) }
      : { id: best!.id, match: 'normalized' };
  }
  const slash = name.lastIndexOf('/');
  return slash > 0 && slash < name.length - 1 ? resolveFunction({ name: name.slice(slash + 1) }, library) : {};
}

/** The function name an OpenAI or MCP tool was imported under; other origins have none. */
function originName(tool: Tool): string | undefined {
  return tool.origin.format === 'openai' || tool.origin.format === 'mcp' ? tool.origin.name : undefined;
}

/**
 * Whether the tool's origin carries these names. Without `titles`: identical names (an OpenAPI tool by api_id and
 * operationId or `METHOD /path`). With them: normalized names, and an OpenAPI tool also by its API's title and its
 * own name.
 */
function sameNames(tool: Tool, { tool_name, api_name }: NamedReference, titles?: Map<string, string>): boolean {
  const origin = tool.origin;
  const same = titles ? normalizeName : (text: string) => text;
  const eq = (a: string | null | undefined, b: string) => typeof a === 'string' && same(a) === same(b);
  if (origin.format === 'toolbench') return eq(origin.tool_name, tool_name) && eq(origin.api_name, api_name);
  if (origin.format !== 'openapi') return false;
  const operation = `${origin.method.toUpperCase()} ${origin.path}`;
  if (!titles) return origin.api_id === tool_name && (origin.operation_id === api_name || operation === api_name);
  const api = eq(origin.api_id, tool_name) || eq(titles.get(origin.api_id), tool_name);
  return api && (eq(origin.operation_id, api_name) || eq(operation, api_name) || eq(tool.name, api_name));
}

/** The category a ToolBench task file would name: the folder for imported tools, the library category otherwise. */
function categoryOf(tool: Tool): string {
  return tool.origin.format === 'toolbench' ? tool.origin.category : tool.category;
}

/**
 * The longest word of the name (camelCase split too): a `GET /v1/tools?q=` term that every spelling of the name
 * contains, since the server matches substrings case-insensitively.
 */
function longestWord(text: string): string | undefined {
  const words = text
    .replace(/(\p{Ll})(\p{Lu})/gu, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  return words.sort((a, b) => b.length - a.length)[0];
}
