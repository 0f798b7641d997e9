import type { JsonSchema } from '../../library/tool.js';
import { canonicalJson } from '../canonical.js';
import { satisfies } from './check.js';
import { rng } from './faker.js';
import type { Flat } from './flat.js';
import { singular } from './names.js';
import { callOfOffered } from './calls.js';
import { drawnLength, requestedLength } from './lengths.js';
import { generate, generateRequired } from './schema.js';
import { exhausted, NOTHING, type Site, type Walk } from './site.js';
import { newPersona, type Persona } from './values.js';

/**
 * A list within the length bounds (a page size the request asked for, else 1–5 near the top), with unique and
 * `contains` items as asked.
 */
export function arrayFor(flat: Flat, site: Site, walk: Walk): unknown {
  const min = flat.minItems ?? 0;
  let max = flat.maxItems ?? Infinity;
  for (const part of flat.arrays) if (part.items === false) max = Math.min(max, part.prefixItems.length);
  if (min > max) return NOTHING;
  const sent = Array.isArray(site.mirror) && site.mirror.length > 0 ? site.mirror : undefined;
  let length: number;
  const requested = requestedLength(flat, site, walk);
  if (exhausted(site, walk)) length = min;
  else if (sent) length = sent.length;
  else if (requested !== undefined) length = requested;
  else if ((site.record || site.listRecord) && !site.inList && walk.echo.listSize !== undefined)
    length = walk.echo.listSize;
  else length = site.depth < 3 ? rng.int(1, 5) : rng.int(1, 2);
  length = Math.max(min, Math.min(max, length));
  drawnLength(flat, site, walk, length);
  const containing =
    flat.contains === undefined ? new Set<number>() : pickIndices(length, flat.minContains ?? 1, min, max);
  if (containing.size > length) length = containing.size;
  const seen = flat.uniqueItems ? new Set<string>() : undefined;
  const item: Site = {
    key: site.key ? singular(site.key) : '',
    parent: site.parent,
    depth: site.depth + 1,
    inList: true,
    record: site.record || site.listRecord,
    inRecord: false,
    persona: site.persona,
    taken: seen,
    mirror: undefined,
    dotted: undefined,
    listRecord: false,
    search: undefined,
    want: undefined,
    // A page's items (a list at the top or in its envelope) share one shape store, lists in its items too (`[]`
    // marks the place of an item below an outer one); deeper lists keep to the usual chances, for cost.
    shapes: site.shapes ?? (site.depth <= 1 ? new Map() : undefined),
    shapeAt: site.shapes ? `${site.shapeAt}/${site.key}[]` : '',
  };
  const out: unknown[] = [];
  for (let index = 0; index < length; index++) {
    const schemas: JsonSchema[] = [];
    for (const part of flat.arrays) {
      const schema = index < part.prefixItems.length ? part.prefixItems[index] : part.items;
      if (schema !== undefined) schemas.push(schema);
    }
    if (containing.has(index)) schemas.push(flat.contains!);
    const required = index < min || containing.has(index);
    // Listed records repeat the request's filters, nested ones too (`account_holder[account]`); a sent list, item by
    // item.
    const at =
      sent && index < sent.length
        ? { ...item, mirror: sent[index] }
        : item.record && !sent
          ? { ...item, mirror: walk.echo.tree }
          : item;
    let value = generateItem(schemas, at, walk, required);
    for (let retry = 0; seen && value !== NOTHING && seen.has(canonicalJson(value)) && retry < 8; retry++)
      value = generateItem(schemas, at, walk, required);
    if (value === NOTHING || seen?.has(canonicalJson(value))) {
      if (out.length >= min && !containing.has(index)) break;
      if (value === NOTHING) return NOTHING;
    }
    // A call of a kind the request did not offer (a `custom` call where only functions were) is left out.
    if (!required && !callOfOffered(value, walk)) continue;
    seen?.add(canonicalJson(value));
    // An item's `index` is its place in the list (OpenAI's choices and embeddings count from 0), where its schema
    // takes that number.
    if (isIndexed(value) && value.index !== out.length) {
      const drawn = value.index;
      value.index = out.length;
      if (schemas.some((schema) => satisfies(schema, value) === false)) value.index = drawn;
    }
    out.push(value);
  }
  return out;
}

const isIndexed = (value: unknown): value is { index: number } =>
  typeof value === 'object' && value !== null && Number.isInteger((value as { index?: unknown }).index);

function generateItem(schemas: JsonSchema[], site: Site, walk: Walk, required: boolean): unknown {
  let persona: Persona | undefined;
  const item = { ...site, persona: () => (persona ??= newPersona()) };
  return required ? generateRequired(schemas, item, walk) : generate(schemas, item, walk);
}

/** Which positions of a list hold the `contains` items: at least `count` of them, within the length bounds. */
function pickIndices(length: number, count: number, min: number, max: number): Set<number> {
  const size = Math.min(Math.max(length, count, min), max);
  const order = rng.shuffle(Array.from({ length: size }, (_, i) => i));
  return new Set(order.slice(0, Math.min(count, size)));
}
