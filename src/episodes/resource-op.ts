import type { ParamBinding, Tool } from '../library/tool.js';
import { segmentKey, singular } from '../simulator/synth/names.js';
import type { Arguments } from '../simulator/types.js';
import { isRecord } from './resource-body.js';

/** One collection instance of one API: `petstore.test` + `/pets`, or `github` + `/repos/octo/hello/issues`. */
export interface Collection {
  /** api_id and the collection path with its parent parameters filled in: the world-state key. */
  key: string;
  api: string;
  /** The collection's path template with parameter names erased (`/repos/{}/{}/issues`): matches across operations. */
  template: string;
  /** The collection's last literal segment, singular and as a name key (`issue`): names id fields (`issue_id`). */
  noun: string;
}

export type ResourceOp =
  | { kind: 'create'; collection: Collection; body: Record<string, unknown> }
  | { kind: 'read' | 'delete'; collection: Collection; id: string; idField: string }
  | {
      kind: 'update';
      collection: Collection;
      id: string;
      idField: string;
      idValue: unknown;
      body: Record<string, unknown>;
    }
  | { kind: 'list'; collection: Collection; filters: Record<string, unknown> };

const PARAM = /\{([^}]+)\}/g;
const NO_NAMES: ReadonlySet<string> = new Set();
const isPrimitive = (value: unknown): value is string | number | boolean =>
  ['string', 'number', 'boolean'].includes(typeof value);

/**
 * What a call does to the world, read from the tool's REST shape (`origin` method + path template, `bindings`):
 * a path whose last segment is a parameter names an item of the collection before it; any other path is a
 * collection. POST on a collection creates; GET/PUT/PATCH/POST/DELETE on an item reads, updates, deletes; GET on a
 * collection lists. Anything else — non-OpenAPI tools, PUT/DELETE on whole collections, HEAD/OPTIONS, a path
 * parameter missing from the arguments — is no resource operation: the call stays stateless.
 */
export function resourceOp(tool: Tool, args: Arguments): ResourceOp | undefined {
  const shape = shapeOf(tool);
  if (!shape || tool.origin.format !== 'openapi') return undefined;
  const fields = wireFields(tool, args);
  const collection = collectionOf(tool.origin.api_id, shape, fields.path);
  if (!collection) return undefined;
  const { method, itemParam } = shape;
  if (itemParam === undefined) {
    if (method === 'post') return { kind: 'create', collection, body: fields.body };
    if (method === 'get') return { kind: 'list', collection, filters: fields.query };
    return undefined;
  }
  const idValue = fields.path[itemParam];
  if (!isPrimitive(idValue)) return undefined;
  const id = String(idValue);
  switch (method) {
    case 'get':
      return { kind: 'read', collection, id, idField: itemParam };
    case 'delete':
      return { kind: 'delete', collection, id, idField: itemParam };
    case 'put':
    case 'patch':
    case 'post':
      return { kind: 'update', collection, id, idField: itemParam, idValue, body: fields.body };
    default:
      return undefined;
  }
}

/**
 * What a tool's calls do to the world whatever their arguments (`resourceOp` with every path parameter given):
 * what task synthesis picks write tools by.
 */
export function resourceKind(tool: Tool): ResourceOp['kind'] | undefined {
  const shape = shapeOf(tool);
  if (!shape) return undefined;
  if (shape.itemParam === undefined)
    return shape.method === 'post' ? 'create' : shape.method === 'get' ? 'list' : undefined;
  const kinds: Record<string, ResourceOp['kind']> = {
    get: 'read',
    delete: 'delete',
    put: 'update',
    patch: 'update',
    post: 'update',
  };
  return kinds[shape.method];
}

/**
 * What a tool's REST shape says once, whatever the arguments: read per call, it was most of a cached step's world-state
 * cost.
 */
interface RouteShape {
  method: string;
  /** The path parameter naming an item, when the path ends in one. */
  itemParam?: string;
  /** The collection's path template, parameters named. */
  path: string;
  template: string;
  noun: string;
  /** Names in the path template. */
  inPath: ReadonlySet<string>;
}

/** Shapes of the records the library holds (its LRU hands out the same record while it is cached). */
const shapes = new WeakMap<Tool, RouteShape | null>();

function shapeOf(tool: Tool): RouteShape | undefined {
  let shape = shapes.get(tool);
  if (shape === undefined) {
    if (tool.origin.format !== 'openapi') shape = null;
    else {
      const segments = tool.origin.path.replace(/\/+$/, '').split('/');
      const itemParam = /^\{([^}]+)\}$/.exec(segments[segments.length - 1] ?? '')?.[1];
      const path = itemParam === undefined ? segments.join('/') : segments.slice(0, -1).join('/');
      const literal = path.split('/').filter((segment) => segment !== '' && !segment.includes('{'));
      shape = {
        method: tool.origin.method.toLowerCase(),
        ...(itemParam === undefined ? {} : { itemParam }),
        path,
        template: path.replace(PARAM, '{}'),
        noun: singular(segmentKey(literal[literal.length - 1] ?? '')),
        inPath: new Set([...tool.origin.path.matchAll(PARAM)].map((m) => m[1]!)),
      };
    }
    shapes.set(tool, shape);
  }
  return shape ?? undefined;
}

function collectionOf(api: string, shape: RouteShape, pathValues: Record<string, unknown>): Collection | undefined {
  let missing = false;
  const concrete = shape.path.replace(PARAM, (_, name: string) => {
    const value = pathValues[name];
    if (!isPrimitive(value)) missing = true;
    return encodeURIComponent(String(value));
  });
  if (missing) return undefined;
  return { key: collectionKey(api, concrete), api, template: shape.template, noun: shape.noun };
}

/** The world-state key of a collection: its API and its path with the parent parameters filled in. */
export function collectionKey(api: string, path: string): string {
  return `${api}\u0000${path}`;
}

interface WireFields {
  /** Path parameters by wire name. */
  path: Record<string, unknown>;
  /** Body members by wire name; a whole-body argument that is an object is spread. */
  body: Record<string, unknown>;
  query: Record<string, unknown>;
}

/**
 * The arguments by where they travel on the wire, under their wire names. Without bindings a name in the path template
 * is a path parameter and the rest body members.
 */
export function wireFields(tool: Tool, args: Arguments): WireFields {
  const fields: WireFields = { path: {}, body: {}, query: {} };
  const inPath = shapeOf(tool)?.inPath ?? NO_NAMES;
  for (const [property, value] of Object.entries(args)) {
    const binding: ParamBinding = tool.bindings?.[property] ?? {
      in: inPath.has(property) ? 'path' : 'body',
      name: property,
    };
    if (binding.in === 'path') fields.path[binding.name] = value;
    else if (binding.in === 'query') fields.query[binding.name] = value;
    else if (binding.in === 'body') {
      if (binding.name !== '') fields.body[binding.name] = value;
      else if (isRecord(value)) Object.assign(fields.body, value);
    }
  }
  return fields;
}
