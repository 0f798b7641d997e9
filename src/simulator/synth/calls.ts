import type { JsonSchema } from '../../library/tool.js';
import { rng } from './faker.js';
import { generate } from './schema.js';
import { NOTHING, rootlessSite, type Walk } from './site.js';

/**
 * A callable the request offers: an item of one of its lists holding a `name` and a schema for its arguments
 * (`parameters`, `input_schema`), directly or one object down (`tools[].function`), with the item's `type`.
 */
export interface Offered {
  name: string;
  type: string | undefined;
  schema: JsonSchema | undefined;
}

/** Where a callable's declaration keeps the schema of its arguments (OpenAI, Anthropic, MCP). */
const SCHEMA_KEYS = ['parameters', 'input_schema', 'inputSchema'];
/** Where a call carries its arguments: a JSON string (OpenAI) or an object (Anthropic's `input`, Gemini's `args`). */
const ARGUMENT_KEYS = ['arguments', 'input', 'args'];

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function declared(holder: Record<string, unknown>, type: string | undefined): Offered | undefined {
  if (typeof holder.name !== 'string' || holder.name === '') return undefined;
  // An earlier call sent back (the Responses API's input items) offers nothing.
  if (ARGUMENT_KEYS.some((key) => holder[key] !== undefined)) return undefined;
  const key = SCHEMA_KEYS.find((k) => holder[k] !== undefined);
  const schema = key === undefined ? undefined : holder[key];
  if (key !== undefined && !isObject(schema) && typeof schema !== 'boolean') return undefined;
  // A named item with neither a schema nor a type is a record the request sends (a user, a file), not a callable.
  if (key === undefined && type === undefined) return undefined;
  return { name: holder.name, type, schema: schema as JsonSchema | undefined };
}

const offers = new WeakMap<object, Offered[]>();

/** The callables the request's top-level lists offer, in the order sent. */
export function offeredOf(tree: Record<string, unknown> | undefined): Offered[] {
  if (!tree) return [];
  let found = offers.get(tree);
  if (found) return found;
  found = [];
  for (const list of Object.values(tree)) {
    if (!Array.isArray(list)) continue;
    for (const item of list) {
      if (!isObject(item)) continue;
      const type = typeof item.type === 'string' ? item.type : undefined;
      const offer =
        declared(item, type) ??
        Object.values(item)
          .filter(isObject)
          .map((inner) => declared(inner, type))
          .find((inner) => inner !== undefined);
      if (offer) found.push(offer);
    }
  }
  offers.set(tree, found);
  return found;
}

/** A call: a `name` beside the arguments it is called with. */
const argumentKey = (out: Record<string, unknown>) =>
  typeof out.name === 'string' ? ARGUMENT_KEYS.find((key) => out[key] !== undefined) : undefined;

/** A type naming a call or its result, as the Responses API's output items do (`web_search_call`, `shell_call_output`). */
const CALL_TYPE = /_call(?:_output)?$/;

/**
 * Whether an object is a call: its type says so, or it holds a name beside arguments, itself or a level down
 * (`{type: 'function', function: {name, arguments}}`).
 */
function isCall(value: unknown): boolean {
  if (!isObject(value)) return false;
  if (typeof value.type === 'string' && CALL_TYPE.test(value.type)) return true;
  return argumentKey(value) !== undefined || Object.values(value).some((v) => isObject(v) && argumentKey(v));
}

/**
 * Whether a call's kind is one the request offered: its `type` is an offered callable's (`function`) or names a call
 * of one (`function_call`, `function_tool_call`). A call without a type, or a request offering no typed callables,
 * keeps it.
 */
function offeredKind(type: unknown, offered: readonly Offered[]): boolean {
  if (typeof type !== 'string') return true;
  const types = offered.flatMap((offer) => (offer.type === undefined ? [] : [offer.type]));
  return types.length === 0 || types.some((kind) => type === kind || type.startsWith(`${kind}_`));
}

/**
 * Whether a list item is no call, or a call of a kind the request offered (a `custom` call answers no function). Where
 * the operation takes callables and the request sent none, there is nothing to call.
 */
export function callOfOffered(item: unknown, walk: Walk): boolean {
  const offered = offeredOf(walk.echo.tree);
  if (offered.length === 0 && !walk.echo.takesCallables) return true;
  if (!isCall(item)) return true;
  return offered.length > 0 && offeredKind((item as { type?: unknown }).type, offered);
}

/**
 * A call names one of the request's offered callables and carries arguments valid for its schema: a JSON object
 * string where the call's arguments are a string, else the object. `replace` keeps a value only where the field's own
 * schema takes it.
 */
export function callOffered(
  out: Record<string, unknown>,
  walk: Walk,
  replace: (key: string, want: unknown) => boolean,
): void {
  const key = argumentKey(out);
  if (key === undefined) return;
  const offered = offeredOf(walk.echo.tree);
  if (offered.length === 0) return;
  const chosen = offered.find((offer) => offer.name === out.name) ?? rng.pick(offered);
  if (out.name !== chosen.name && !replace('name', chosen.name)) return;
  if (chosen.schema === undefined) return;
  const args = argumentsFor(chosen.schema, walk);
  if (args === NOTHING || !isObject(args)) return;
  replace(key, typeof out[key] === 'string' ? JSON.stringify(args) : args);
}

/** Arguments for a callable's schema, drawn as the tool's own fields would be (a `city` is a city). */
function argumentsFor(schema: JsonSchema, walk: Walk): unknown {
  return generate([schema], rootlessSite(1), walk);
}
