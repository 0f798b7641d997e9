import { nameKey, singular } from '../simulator/synth/names.js';

export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Members that wrap one resource (`{"data": {...}}`) or a page of them (`{"items": [...]}`), as name keys. */
const RECORD_WRAPPERS = ['data', 'result', 'item', 'resource', 'record', 'object', 'entity'];
const LIST_MEMBERS = new Set([
  'items',
  'data',
  'results',
  'records',
  'entries',
  'values',
  'list',
  'content',
  'elements',
  'rows',
  'hits',
  'objects',
]);

/** Where in a body a value sits: `[]` for the body itself, `[member]` one level down. */
export type BodyPath = [] | [string];

export function at(body: unknown, path: BodyPath): unknown {
  return path.length === 0 ? body : (body as Json)[path[0]];
}

/** A copy of `body` with the value at `path` replaced (the body itself when the path is empty). */
export function replaceAt(body: unknown, path: BodyPath, value: unknown): unknown {
  return path.length === 0 ? value : { ...(body as Json), [path[0]]: value };
}

/**
 * The id field of a resource object: the member the API addresses it by, named as its item parameter (`petId`) or
 * as that parameter less the collection's noun (`issue_number` of `/issues` is an issue's `number`, not its `id`;
 * Airflow's `pool_name` a pool's `name`),
 * then `id`, `{noun}_id`, `uuid` or `key`, compared as name keys.
 */
export function idField(record: Json, noun: string, preferred?: string): string | undefined {
  const param = preferred && nameKey(preferred);
  const field = param && noun && param.startsWith(`${noun}_`) ? param.slice(noun.length + 1) : undefined;
  const wanted = [param, field, 'id', noun && `${noun}_id`, 'uuid', 'key'].filter((k): k is string => !!k);
  const fields = Object.keys(record).filter((field) => isId(record[field]));
  for (const key of wanted) {
    const field = fields.find((f) => nameKey(f) === key);
    if (field !== undefined) return field;
  }
  return undefined;
}

const isId = (value: unknown): value is string | number =>
  (typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value));

/**
 * Where the resource object of a single-resource body is: the body when it carries an id, else a wrapper member holding
 * an object.
 */
export function recordPath(body: unknown, noun: string, preferred?: string): BodyPath | undefined {
  if (!isRecord(body)) return undefined;
  if (idField(body, noun, preferred) !== undefined) return [];
  const member = Object.keys(body).find(
    (key) => isRecord(body[key]) && (RECORD_WRAPPERS.includes(nameKey(key)) || nameKey(key) === noun),
  );
  return member === undefined ? [] : [member];
}

/**
 * Where the array of a list body is: the body itself, a list member (`items`, `data`, the collection's plural…), else
 * the one array of objects.
 */
export function listPath(body: unknown, noun: string): BodyPath | undefined {
  if (Array.isArray(body)) return [];
  if (!isRecord(body)) return undefined;
  const arrays = Object.keys(body).filter((key) => Array.isArray(body[key]));
  const named = arrays.find((key) => LIST_MEMBERS.has(nameKey(key)) || singular(nameKey(key)) === noun);
  if (named !== undefined) return [named];
  const ofObjects = arrays.filter((key) => (body[key] as unknown[]).every(isRecord));
  return ofObjects.length === 1 ? [ofObjects[0]!] : undefined;
}
