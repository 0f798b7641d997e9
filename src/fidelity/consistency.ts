import type { Tool } from '../library/tool.js';
import { nameKey } from '../simulator/synth/names.js';
import type { Arguments } from '../simulator/types.js';
import { isRecord, isScalar, primaryRecords, requestScalars, type RequestScalar, type Scalar } from './fields.js';

/** How a response field was found to mean what a request value means. */
export const MATCH_RULES = ['name', 'synonym', 'resource_id', 'full_name', 'search'] as const;
export type MatchRule = (typeof MATCH_RULES)[number];

/** One request value and what the response says where it should repeat it. */
export interface ConsistencyCheck {
  request: string;
  rule: MatchRule;
  /** JSON Pointer of the first response field that disagrees (or of the first that agrees). */
  field: string;
  expected: Scalar;
  got: unknown;
  consistent: boolean;
}

/**
 * Request names (as nameKey) and the response fields that mean the same: GitHub's `username` is the user's
 * `login`, `issue_number` the issue's `number`; a dotted name is a field of a nested object (`owner` → `owner.login`).
 */
export const SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  username: ['login', 'user_name', 'screen_name', 'handle', 'user.login'],
  user_name: ['login', 'username', 'screen_name'],
  user: ['login', 'username', 'user_name', 'user.login'],
  login: ['username', 'user_name'],
  owner: ['owner.login', 'owner_login', 'owner.username'],
  org: ['login', 'org.login'],
  organization: ['login', 'organization.login'],
  issue_number: ['number'],
  pull_number: ['number'],
  pr_number: ['number'],
  email_address: ['email'],
  email: ['email_address'],
  zip: ['zip_code', 'postal_code', 'zipcode'],
  zip_code: ['zip', 'postal_code', 'zipcode'],
  postal_code: ['zip', 'zip_code', 'postcode'],
};

/**
 * Synonyms that hold only for the parameter naming the addressed resource: `{repo}` of `/repos/{owner}/{repo}` is the
 * repository's `name`, not a release's.
 */
const ADDRESSED_SYNONYMS: Readonly<Record<string, readonly string[]>> = { repo: ['name'], repository: ['name'] };

/** Free-text search parameters: every item of a result list should contain the text. */
const SEARCH_KEYS = new Set([
  'q',
  'query',
  'search',
  'search_query',
  'search_term',
  'keyword',
  'keywords',
  'term',
  'terms',
  'text',
  'filter',
]);

const compact = (key: string) => key.replace(/_/g, '');

/** Equal as an API would compare them: `42` and `"42"` are one id; strings are compared exactly. */
export function sameScalar(expected: Scalar, got: unknown): boolean {
  return got === expected || (isScalar(got) && String(got) === String(expected));
}

/**
 * The request property naming the addressed resource: the template ending a REST path (`petId` of `/pets/{petId}`).
 * None for a POST, which creates something under it (`POST /owner/{entityId}/avatar` answers the avatar).
 */
function addressedId(tool: Tool): string | undefined {
  if (tool.origin.format !== 'openapi' || tool.origin.method.toLowerCase() === 'post') return undefined;
  const wire = /\{([^}]+)\}\/?$/.exec(tool.origin.path)?.[1];
  if (wire === undefined) return undefined;
  return (
    Object.entries(tool.bindings ?? {}).find(([, binding]) => binding.in === 'path' && binding.name === wire)?.[0] ??
    wire
  );
}

/** A REST path's literal segments as nouns, singular and plural (`pets`, `pet`), the last one first. */
function resourceNouns(tool: Tool): string[] {
  const words =
    tool.origin.format === 'openapi'
      ? tool.origin.path
          .split('/')
          .filter((s) => s && !s.startsWith('{'))
          .map(nameKey)
          .reverse()
      : [];
  return words.flatMap((word) => [word, word.replace(/ies$/, 'y').replace(/s$/, '')]);
}

function dotted(record: Record<string, unknown>, path: string): unknown {
  let value: unknown = record;
  for (const part of path.split('.')) {
    if (!isRecord(value)) return undefined;
    const entry = Object.entries(value).find(([name]) => nameKey(name) === part);
    value = entry?.[1];
  }
  return value;
}

function fieldPointer(body: unknown, record: Record<string, unknown>, name: string): string {
  const at = pointerOf(body, record) ?? '';
  return name === '' ? at : `${at}/${name}`;
}

