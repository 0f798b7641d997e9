import type { LibraryStore } from '../library/store.js';
import type { JsonSchema, Tool } from '../library/tool.js';
import { idPrefix, VALUE_CLASSES, type ValueClass } from '../library/value-class.js';
import { cutExpander, type CutExpander } from '../simulator/cut-schemas.js';
import { successExample } from '../simulator/examples.js';
import { createSimulator } from '../simulator/pipeline.js';
import { modalClass, type ValuePrior } from '../simulator/prior/prior.js';
import { pathNoun } from '../simulator/synth/names.js';
import { priorEntry, priorView } from '../simulator/synth/prior-values.js';
import type { Responder } from '../simulator/types.js';
import { compareToExample, prefixAgrees, sameMagnitude, type LeafComparison } from './compare-example.js';
import { exampleRequest } from './example-request.js';
import { proportion, type Proportion } from './interval.js';
import { declaredKeys, documentPrefixes, prefixesIn, priorPrefixes, requestText, siteOf } from './reach.js';
import { sampleIds } from './sample.js';

/** Operations the worst-case list shows, and the mismatches it shows of each. */
const WORST = 10;
const MISMATCHES_SHOWN = 3;

export type Side = 'held-out' | 'kept';

export interface ExamplesOptions {
  store: LibraryStore;
  /** The Response layer under test; the examples responder, if given, is skipped (`dynamic`). */
  responders: readonly Responder[];
  /** The held-out APIs of the split. */
  heldOut: ReadonlySet<string>;
  /** Which side of the split is measured: the held-out APIs (the figures to report) or the others (to tune on). */
  side: Side;
  /** What `heldOut` holds: API ids (default), or operations' tool ids (their APIs' other examples read by the prior). */
  by?: 'apis' | 'operations';
  /** Operations measured. */
  sample: number;
  seed: number;
  /** The value prior the answers draw on, if any: the reach figures read it as the synthesizer does. */
  prior?: ValuePrior | undefined;
  /** Cut placeholders expanded from the API's document, its examples withheld (withheldExpander). */
  expand: CutExpander;
  onProgress?: (done: number, total: number) => void;
}

export interface ClassFigures {
  /** Leaves of the example of this class. */
  leaves: number;
  /** Share of them the answer has a value for. */
  present: Proportion;
  /** Share of those present answered with a value of the same class. */
  agreement: Proportion;
  /** The classes the answer gave where the example's was this one, most frequent first (at most three). */
  answered_as: { class: string; leaves: number }[];
}

/**
 * What the held-out rule leaves within reach (reach.ts), beside which the answer's figures read: keys the operation's
 * response schema declares at their place, vendor ids whose prefix the request, the API's document outside its
 * examples or the prior holds, and the class the prior most often saw for a field, where it has the field.
 */
export interface ReachFigures {
  keys_declared: Proportion;
  id_prefix_findable: Proportion;
  prior_mode: {
    /** Share of the leaves present in the answer that the prior has an entry for. */
    covered: Proportion;
    /** Of those, the share whose class is the prior's most frequent one there. */
    agreement: Proportion;
    /** The answers' class agreement on the same leaves. */
    answers: Proportion;
  };
}

export interface WorstCase {
  tool: string;
  api: string;
  leaves: number;
  keys: number;
  key_coverage: number;
  class_agreement: number | null;
  mismatches: { path: string; expected: unknown; got: unknown; expected_class: string; got_class: string }[];
}

