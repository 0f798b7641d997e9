import type { Tool } from '../library/tool.js';
import { satisfies } from './synth/check.js';
import { echoFrom, mirrorOf, searchedField, withTerms, WRAPPERS, type Echo } from './synth/echo.js';
import { outOfUse } from './synth/flags.js';
import { nameKey } from './synth/names.js';
import type { Arguments } from './types.js';

/** One value the pass put in place of the example's. */
interface Change {
  holder: Record<string, unknown> | unknown[];
  key: string | number;
  was: unknown;
  now: unknown;
}

/** Past this many changes, a body the schema rejects is not repaired change by change: the example stands as it was. */
const MAX_REPAIRS = 32;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown): value is string | number | boolean =>
  ['string', 'number', 'boolean'].includes(typeof value);

/** The request's value in the example's type (`"42"` where the example has a number), or undefined when it has none. */
function inKind(want: unknown, current: unknown): unknown {
  if (!isScalar(want) || !isScalar(current) || want === current) return undefined;
  if (typeof want === typeof current) return want;
  if (typeof current === 'number' && typeof want === 'string' && /^-?\d+(?:\.\d+)?$/.test(want)) return Number(want);
  if (typeof current === 'string' && typeof want === 'number') return String(want);
  if (typeof current === 'boolean' && (want === 'true' || want === 'false')) return want === 'true';
  return undefined;
}

class Pass {
  readonly changes: Change[] = [];
  constructor(readonly echo: Echo) {}

  set(holder: Json | unknown[], key: string | number, want: unknown): void {
    const was = (holder as Json)[key as string];
    const now = inKind(want, was);
    if (now !== undefined) this.put(holder, key, now);
  }

  put(holder: Json | unknown[], key: string | number, now: unknown): void {
    const was = (holder as Json)[key as string];
    (holder as Json)[key as string] = now;
    this.changes.push({ holder, key, was, now });
  }

  /** A primary record: the body, an item of the body's list, or what a wrapper holds. */
  record(record: Json, mirror: unknown, inList: boolean): void {
    const { echo } = this;
    const searched =
      echo.search !== undefined && inList
        ? searchedField(Object.keys(record).filter((name) => typeof record[name] === 'string'))
        : undefined;
    for (const name of Object.keys(record)) {
      const key = nameKey(name);
      const value = record[name];
      if (isScalar(value)) {
        const sent = mirrorOf(mirror, key);
        let want: unknown;
        if (key === 'id')
          want = inList ? undefined : (echo.resourceId ?? (isScalar(sent) ? sent : echo.byKey.get('id')));
        else want = isScalar(sent) ? sent : echo.byKey.get(key);
        if (want !== undefined) this.set(record, name, want);
        else if (name === searched) this.set(record, name, withTerms(value as string, echo.search!));
        else if (echo.reads && !inList && value === true && outOfUse(key)) this.set(record, name, false);
        continue;
      }
      const sent = mirrorOf(mirror, key);
      if (WRAPPERS.has(key) || echo.resources.has(key) || (Array.isArray(value) && echo.collections.has(key)))
        this.records(value, sent ?? (inList ? undefined : echo.tree));
      else if (isObject(value)) this.held(value, key, sent);
      else this.list(record, name, sent);
    }
  }

  records(value: unknown, mirror: unknown): void {
    if (isObject(value)) this.record(value, mirror, false);
    // Listed records repeat the request's filters, nested ones too; a list the request sent, item by item.
    else if (Array.isArray(value))
      for (const [index, item] of value.entries())
        if (isObject(item)) this.record(item, Array.isArray(mirror) ? mirror[index] : this.echo.tree, true);
  }

  /**
   * An object a record holds (`owner`, `user`): its fields take what the request sent there and the dotted echoes
   * (`owner.login`).
   */
  held(object: Json, holder: string | undefined, mirror: unknown): void {
    for (const name of Object.keys(object)) {
      const key = nameKey(name);
      const value = object[name];
      const sent = mirrorOf(mirror, key);
      if (isScalar(value)) {
        const want = isScalar(sent)
          ? sent
          : holder === undefined
            ? undefined
            : this.echo.dotted.get(`${holder}.${key}`);
        if (want !== undefined) this.set(object, name, want);
      } else if (isObject(value)) this.held(value, undefined, sent);
      else this.list(object, name, sent);
    }
  }

