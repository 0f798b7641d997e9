import { PROBLEM_CONTENT_TYPE, problem } from '../simulator/problem.js';
import type { CallResult } from '../simulator/types.js';
import { at, idField, isRecord, listPath, recordPath, replaceAt, type Json } from './resource-body.js';
import { pageSize } from '../simulator/synth/echo.js';
import { collectionKey, type Collection, type ResourceOp } from './resource-op.js';

/** What world state did to a call, reported as the observation's `state`. */
export type WorldEffect = 'created' | 'read' | 'updated' | 'deleted' | 'listed' | 'missing';

interface Stored {
  value: Json;
  /** The member of `value` holding its id. */
  idField: string;
  /** Bytes of `value` as JSON. */
  bytes: number;
}
const DELETED = Symbol('deleted');
type Entry = Stored | typeof DELETED;

/** The item parameter name an API uses for a collection (`petId` for `/pets`), found among its operations. */
export type ItemParamLookup = (api: string, template: string) => string | undefined;

/**
 * One episode's world: the resources its calls created, changed or deleted, keyed by (api_id, collection path with
 * its parent parameters filled in, resource id). `apply` takes the simulator's answer to a call and returns what
 * the episode sees instead:
 *
 * - create (POST on a collection, 2xx): the resource is the response's resource object (the body, or a `data`-like
 *   wrapper member) with the request's body members written over the members it has, else the request body. Its id
 *   is the first id-like member (the item parameter's name, `id`, `{noun}_id`, `uuid`, `key`) of the response, else
 *   of the request; with none the call is not remembered. An id the request chose is the client's: creating it
 *   again overwrites the remembered resource (an upsert). An id the simulated response made up that is already used
 *   in the collection is replaced by a fresh one (number: one past the largest; string: `-2`, `-3`… appended), as a
 *   real API never hands out one twice.
 * - read (GET of an item): a remembered resource answers 200 with it (inside the response's wrapper when there is
 *   one); a deleted one answers a 404 problem (`missing`).
 * - update (PUT, PATCH, or POST on an item, 2xx): the request's body members are merged over the remembered
 *   resource (or over the response's, for an id never seen), the id kept; a deleted one is 404 (`missing`).
 * - delete (DELETE of an item, 2xx): later reads, updates and deletes of it are 404 (`missing`).
 * - list (GET of a collection, 2xx): in the list (the body array, or its `items`/`data`/plural member) remembered
 *   resources replace items with their id, deleted ones are dropped, and the rest are appended in creation order —
 *   those whose members equal every query argument of the same name; a page size the request asked for (`limit`,
 *   `per_page`…) bounds the list, the simulator's items giving way to the episode's.
 * Reads of ids the episode never touched, and calls of any other shape, are answered as the simulator answered.
 * Memory is bounded by `budget` bytes (resource JSON, ids and collection keys): a create, update or delete that
 * would pass it is not remembered (an updated resource is forgotten, so later reads fall through to the simulator
 * rather than see a stale one). Reads remember nothing.
 */
export class WorldState {
  private readonly collections = new Map<string, Map<string, Entry>>();
  private used = 0;

  constructor(
    private readonly itemParam: ItemParamLookup,
    private readonly budget: number,
  ) {}

  /** Bytes the world holds, as counted against its budget. */
  get bytes(): number {
    return this.used;
  }

  /**
   * One collection as it stands, keyed as calls reach it (`api`, the path with its parent parameters filled in): its
   * live resources by id, and null for the ids deleted. What `expect` assertions read (state-checks.ts).
   */
  resources(api: string, path: string): Map<string, Json | null> {
    const out = new Map<string, Json | null>();
    for (const [id, entry] of this.collections.get(collectionKey(api, path)) ?? [])
      out.set(id, entry === DELETED ? null : entry.value);
    return out;
  }

