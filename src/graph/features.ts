/**
 * What the graph rules need to know about one tool, read once from its record: the API it belongs to, its REST
 * shape, the keys it consumes (parameters) and the keys it produces (response fields). A key names a resource
 * attribute (`pet.id`), so `petId`, `pet_id` and the `id` inside a pet object meet at one index entry.
 */
import type { ParamLocation, Tool } from '../library/tool.js';
import { idAttr, isAmbientWord, isVagueNoun, isWrapper, nounOf, singular, titleNoun, words } from './names.js';
import {
  collectionOf,
  isCreate,
  nameNoun,
  parsePath,
  pathNoun,
  pathOwner,
  pathShape,
  segmentNoun,
  type Segment,
} from './paths.js';
import {
  asNode,
  deref,
  isObjectLike,
  properties,
  requiredList,
  scalarType,
  schemaName,
  variants,
  type ScalarType,
  type SchemaNode,
} from './schema-walk.js';

export interface Input extends ScalarType {
  key: string;
  param: string;
  required: boolean;
  location: ParamLocation | 'unknown';
  /**
   * For a path parameter, the resource owning the collection it indexes (`webinar` in /webinars/{w}/registrants/{r});
   * else ''.
   */
  owner: string;
  /**
   * A bare noun outside the path (`customer` in a request body, Stripe style). It means `customer.id` only when
   * the API addresses `customer` by id somewhere; the index checks that.
   */
  bare: boolean;
}

export interface Output extends ScalarType {
  key: string;
  /** Where in the response the field sits: `data[].company_id`. */
  field: string;
  /**
   * The field belongs to the tool's own resource (a pet's `id` from GET /pets), not a reference to another (an order's
   * `petId`).
   */
  owned: boolean;
  /**
   * Named objects between the response root and the field: 0 for `petId`, 1 for `owner.id`, 2 for
   * `hits[].entity.tags[].id`.
   */
  hops: number;
  /**
   * The resource owning the collection the field's resource belongs to (see Input.owner): for an owned field the
   * owner of the tool's own collection, for an id in a list nested in the response (a post's `extensions[].id`)
   * the tool's resource; else ''.
   */
  owner: string;
}

export interface ToolFeatures {
  id: string;
  /** The API the tool belongs to (an OpenAPI document, a ToolBench tool…). */
  group: string;
  provider: string;
  method: string | null;
  path: string | null;
  /** `path` with parameters blanked. */
  shape: string | null;
  /** The tool's own resource nouns, most specific first. */
  nouns: string[];
  creates: boolean;
  /** Only reads (GET, or a name like `get_weather`). */
  reads: boolean;
  /**
   * Deletes what it addresses (DELETE, `/schedules/deleteRange`): what it returns no longer exists, so it feeds
   * nothing.
   */
  deletes: boolean;
  inputs: Input[];
  outputs: Output[];
  /** Nouns this tool's path addresses by a parameter (`/customers/{customer}` → `customer`). */
  addressed: string[];
  /** Every resource noun the path names (`/users/{id}/repos` → `user`, `repo`). */
  pathNouns: string[];
}

const MAX_OUTPUTS = 400;
const MAX_DEPTH = 8;
/**
 * Schema nodes visited per response: deep, wide schemas (cloud provider specs) stop here, well past any field that
 * matters.
 */
const MAX_VISITS = 4000;

/** `provider` groups APIs of one vendor (OpenAPI); without one, the tool's API is its own provider. */
export function toolFeatures(tool: Tool, provider?: string): ToolFeatures {
  const rest = tool.origin.format === 'openapi' ? tool.origin : undefined;
  const segments = rest ? parsePath(rest.path) : [];
  const method = rest ? rest.method.toLowerCase() : null;
  const nouns = ownNouns(tool, segments);
  const firstWord = words(tool.name)[0] ?? '';
  const group = groupOf(tool);
  const features: ToolFeatures = {
    id: tool.id,
    group,
    provider: provider ?? group,
    method,
    path: rest ? rest.path : null,
    shape: rest ? pathShape(rest.path) : null,
    nouns,
    creates: rest ? isCreate(method, segments) : /^(create|add|new|register|insert|post)$/.test(firstWord),
    reads: rest
      ? method === 'get'
      : /^(get|list|search|find|fetch|retrieve|read|lookup|query|show|describe)$/.test(firstWord),
    deletes:
      method === 'delete' ||
      /^(delete|remove|destroy|purge|del)$/.test(words(lastStatic(segments) ?? tool.name)[0] ?? ''),
    inputs: [],
    outputs: [],
    addressed: addressedNouns(segments),
    pathNouns: [...new Set(segments.map(segmentNoun).filter((n): n is string => n !== undefined))],
  };
  features.inputs = readInputs(tool, segments, features);
  // A tool does not produce what it is given: GET /pets/{petId} and PATCH /groups/{groupId} echo the id they
  // were called with, and a field the request carries (however deep) comes back as it went in.
  const taken = new Set(features.inputs.map((i) => i.key));
  for (const field of readOutputs(tool.parameters, nouns)) taken.add(field.key);
  const owner = pathOwner(segments);
  for (const output of readOutputs(tool.response_schema, nouns)) {
    const noun = output.key.slice(0, output.key.lastIndexOf('.'));
    if (taken.has(output.key) || (output.owned && features.addressed.includes(noun))) continue;
    taken.add(output.key);
    features.outputs.push(output.owned ? { ...output, owner } : output);
  }
  return features;
}

