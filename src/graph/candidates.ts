/**
 * Candidate pairs without comparing every tool with every other: tools meet only through an index entry they
 * share — a key (`pet.id`) within one API or one provider, or a REST path within one API. Work grows with the
 * size of each entry, not with the square of the library.
 */
import type { Input, Output, ToolFeatures } from './features.js';
import { isUniqueAttr } from './names.js';
import { typesFit } from './schema-walk.js';

export interface KeyMatch {
  /** The producer: its response carries `output`. */
  a: ToolFeatures;
  /** The consumer: it takes `input`. */
  b: ToolFeatures;
  output: Output;
  input: Input;
  /** The key's resource is a context most of the API works under (see contextNouns). */
  contextual: boolean;
}

export interface MatchLimits {
  /**
   * A key more tools need than this within one scope is context the caller holds (an account, a project, a
   * subscription), not a value one call hands the next; its entry is skipped.
   */
  maxConsumers: number;
  /** A key more tools return than this is too common to say which call fed which. */
  maxProducers: number;
}

export const DEFAULT_LIMITS: MatchLimits = { maxConsumers: 150, maxProducers: 60 };

export interface KeyMatches {
  matches: KeyMatch[];
  /** Index entries skipped for being too common: `scope key (producers × consumers)`. */
  skipped: string[];
}

type Scope = 'api' | 'provider';

/** Producer–consumer pairs sharing a key, within one API (`api`) or across the APIs of one provider (`provider`). */
export function keyMatches(
  features: readonly ToolFeatures[],
  scope: Scope,
  limits: MatchLimits = DEFAULT_LIMITS,
): KeyMatches {
  const scopeOf = scope === 'api' ? (f: ToolFeatures) => f.group : (f: ToolFeatures) => f.provider;
  const multiGroup = scope === 'provider' ? providersWithSeveralApis(features) : undefined;
  const { addressed, named } = nounsByScope(features, scopeOf);
  const producers = new Map<string, { tool: ToolFeatures; output: Output }[]>();
  const consumers = new Map<string, { tool: ToolFeatures; input: Input }[]>();
  for (const tool of features) {
    if (multiGroup && !multiGroup.has(tool.provider)) continue;
    const at = scopeOf(tool);
    for (const output of tool.outputs) {
      if (tool.deletes || (scope === 'provider' && !output.owned)) continue;
      push(producers, `${at}\u0000${output.key}`, { tool, output });
    }
    for (const input of tool.inputs) {
      // `display_name`, `created_by_id`: a key counts only when its noun is a resource the API has paths for.
      const noun = input.key.slice(0, input.key.lastIndexOf('.'));
      if (!(input.bare ? addressed : named).get(at)?.has(noun)) continue;
      push(consumers, `${at}\u0000${input.key}`, { tool, input });
    }
  }
  const contexts = contextNouns(features);
  const matches: KeyMatch[] = [];
  const skipped: string[] = [];
  for (const [entry, takers] of consumers) {
    const givers = producers.get(entry);
    if (!givers) continue;
    if (takers.length > limits.maxConsumers || givers.length > limits.maxProducers) {
      skipped.push(`${entry.replace('\u0000', ' ')} (${givers.length} × ${takers.length})`);
      continue;
    }
    for (const { tool: b, input } of takers) {
      for (const { tool: a, output } of givers) {
        if (a.id === b.id || (scope === 'provider' && a.group === b.group)) continue;
        if (!typesFit(output, input) || !ownersFit(output, input, scope)) continue;
        const contextual = contexts.get(b.group)?.has(input.key.slice(0, input.key.lastIndexOf('.'))) ?? false;
        matches.push({ a, b, output, input, contextual });
      }
    }
  }
  return { matches, skipped };
}

/**
 * Registrants of a webinar are not registrants of a training: when both sides say which resource owns the
 * collection, the owners must agree. Across APIs only a tool's own resource travels, under the same owner,
 * by an attribute that identifies it alone (an id, not a name two services may both use).
 */