  apply(op: ResourceOp, result: CallResult): { result: CallResult; state?: WorldEffect } {
    const ok = result.status >= 200 && result.status < 300;
    switch (op.kind) {
      case 'create':
        return ok ? this.create(op, result) : { result };
      case 'read': {
        const entry = this.collections.get(op.collection.key)?.get(op.id);
        if (entry === DELETED) return missing(op.collection, op.id);
        if (!entry) return { result };
        const path = ok ? recordPath(result.body, op.collection.noun, op.idField) : undefined;
        const body = path ? replaceAt(result.body, path, structuredClone(entry.value)) : structuredClone(entry.value);
        return { result: { status: 200, body, source: 'state', headers: {} }, state: 'read' };
      }
      case 'update':
        return this.update(op, result, ok);
      case 'delete': {
        if (this.collections.get(op.collection.key)?.get(op.id) === DELETED) return missing(op.collection, op.id);
        if (!ok || !this.remember(op.collection, op.id, DELETED)) return { result };
        return { result, state: 'deleted' };
      }
      case 'list':
        return ok ? this.list(op, result) : { result };
    }
  }

  /** Stores an entry within the budget; past it, forgets the id instead (what was there is stale) and says so. */
  private remember(collection: Collection, id: string, entry: Entry): boolean {
    let entries = this.collections.get(collection.key);
    const before = entries?.get(id);
    const freed = before === undefined ? 0 : entrySize(id, before);
    const added = entrySize(id, entry) + (entries ? 0 : Buffer.byteLength(collection.key));
    if (this.used - freed + added > this.budget) {
      if (before !== undefined) entries!.delete(id);
      this.used -= freed;
      return false;
    }
    if (!entries) this.collections.set(collection.key, (entries = new Map()));
    entries.set(id, entry);
    this.used += added - freed;
    return true;
  }

  private create(
    op: Extract<ResourceOp, { kind: 'create' }>,
    result: CallResult,
  ): { result: CallResult; state?: WorldEffect } {
    const { noun } = op.collection;
    const preferred = this.itemParam(op.collection.api, op.collection.template);
    const path = recordPath(result.body, noun, preferred);
    const answered = path ? at(result.body, path) : undefined;
    let value: Json;
    let field: string | undefined;
    if (isRecord(answered) && (field = idField(answered, noun, preferred)) !== undefined) {
      value = structuredClone(answered);
      for (const [member, given] of Object.entries(op.body)) if (Object.hasOwn(value, member)) value[member] = given;
    } else if ((field = idField(op.body, noun, preferred)) !== undefined) {
      value = { ...(isRecord(answered) ? structuredClone(answered) : {}), ...structuredClone(op.body) };
    } else {
      return { result };
    }
    // An id the request chose is upserted; one the simulated response made up must not clash.
    const entries = this.collections.get(op.collection.key);
    if (!Object.hasOwn(op.body, field) && entries?.has(String(value[field])))
      value[field] = freshId(entries, value[field] as string | number);
    if (!this.remember(op.collection, String(value[field]), stored(value, field))) return { result };
    if (!path || !isRecord(answered)) return { result, state: 'created' };
    return { result: changed(result, path, answered, structuredClone(value)), state: 'created' };
  }

  private update(
    op: Extract<ResourceOp, { kind: 'update' }>,
    result: CallResult,
    ok: boolean,
  ): { result: CallResult; state?: WorldEffect } {
    const entry = this.collections.get(op.collection.key)?.get(op.id);
    if (entry === DELETED) return missing(op.collection, op.id);
    if (!ok) return { result };
    const path = recordPath(result.body, op.collection.noun, op.idField);
    const answered = path ? at(result.body, path) : undefined;
    const base = entry?.value ?? (isRecord(answered) ? structuredClone(answered) : {});
    const field = entry?.idField ?? idField(base, op.collection.noun, op.idField) ?? op.idField;
    const value: Json = { ...base, ...structuredClone(op.body), [field]: base[field] ?? op.idValue };
    if (!this.remember(op.collection, op.id, stored(value, field))) return { result };
    if (!path || !isRecord(answered)) return { result, state: 'updated' };
    return { result: changed(result, path, answered, structuredClone(value)), state: 'updated' };
  }