/** The API a tool belongs to, for any record format. */
export function groupOf(tool: Tool): string {
  const origin = tool.origin;
  switch (origin.format) {
    case 'openapi':
      return origin.api_id;
    case 'toolbench':
      return `toolbench:${origin.category}/${origin.tool_name}`;
    case 'mcp':
    case 'openai': {
      // Namespaced names (`github.create_issue`, `server/tool`) carry their server; a bare name is its own group.
      const cut = origin.name.search(/[./:]/);
      return `${origin.format}:${cut > 0 ? origin.name.slice(0, cut) : origin.name}`;
    }
  }
}

function lastStatic(segments: Segment[]): string | undefined {
  for (let i = segments.length - 1; i >= 0; i--) if (!segments[i]!.param) return segments[i]!.text;
  return undefined;
}

function ownNouns(tool: Tool, segments: Segment[]): string[] {
  const nouns: string[] = [];
  const add = (noun: string | undefined) => {
    if (noun && !isVagueNoun(noun) && !nouns.includes(noun)) nouns.push(noun);
  };
  add(pathNoun(segments));
  if (nouns.length === 0) {
    add(nameNoun(tool.origin.format === 'openapi' ? (tool.origin.operation_id ?? tool.name) : tool.name));
  }
  const root = deref(tool.response_schema, tool.response_schema);
  const body = root && (deref(root.items, tool.response_schema) ?? root);
  const title = body && schemaName(body);
  if (title) add(titleNoun(title));
  return nouns;
}

function addressedNouns(segments: Segment[]): string[] {
  const out: string[] = [];
  for (const segment of segments) {
    if (!segment.param) continue;
    const noun = collectionOf(segments, segment.text)?.noun;
    if (noun && !out.includes(noun)) out.push(noun);
  }
  return out;
}

function readInputs(tool: Tool, segments: Segment[], features: ToolFeatures): Input[] {
  const root = tool.parameters;
  const params: { param: string; schema: unknown; location: Input['location']; required: boolean }[] = [];
  const required = new Set(requiredList(root as SchemaNode));
  for (const [param, schema] of properties(root as SchemaNode)) {
    const binding = tool.bindings?.[param];
    const location = binding?.in ?? (tool.origin.format === 'openapi' ? 'body' : 'unknown');
    if (location === 'header' || location === 'cookie') continue;
    const whole = binding?.in === 'body' && binding.name === '' ? deref(schema, root) : undefined;
    if (whole && properties(whole).length > 0) {
      // A body that is not spread into parameters (a form, a oneOf): its fields are the inputs.
      const inner = new Set(requiredList(whole));
      for (const [field, sub] of properties(whole))
        params.push({ param: field, schema: sub, location: 'body', required: inner.has(field) });
    } else {
      params.push({ param, schema, location, required: required.has(param) || location === 'path' });
    }
  }
  const inputs: Input[] = [];
  for (const { param, schema, location, required: isRequired } of params) {
    for (const input of inputsOf(param, schema, root, segments, location, isRequired, features)) {
      // A create names the new member itself: POST /pets with `name` does not need an existing pet's name.
      if (features.creates && features.nouns[0] !== undefined && input.key.startsWith(`${features.nouns[0]}.`))
        continue;
      inputs.push(input);
    }
  }
  return inputs;
}

function inputsOf(
  param: string,
  schema: unknown,
  root: unknown,
  segments: Segment[],
  location: Input['location'],
  required: boolean,
  features: ToolFeatures,
): Input[] {
  const make = (key: string, type: ScalarType, owner = '', bare = false): Input => ({
    ...type,
    key,
    param,
    required,
    location,
    owner,
    bare,
  });
  const ws = words(param);
  const type = scalarType(schema, root);
  if (!type) return objectReference(param, ws, schema, root, location, required);
  const last = ws[ws.length - 1];
  if (last === undefined) return [];
  const attr = idAttr(last);
  const collection = location === 'path' ? collectionOf(segments, param) : undefined;
  if (ws.length >= 2) {
    const noun = nounOf(ws.slice(0, -1));
    if (!attr || isVagueNoun(noun)) return [];
    return [make(`${noun}.${attr}`, type, collection?.noun === noun ? collection.owner : '')];
  }
  if (location === 'path') {
    if (!collection) return [];
    if (attr) return [make(`${collection.noun}.${attr}`, type, collection.owner)];
    if (collection.noun.endsWith(singular(last))) return [make(`${collection.noun}.id`, type, collection.owner)];
    return isAmbientWord(last) ? [] : [make(`${collection.noun}.${last}`, type, collection.owner)];
  }
  if (attr === 'id' || attr === 'uuid' || attr === 'guid') {
    const own = features.nouns[0];
    return own ? [make(`${own}.${attr}`, type)] : [];
  }
  if (!attr && !isAmbientWord(last) && (type.type === 'string' || type.type === 'integer'))
    return [make(`${singular(last)}.id`, type, '', true)];
  return [];
}