export interface ExamplesReport {
  seed: number;
  side: Side;
  responders: string[];
  /** What the split holds out, how many APIs the library has, and how many of them (or of its operations) it holds. */
  split: { by: 'apis' | 'operations'; apis: number; held_out: number };
  sample: {
    /** Operations of that side with a documented 2xx example, before sampling. */
    candidates: number;
    operations: number;
    apis: number;
    leaves: number;
    keys: number;
    /** Requests carrying at least one documented value, and the documented values they carry. */
    documented_requests: number;
    documented_values: number;
    /** Sampled operations without a valid request, or not answered 2xx: not measured. */
    no_valid_request: number;
    unanswered: number;
  };
  /** Share of the example's leaves the answer has a value for whose class is the example's value's. */
  value_class: Proportion;
  /** The same counting a leaf the answer lacks as a disagreement. */
  value_class_all_leaves: Proportion;
  /** Share of the example's keys (every object, recursively) present in the answer at the same place. */
  key_coverage: Proportion;
  /** Vendor ids (`cus_…`) answered with the same prefix. */
  id_prefix: Proportion;
  /** Numbers answered with a number at most ten times off, of the same sign. */
  magnitude: Proportion;
  /** Numbers answered whole where the example's is whole, fractional where it is fractional. */
  integer_float: Proportion;
  reach: ReachFigures;
  /** Means over operations (each counts once, however large its example): leaves of one answer are not independent. */
  per_operation: { value_class: number | null; key_coverage: number | null };
  by_class: Record<ValueClass, ClassFigures>;
  worst: WorstCase[];
}

interface ClassTally {
  leaves: number;
  present: number;
  matched: number;
  answeredAs: Map<string, number>;
}

interface OperationFigures extends WorstCase {
  score: number;
}

/**
 * The answers compared with the vendors' documented examples (issue #49): a seeded sample of operations with a
 * documented 2xx example, on one side of an API-level split, each sent a valid request carrying the document's
 * request examples and answered through the real pipeline with `dynamic` (no cache, no examples responder) by a
 * library view whose records have their examples withheld — the tool's examples and every `examples` of its
 * response schema — so nothing of the answer is copied from what it is compared with.
 */