function pointerOf(body: unknown, target: object, at = '', depth = 0): string | undefined {
  if (body === target) return at;
  if (depth > 2 || typeof body !== 'object' || body === null) return undefined;
  for (const [key, value] of Object.entries(body)) {
    const found = pointerOf(value, target, `${at}/${key}`, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

function stringLeaves(value: unknown, out: string[] = [], depth = 0): string[] {
  if (typeof value === 'string') out.push(value.toLowerCase());
  else if (depth < 6 && typeof value === 'object' && value !== null)
    for (const child of Object.values(value)) stringLeaves(child, out, depth + 1);
  return out;
}

/**
 * For every scalar the request carries, the response fields that mean the same thing and whether they repeat its
 * value: fields of the primary records with the same name (case and underscores aside) or a known synonym, the
 * addressed resource's `id`, `full_name` for `{owner}/{repo}`, and free-text searches contained in every listed
 * item. A scalar with no counterpart is not checkable and makes no check.
 */
export function consistencyChecks(tool: Tool, args: Arguments, body: unknown): ConsistencyCheck[] {
  const nouns = resourceNouns(tool);
  const records = primaryRecords(body, new Set(nouns));
  if (records.length === 0) return [];
  const checks: ConsistencyCheck[] = [];
  const idProperty = addressedId(tool);
  const top = isRecord(body) ? body : undefined;

  const judge = (
    request: RequestScalar,
    rule: MatchRule,
    found: { record: Record<string, unknown>; name: string; value: unknown }[],
  ) => {
    if (found.length === 0) return;
    const wrong = found.find((f) => !sameScalar(request.value, f.value));
    const shown = wrong ?? found[0]!;
    checks.push({
      request: request.path,
      rule,
      field: fieldPointer(body, shown.record, shown.name),
      expected: request.value,
      got: shown.value,
      consistent: wrong === undefined,
    });
  };

  const scalars = requestScalars(tool, args);
  for (const request of scalars) {
    const key = nameKey(request.key);
    if (SEARCH_KEYS.has(key)) {
      const items = Array.isArray(body) ? records : records.filter((r) => r !== body);
      if (typeof request.value !== 'string' || request.value.trim().length < 2 || items.length === 0) continue;
      const needle = request.value.toLowerCase();
      const missing = items.find((item) => !stringLeaves(item).some((text) => text.includes(needle)));
      checks.push({
        request: request.path,
        rule: 'search',
        field: fieldPointer(body, missing ?? items[0]!, ''),
        expected: request.value,
        got: missing ? 'an item without it' : 'every item',
        consistent: missing === undefined,
      });
      continue;
    }
    // `/users/{userId}/orders/{orderId}` answers an order: only the addressed resource's id is the record's `id`.
    const isAddressed = request.in === 'path' && request.path === idProperty;
    const idNamed = key.endsWith('_id');
    const nounId =
      (idProperty === undefined || isAddressed) &&
      nouns.slice(0, 2).some((noun) => key === `${noun}_id` || compact(key) === `${compact(noun)}id`);
    if (((isAddressed && idNamed) || nounId) && top && Object.hasOwn(top, 'id') && isScalar(top.id)) {
      judge(request, 'resource_id', [{ record: top, name: 'id', value: top.id }]);
      continue;
    }
    // A parent's `{id}` (`/roles/{id}/actors`) is not the id of the records listed under it.
    if (request.in === 'path' && !isAddressed && key === 'id') continue;
    const byName: { record: Record<string, unknown>; name: string; value: unknown }[] = [];
    if (request.path.includes('/')) {
      // A field of a body object repeats at the same place in the record (`{owner: {login}}`), not anywhere by its
      // name.
      const path = request.path.split('/').map(nameKey).join('.');
      for (const record of records) {
        const value = dotted(record, path);
        if (isScalar(value)) byName.push({ record, name: request.path, value });
      }
      judge(request, 'name', byName);
      continue;
    }
    const bySynonym: typeof byName = [];
    const synonyms = [...(SYNONYMS[key] ?? []), ...(isAddressed ? (ADDRESSED_SYNONYMS[key] ?? []) : [])];
    for (const record of records) {
      for (const [name, value] of Object.entries(record)) {
        if (!isScalar(value)) continue;
        const field = nameKey(name);
        if (field === key || compact(field) === compact(key)) byName.push({ record, name, value });
        else if (synonyms.includes(field)) bySynonym.push({ record, name, value });
      }
      for (const path of synonyms.filter((s) => s.includes('.'))) {
        const value = dotted(record, path);
        if (isScalar(value)) bySynonym.push({ record, name: path.replace('.', '/'), value });
      }
    }
    if (byName.length > 0) judge(request, 'name', byName);
    else judge(request, 'synonym', bySynonym);
  }

  const owner = scalars.find((s) => nameKey(s.key) === 'owner' && s.in !== 'body');
  const repo = scalars.find((s) => ['repo', 'repository'].includes(nameKey(s.key)) && s.in !== 'body');
  if (owner && repo) {
    const expected = `${owner.value}/${repo.value}`;
    const found = records
      .filter((r) => isScalar(r.full_name))
      .map((record) => ({ record, name: 'full_name', value: record.full_name }));
    if (found.length > 0)
      judge({ in: 'path', path: `${owner.path}/${repo.path}`, key: 'full_name', value: expected }, 'full_name', found);
  }
  return checks;
}