  private list(
    op: Extract<ResourceOp, { kind: 'list' }>,
    result: CallResult,
  ): { result: CallResult; state?: WorldEffect } {
    const entries = this.collections.get(op.collection.key);
    // Nothing remembered: the answer stands, its body unread (a cached one stays its stored text).
    if (!entries || entries.size === 0) return { result };
    const path = listPath(result.body, op.collection.noun);
    if (!path) return { result };
    const preferred = this.itemParam(op.collection.api, op.collection.template);
    const listed = at(result.body, path) as unknown[];
    const seen = new Set<string>();
    const items: unknown[] = [];
    // The episode's own resources, kept when the page is cut to its size before the simulator's.
    const remembered = new Set<unknown>();
    for (const item of listed) {
      const field = isRecord(item) ? idField(item, op.collection.noun, preferred) : undefined;
      const entry = field === undefined ? undefined : entries.get(String((item as Json)[field]));
      if (entry === DELETED) continue;
      if (entry) seen.add(String((item as Json)[field!]));
      items.push(entry ? structuredClone(entry.value) : item);
      if (entry) remembered.add(items[items.length - 1]);
    }
    for (const [id, entry] of entries) {
      if (entry !== DELETED && !seen.has(id) && matches(entry.value, op.filters)) {
        items.push(structuredClone(entry.value));
        remembered.add(items[items.length - 1]);
      }
    }
    return {
      result: changed(result, path, listed, withinPage(items, remembered, pageSize(op.filters))),
      state: 'listed',
    };
  }
}

/**
 * A page no longer than the size the request asked for (`limit=3` lists at most 3): the simulator's own items go
 * first, from the end, so the episode's resources stay listed; order is kept.
 */
function withinPage(items: unknown[], remembered: ReadonlySet<unknown>, size: number | undefined): unknown[] {
  if (size === undefined || items.length <= size) return items;
  let surplus = items.length - size;
  const kept: unknown[] = [];
  for (let i = items.length - 1; i >= 0; i--) {
    if (surplus > 0 && !remembered.has(items[i])) surplus--;
    else kept.push(items[i]);
  }
  kept.reverse();
  return kept.length > size ? kept.slice(0, size) : kept;
}

function stored(value: Json, idField: string): Stored {
  return { value, idField, bytes: Buffer.byteLength(JSON.stringify(value)) };
}

/** Bytes an entry counts against the budget: its id and, unless it marks a deletion, its resource's JSON. */
function entrySize(id: string, entry: Entry): number {
  return Buffer.byteLength(id) + (entry === DELETED ? 0 : entry.bytes);
}

/** The result with the value at `path` replaced; its source becomes `state` when that changed anything. */
function changed(result: CallResult, path: [] | [string], before: unknown, after: unknown): CallResult {
  if (JSON.stringify(before) === JSON.stringify(after)) return result;
  return { ...result, body: replaceAt(result.body, path, after), source: 'state' };
}

function missing(collection: Collection, id: string): { result: CallResult; state: WorldEffect } {
  const where = collection.key.slice(collection.api.length + 1) || '/';
  const body = problem(404, undefined, `${JSON.stringify(id)} in ${where} was deleted earlier in this episode`, { id });
  return {
    result: { status: 404, body, source: 'state', headers: { 'content-type': PROBLEM_CONTENT_TYPE } },
    state: 'missing',
  };
}

/** Query arguments act as equality filters on members of the same name; others (limit, page…) are ignored. */
function matches(value: Json, filters: Record<string, unknown>): boolean {
  for (const [name, wanted] of Object.entries(filters)) {
    if (!Object.hasOwn(value, name) || wanted === null || typeof wanted === 'object') continue;
    if (String(value[name]) !== String(wanted)) return false;
  }
  return true;
}

function freshId(entries: Map<string, Entry>, taken: string | number): string | number {
  if (typeof taken === 'number') {
    let largest = taken;
    for (const id of entries.keys()) if (Number(id) > largest) largest = Number(id);
    return Math.floor(largest) + 1;
  }
  let n = 2;
  while (entries.has(`${taken}-${n}`)) n++;
  return `${taken}-${n}`;
}
