import type { Tool } from '../library/tool.js';
import { MAX_K } from '../protocol/protocol.js';
import type { FunctionSpec } from '../wire/episodes.js';

/** The two functions every `chat` episode offers: finding tools, and calling any library tool by id. */
export const SEARCH_FUNCTION = 'search_tool';
export const CALL_FUNCTION = 'call_tool';

/** Characters of a native function's description: tool descriptions run to pages, and every turn re-sends the list. */
const MAX_DESCRIPTION = 512;

const searchSpec = (k: number): FunctionSpec => ({
  type: 'function',
  function: {
    name: SEARCH_FUNCTION,
    description:
      `Search a library of thousands of real APIs for tools that do something. Answers the top ${k} tools (id, name, ` +
      'description, parameters, response fields); each becomes callable by its id.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'What the tool should do, in words' },
        k: { type: 'integer', minimum: 1, maximum: MAX_K, description: `How many tools to return (default ${k})` },
      },
      required: ['query'],
      additionalProperties: false,
    },
  },
});

const CALL_SPEC: FunctionSpec = {
  type: 'function',
  function: {
    name: CALL_FUNCTION,
    description:
      'Call a library tool by its id, as search_tool returned it, with the arguments its parameters ask for.',
    parameters: {
      type: 'object',
      properties: {
        tool: { type: 'string', description: 'The tool id' },
        arguments: { type: 'object', description: 'The tool’s arguments' },
      },
      required: ['tool', 'arguments'],
      additionalProperties: false,
    },
  },
};

/**
 * Specs of the records the library holds (its LRU hands out the same record while cached): every turn re-sends them.
 */
const specs = new WeakMap<Tool, FunctionSpec>();

/**
 * A library tool as a native function: named by its id (ids are valid OpenAI function names), its parameters schema as
 * is.
 */
export function toolFunction(tool: Tool): FunctionSpec {
  let spec = specs.get(tool);
  if (!spec) {
    const flat = tool.description.replace(/\s+/g, ' ').trim();
    const description = flat.length > MAX_DESCRIPTION ? `${flat.slice(0, MAX_DESCRIPTION - 1)}…` : flat;
    specs.set(
      tool,
      (spec = {
        type: 'function',
        function: { name: tool.id, description: description || tool.name, parameters: tool.parameters },
      }),
    );
  }
  return spec;
}

/** The functions callable now: search_tool and call_tool, then the tools given natively, in the order they came. */
export function callableFunctions(k: number, tools: Iterable<Tool>): FunctionSpec[] {
  return [searchSpec(k), CALL_SPEC, ...[...tools].map(toolFunction)];
}