export async function runExamplesFidelity(options: ExamplesOptions): Promise<ExamplesReport> {
  const { store, heldOut, side, seed } = options;
  const withheld = withheldView(store);
  const simulator = createSimulator({ store: withheld, responders: options.responders, seed, errorRate: 0 });
  const apis = store.apis();
  const by = options.by ?? 'apis';
  const onSide = (row: { id: string; api_id: string }) =>
    heldOut.has(by === 'apis' ? row.api_id : row.id) === (side === 'held-out');
  const candidates = store.exampleTools().filter(onSide);
  const apiOf = new Map(candidates.map((row) => [row.id, row.api_id]));
  const order = sampleIds(
    candidates.map((row) => row.id),
    candidates.length,
    seed,
  );

  const classes = new Map<ValueClass, ClassTally>(
    VALUE_CLASSES.map((c) => [c, { leaves: 0, present: 0, matched: 0, answeredAs: new Map() }]),
  );
  const totals = { prefix: [0, 0], magnitude: [0, 0], integer: [0, 0], keys: [0, 0] };
  const reach = { declared: [0, 0], findable: [0, 0], covered: [0, 0], mode: [0, 0], answers: [0, 0] };
  const prefixesOf = new Map<string, Set<string>>();
  const counts = { documented_requests: 0, documented_values: 0, no_valid_request: 0, unanswered: 0 };
  const operations: OperationFigures[] = [];
  const measuredApis = new Set<string>();
  let document: { api: string; value: unknown } | undefined;

  for (const id of order) {
    if (operations.length === options.sample) break;
    options.onProgress?.(operations.length, options.sample);
    const tool = store.get(id)!;
    const example = successExample(tool, {}, seed);
    if (example === undefined || tool.origin.format !== 'openapi') continue;
    const api = apiOf.get(id)!;
    if (document?.api !== api) document = { api, value: store.apiDocument(api) };
    const request = exampleRequest(tool, document.value, simulator.rules, seed);
    if (!request) {
      counts.no_valid_request++;
      continue;
    }
    const result = await simulator.call(id, request.args, { controls: { dynamic: true }, errorRate: 0 });
    if (result.status < 200 || result.status >= 300) {
      counts.unanswered++;
      continue;
    }
    if (request.documented > 0) counts.documented_requests++;
    counts.documented_values += request.documented;
    measuredApis.add(api);

    const { leaves, keys } = compareToExample(example.body, result.body);
    const declared = declaredKeys(example.body, withheld.get(id)!.response_schema, (at) => options.expand(api, at));
    for (const known of declared) add(reach.declared, known);
    let documented = prefixesOf.get(api);
    if (!documented) prefixesOf.set(api, (documented = documentPrefixes(document.value)));
    const noun = tool.origin.format === 'openapi' ? (pathNoun(tool.origin.path) ?? '') : '';
    const sent = new Set<string>();
    prefixesIn(requestText(request.args), sent);
    const present = leaves.filter((leaf) => leaf.present);
    const matched = present.filter(sameClass);
    for (const leaf of leaves) {
      const tally = classes.get(leaf.expectedClass)!;
      tally.leaves++;
      if (!leaf.present) continue;
      tally.present++;
      if (sameClass(leaf)) tally.matched++;
      const got = leaf.gotClass!;
      tally.answeredAs.set(got, (tally.answeredAs.get(got) ?? 0) + 1);
      const context = { api, category: tool.category, ...siteOf(leaf.path, noun) };
      const prefix = prefixAgrees(leaf);
      if (prefix !== undefined) {
        add(totals.prefix, prefix);
        const wanted = idPrefix(leaf.expected)!;
        const learnt = options.prior ? priorPrefixes(options.prior, context) : undefined;
        add(reach.findable, sent.has(wanted) || documented.has(wanted) || !!learnt?.has(wanted));
      }
      const entry =
        options.prior && priorEntry(priorView(options.prior, api, tool.category), context.parent, context.key);
      add(reach.covered, entry !== undefined);
      if (entry) {
        add(reach.mode, modalClass(entry) === leaf.expectedClass);
        add(reach.answers, sameClass(leaf));
      }
      if (typeof leaf.expected === 'number' && typeof leaf.got === 'number') {
        add(totals.magnitude, sameMagnitude(leaf.expected, leaf.got));
        add(totals.integer, Number.isInteger(leaf.expected) === Number.isInteger(leaf.got));
      }
    }
    const keysPresent = keys.filter((k) => k.present).length;
    totals.keys[0]! += keysPresent;
    totals.keys[1]! += keys.length;
    operations.push({
      tool: id,
      api,
      leaves: leaves.length,
      keys: keys.length,
      key_coverage: keys.length === 0 ? 1 : round4(keysPresent / keys.length),
      class_agreement: present.length === 0 ? null : round4(matched.length / present.length),
      mismatches: leaves
        .filter((leaf) => !leaf.present || !sameClass(leaf))
        .slice(0, MISMATCHES_SHOWN)
        .map((leaf) => ({
          path: leaf.path,
          expected: leaf.expected,
          got: leaf.present ? leaf.got : '(absent)',
          expected_class: leaf.expectedClass,
          got_class: leaf.gotClass ?? 'absent',
        })),
      score: (matched.length + keysPresent) / Math.max(1, leaves.length + keys.length),
    });
  }
  options.onProgress?.(operations.length, options.sample);

  const sum = (pick: (t: ClassTally) => number) => [...classes.values()].reduce((n, t) => n + pick(t), 0);
  const leaves = sum((t) => t.leaves);
  const mean = (values: number[]) =>
    values.length === 0 ? null : round4(values.reduce((a, b) => a + b, 0) / values.length);
  return {
    seed,
    side,
    responders: options.responders.map((r) => r.name),
    split: {
      by,
      apis: apis.length,
      held_out: by === 'apis' ? apis.filter((a) => heldOut.has(a.api_id)).length : heldOut.size,
    },
    sample: {
      candidates: candidates.length,
      operations: operations.length,
      apis: measuredApis.size,
      leaves,
      keys: totals.keys[1]!,
      ...counts,
    },
    value_class: proportion(
      sum((t) => t.matched),
      sum((t) => t.present),
    ),
    value_class_all_leaves: proportion(
      sum((t) => t.matched),
      leaves,
    ),
    key_coverage: proportion(totals.keys[0]!, totals.keys[1]!),
    id_prefix: proportion(totals.prefix[0]!, totals.prefix[1]!),
    magnitude: proportion(totals.magnitude[0]!, totals.magnitude[1]!),
    integer_float: proportion(totals.integer[0]!, totals.integer[1]!),
    reach: {
      keys_declared: proportion(reach.declared[0]!, reach.declared[1]!),
      id_prefix_findable: proportion(reach.findable[0]!, reach.findable[1]!),
      prior_mode: {
        covered: proportion(reach.covered[0]!, reach.covered[1]!),
        agreement: proportion(reach.mode[0]!, reach.mode[1]!),
        answers: proportion(reach.answers[0]!, reach.answers[1]!),
      },
    },
    per_operation: {
      value_class: mean(operations.flatMap((o) => (o.class_agreement === null ? [] : [o.class_agreement]))),
      key_coverage: mean(operations.filter((o) => o.keys > 0).map((o) => o.key_coverage)),
    },
    by_class: Object.fromEntries(
      VALUE_CLASSES.map((c) => {
        const t = classes.get(c)!;
        const answeredAs = [...t.answeredAs]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, 3)
          .map(([name, n]) => ({ class: name, leaves: n }));
        return [
          c,
          {
            leaves: t.leaves,
            present: proportion(t.present, t.leaves),
            agreement: proportion(t.matched, t.present),
            answered_as: answeredAs,
          },
        ];
      }),
    ) as Record<ValueClass, ClassFigures>,
    worst: operations
      .filter((o) => o.leaves + o.keys >= 3)
      .sort((a, b) => a.score - b.score || (a.tool < b.tool ? -1 : 1))
      .slice(0, WORST)
      .map(({ score: _score, ...rest }) => rest),
  };
}