/** An object parameter that points at a resource by its id (`category: {id}` → `category.id`). */
function objectReference(
  param: string,
  ws: string[],
  schema: unknown,
  root: unknown,
  location: Input['location'],
  required: boolean,
): Input[] {
  const node = deref(schema, root);
  if (!node) return [];
  const noun = nounOf(ws);
  if (isVagueNoun(noun) || isWrapper(param, true)) return [];
  const inner = new Set(requiredList(node));
  const props = properties(node);
  for (const [prop, sub] of props) {
    const attr = idAttr(prop.toLowerCase());
    if (attr !== 'id' && attr !== 'uuid') continue;
    const type = scalarType(sub, root);
    if (!type) continue;
    return [
      {
        ...type,
        key: `${noun}.${attr}`,
        param: `${param}.${prop}`,
        required: required && (inner.has(prop) || props.length === 1),
        location,
        owner: '',
        bare: false,
      },
    ];
  }
  return [];
}

/** Every identifying field of a response, keyed by the resource that owns it. */
function readOutputs(schema: unknown, rootNouns: string[]): Output[] {
  const out: Output[] = [];
  const seen = new Set<unknown>();
  let visits = 0;
  // `envelope`: still in the response's wrapping (`{data: {items: [...]}}`), not yet inside a resource object.
  // `holder`: the resource whose nested list the fields are in (a post's `extensions[]`), or ''.
  const visit = (
    node: SchemaNode | undefined,
    owners: string[],
    field: string,
    depth: number,
    hops: number,
    envelope: boolean,
    holder: string,
  ): void => {
    if (!node || depth > MAX_DEPTH || out.length >= MAX_OUTPUTS || seen.has(node) || ++visits > MAX_VISITS) return;
    seen.add(node);
    for (const variant of variants(node))
      visit(deref(variant, schema), owners, field, depth + 1, hops, envelope, holder);
    const items = deref(node.items, schema);
    if (items) visit(items, owners, `${field}[]`, depth + 1, hops, false, holder);
    for (const [prop, sub] of properties(node)) {
      const path = field === '' ? prop : `${field}.${prop}`;
      const type = scalarType(sub, schema);
      if (type) {
        for (const key of outputKeys(prop, owners, hops)) {
          const owned = rootNouns.includes(key.slice(0, key.lastIndexOf('.')));
          out.push({ ...type, key, field: path, owned, hops, owner: owned || words(prop).length > 1 ? '' : holder });
        }
        continue;
      }
      const child = deref(sub, schema);
      if (!child) continue;
      if (isWrapper(prop, envelope)) visit(child, owners, path, depth + 1, hops, envelope, holder);
      else
        visit(
          child,
          nestedOwners(prop, child, schema),
          path,
          depth + 1,
          hops + 1,
          false,
          hops === 0 && child.items !== undefined ? (rootNouns[0] ?? '') : '',
        );
    }
    seen.delete(node);
  };
  const root = deref(schema, schema);
  if (root && (isObjectLike(root) || root.items !== undefined)) visit(root, rootNouns, '', 0, 0, true, '');
  return out;
}

function nestedOwners(prop: string, child: SchemaNode, root: unknown): string[] {
  const owners: string[] = [];
  const add = (noun: string) => {
    if (!isVagueNoun(noun) && !owners.includes(noun)) owners.push(noun);
  };
  add(nounOf(words(prop)));
  const items = asNode(child.items) ? deref(child.items, root) : undefined;
  const title = schemaName(items ?? child);
  const noun = title && titleNoun(title);
  if (noun) add(noun);
  return owners;
}

/**
 * The keys a response field answers to. Identifying attributes count wherever they sit; other single words
 * (`symbol`, `slug`-like values a path may take) only on the resource itself, where they describe it.
 */
function outputKeys(prop: string, owners: string[], hops: number): string[] {
  const ws = words(prop);
  const last = ws[ws.length - 1];
  if (last === undefined) return [];
  const attr = idAttr(last);
  if (ws.length >= 2) {
    const noun = nounOf(ws.slice(0, -1));
    return attr && !isVagueNoun(noun) ? [`${noun}.${attr}`] : [];
  }
  if (!attr && (hops > 0 || isAmbientWord(last))) return [];
  return owners.map((owner) => `${owner}.${attr ?? last}`);
}