  /** A list the request sent too: scalars come back as sent (`labels: ["crash", "p1"]`), objects field by field. */
  list(holder: Json, name: string, mirror: unknown): void {
    const value = holder[name];
    if (!Array.isArray(value) || !Array.isArray(mirror) || mirror.length === 0) return;
    if (value.every(isScalar) && mirror.every(isScalar)) {
      const like = value[0];
      const now =
        like === undefined ? mirror : mirror.map((item) => (item === like ? item : (inKind(item, like) ?? item)));
      if (JSON.stringify(now) !== JSON.stringify(value)) this.put(holder, name, now);
      return;
    }
    for (const [index, item] of value.entries())
      if (isObject(item) && index < mirror.length) this.held(item, undefined, mirror[index]);
  }

  /** Old identifiers in the example's links (`https://api.github.com/users/octocat`) become the request's. */
  relink(value: unknown, renamed: Map<string, string>, out: Change[], depth = 0): void {
    if (depth > 12) return;
    const entries: [string | number, unknown][] = Array.isArray(value)
      ? value.map((item, i) => [i, item])
      : isObject(value)
        ? Object.entries(value)
        : [];
    for (const [key, child] of entries) {
      if (typeof child === 'string' && child.includes('/')) {
        const linked = child.replace(/(?<=\/)([\w.-]+)(?=$|[/?#])/g, (segment) => renamed.get(segment) ?? segment);
        if (linked !== child) {
          (value as Json)[key as string] = linked;
          out.push({ holder: value as Json, key, was: child, now: linked });
        }
      } else this.relink(child, renamed, out, depth + 1);
    }
  }
}

/** Identifiers the changes replaced (`octocat` → `torvalds`): their old spelling in the example's links goes too. */
function renamesOf(changes: readonly Change[]): Map<string, string> {
  const renamed = new Map<string, string>();
  for (const { was, now } of changes)
    if (isScalar(was) && isScalar(now) && /^[\w.-]{2,}$/.test(String(was)) && /^[\w.-]+$/.test(String(now)))
      renamed.set(String(was), String(now));
  return renamed;
}

const undo = (change: Change) => ((change.holder as Json)[change.key as string] = change.was);
const redo = (change: Change) => ((change.holder as Json)[change.key as string] = change.now);

/**
 * A spec example made to answer the request it is given, in place: its shape and content stay, but not the values
 * that contradict the request. The fields the request names (same name, a synonym, the addressed resource's id, what
 * a create sent, field by field) take the request's values, in the example's types; links that spelled the old
 * identifier spell the new one; listed results carry a free-text search in their name or title; a resource read by
 * its id is not deleted. A change the response schema rejects is taken back, so a valid example stays valid.
 */
export function conformExample(tool: Tool, args: Arguments, body: unknown): unknown {
  if (!isObject(body) && !Array.isArray(body)) return body;
  const echo = echoFrom(tool, args);
  const pass = new Pass(echo);
  pass.records(body, echo.tree);
  if (pass.changes.length === 0) return body;
  const schema = tool.response_schema;
  const valid = () => schema === undefined || satisfies(schema, body) !== false;
  let kept: readonly Change[] = pass.changes;
  if (!valid()) {
    // Something the schema rejects: keep the changes it takes one at a time, if it took the example as it was.
    [...kept].reverse().forEach(undo);
    if (!valid() || kept.length > MAX_REPAIRS) return body;
    kept = kept.filter((change) => {
      redo(change);
      if (valid()) return true;
      undo(change);
      return false;
    });
  }
  const renamed = renamesOf(kept);
  if (renamed.size === 0) return body;
  const links: Change[] = [];
  pass.relink(body, renamed, links);
  if (!valid()) [...links].reverse().forEach(undo);
  return body;
}