const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
const sameClass = (leaf: LeafComparison) => leaf.present && leaf.gotClass === leaf.expectedClass;

function add(pair: number[], hit: boolean): void {
  if (hit) pair[0]!++;
  pair[1]!++;
}

/**
 * The library as the answering pipeline sees it here: each record without its examples, and its response schema
 * without the `examples` its fields document (the converted schema keeps small ones; the synthesizer repeats them).
 */
function withheldView(store: LibraryStore): { get(id: string): Tool | undefined; ids(): readonly string[] } {
  const seen = new Map<string, Tool>();
  return {
    ids: () => store.ids(),
    get(id) {
      const hit = seen.get(id);
      if (hit) return hit;
      const tool = store.get(id);
      if (!tool) return undefined;
      const stripped: Tool = {
        ...tool,
        examples: [],
        ...(tool.response_schema === undefined ? {} : { response_schema: withoutExamples(tool.response_schema) }),
      };
      seen.set(id, stripped);
      return stripped;
    },
  };
}

/**
 * The cut expander of the answering pipeline (simulator/cut-schemas.ts) over the APIs' documents, each expansion
 * without its `examples`: a cut below the response schema would otherwise bring back what the view withholds.
 */
export function withheldExpander(documentOf: (apiId: string) => unknown): CutExpander {
  const expand = cutExpander(documentOf);
  const stripped = new WeakMap<object, JsonSchema>();
  return (apiId, pointer) => {
    const schema = expand(apiId, pointer);
    if (schema === undefined || typeof schema !== 'object') return schema;
    let out = stripped.get(schema);
    if (!out) stripped.set(schema, (out = withoutExamples(schema)));
    return out;
  };
}

/** A copy of a schema without any `examples` keyword (an array: a property called `examples` is an object). */
export function withoutExamples(schema: JsonSchema): JsonSchema {
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (node === null || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node))
      if (!(key === 'examples' && Array.isArray(value))) out[key] = strip(value);
    return out;
  };
  return strip(schema) as JsonSchema;
}
