import type Qs from 'qs';
import { lazyRequire } from '../../lazy-require.js';
import type { JsonSchema } from '../../library/tool.js';
import { isPlainObject, MAX_JSON_DEPTH } from '../json-body.js';
import { arrayItems, coerceValues, propertySchema } from './coerce.js';

/** Indices past this spell an object with numeric keys, not a sparse array of that length. */
const ARRAY_LIMIT = 1000;

const qs = lazyRequire<typeof Qs>('qs');

/**
 * The value that bracket-encoded keys under `name` spell — `metadata[order_id]=6735`, `items[0][price]=p`,
 * `expand[]=customer` — as Stripe's, Rails' and PHP's clients send objects and arrays in a query or a form; leaves
 * coerced by the parameter's schema. Undefined when no key starts with `name[`.
 */
export function bracketed(pairs: Iterable<[string, string]>, name: string, schema: JsonSchema | undefined): unknown {
  const prefix = `${name}[`;
  const picked = new URLSearchParams();
  for (const [key, value] of pairs) if (key.startsWith(prefix)) picked.append(key, value);
  if (picked.size === 0) return undefined;
  const parsed = qs().parse(picked.toString(), {
    depth: MAX_JSON_DEPTH,
    arrayLimit: ARRAY_LIMIT,
    parameterLimit: Infinity,
    plainObjects: true,
  });
  return coerceTree(parsed[name], schema);
}

/** Strings of a parsed tree turned into what the schema at their place asks for. */
function coerceTree(value: unknown, schema: JsonSchema | undefined): unknown {
  if (typeof value === 'string') return coerceValues([value], schema);
  if (Array.isArray(value)) {
    const items = arrayItems(schema);
    return value.map((item) => coerceTree(item, items));
  }
  if (isPlainObject(value)) {
    const object: Record<string, unknown> = {};
    for (const [member, child] of Object.entries(value))
      object[member] = coerceTree(child, propertySchema(schema, member));
    return object;
  }
  return value;
}