function ownersFit(output: Output, input: Input, scope: Scope): boolean {
  if (scope === 'provider')
    return (
      output.owned && output.owner === input.owner && isUniqueAttr(input.key.slice(input.key.lastIndexOf('.') + 1))
    );
  const a = output.owner;
  const b = input.owner;
  // A resource owner and a static namespace ('/mysql') are different kinds of context: they do not exclude each other.
  return a === '' || b === '' || a === b || a.startsWith('/') !== b.startsWith('/');
}

/**
 * Per API, the resources that lead the paths of a good share of its tools (`/orgs/{org_id}/…`, `/sites/{site_id}/…`):
 * the account, organization or site a caller works in. A call that merely mentions one (a WLAN's `msp_id`) is no
 * source of it; the tools that list or create them are.
 */
function contextNouns(features: readonly ToolFeatures[]): Map<string, Set<string>> {
  const leading = new Map<string, Map<string, number>>();
  const sizes = new Map<string, number>();
  for (const f of features) {
    sizes.set(f.group, (sizes.get(f.group) ?? 0) + 1);
    const first = f.addressed[0];
    if (first === undefined) continue;
    let counts = leading.get(f.group);
    if (!counts) leading.set(f.group, (counts = new Map()));
    counts.set(first, (counts.get(first) ?? 0) + 1);
  }
  const out = new Map<string, Set<string>>();
  for (const [group, counts] of leading) {
    const floor = Math.max(CONTEXT_MIN_TOOLS, CONTEXT_SHARE * sizes.get(group)!);
    const nouns = [...counts].filter(([, n]) => n >= floor).map(([noun]) => noun);
    if (nouns.length > 0) out.set(group, new Set(nouns));
  }
  return out;
}

const CONTEXT_MIN_TOOLS = 5;
const CONTEXT_SHARE = 0.1;

function providersWithSeveralApis(features: readonly ToolFeatures[]): Set<string> {
  const groups = new Map<string, Set<string>>();
  for (const f of features) addTo(groups, f.provider, f.group);
  return new Set([...groups].filter(([, g]) => g.size > 1).map(([provider]) => provider));
}

/**
 * Per scope, the nouns it addresses by a path parameter (a bare `customer` parameter means `customer.id` only
 * there) and every resource noun it names in paths or tool names.
 */
function nounsByScope(
  features: readonly ToolFeatures[],
  scopeOf: (f: ToolFeatures) => string,
): { addressed: Map<string, Set<string>>; named: Map<string, Set<string>> } {
  const addressed = new Map<string, Set<string>>();
  const named = new Map<string, Set<string>>();
  for (const f of features) {
    for (const noun of f.addressed) addTo(addressed, scopeOf(f), noun);
    for (const noun of [...f.pathNouns, ...f.nouns]) addTo(named, scopeOf(f), noun);
  }
  return { addressed, named };
}

export interface PathIndex {
  /** `group \0 shape` → the tools on that exact path shape. */
  byShape: Map<string, ToolFeatures[]>;
  /**
   * `group \0 prefix` → the tools whose path continues `prefix/{}…`: members (and their sub-resources) of that
   * collection.
   */
  byCollection: Map<string, ToolFeatures[]>;
}

export function pathIndex(features: readonly ToolFeatures[]): PathIndex {
  const byShape = new Map<string, ToolFeatures[]>();
  const byCollection = new Map<string, ToolFeatures[]>();
  for (const f of features) {
    if (f.shape === null) continue;
    push(byShape, `${f.group}\u0000${f.shape}`, f);
    let at = f.shape.indexOf('/{}');
    while (at > 0) {
      push(byCollection, `${f.group}\u0000${f.shape.slice(0, at)}`, f);
      at = f.shape.indexOf('/{}', at + 1);
    }
  }
  return { byShape, byCollection };
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}
