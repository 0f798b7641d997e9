import type { LibraryStore } from '../library/store.js';
import { declaredStatuses, documentErrorResponses, errorSchema } from '../library/openapi/errors.js';
import { dialectOf } from '../library/openapi/schema.js';
import type { ErrorResponses, Tool } from '../library/tool.js';
import type { ModelResponder, ModelResponderStats } from '../simulator/model-responder.js';
import { createSimulator } from '../simulator/pipeline.js';
import type { CacheEntry } from '../simulator/cache-types.js';
import type { Arguments, CallControls, CallResult, Responder } from '../simulator/types.js';
import { REAL_SOURCE } from '../simulator/upstream/mode.js';
import { vendorError } from '../simulator/vendor-error.js';
import { consistencyChecks, MATCH_RULES, type MatchRule } from './consistency.js';
import { isRecord, primaryRecords, responseFields } from './fields.js';
import { summarizeLatency, type LatencySummary } from './latency.js';
import { CHECKS } from './plausibility.js';
import { validRequest } from './request.js';
import { sampleIds } from './sample.js';
import { schemaChecker } from '../simulator/upstream/schema-check.js';
import {
  addInto,
  ERROR_SOURCES,
  errorTally,
  rate,
  SUCCESS_SOURCES,
  successTally,
  summarizeError,
  summarizeSuccess,
  type ErrorSource,
  type ErrorSummary,
  type ErrorTally,
  type SuccessSource,
  type SuccessSummary,
  type SuccessTally,
} from './tally.js';

/** The default sample: issue #17 asks for at least 2,000 tools. */
export const DEFAULT_SAMPLE = 2000;
/** Examples of failures the report keeps per match rule and per check, for whoever fixes them (one per tool). */
export const EXAMPLES_PER_KIND = 5;

export interface FidelityOptions {
  store: LibraryStore;
  /** The Response layer under test, in order (as `--responder` builds it). */
  responders: readonly Responder[];
  /** Tools drawn (all of a smaller library). */
  sample?: number;
  /** Seeds the sample, the requests and the simulator. */
  seed?: number;
  /**
   * Also answers every call a model answered with this responder alone (the synthesizer), through a pipeline of its
   * own, and scores both apart: the model against it on the same calls (the main columns compare different calls,
   * since the hard ones fall back).
   */
  baseline?: Responder;
  onProgress?: (done: number, total: number) => void;
  /**
   * Answers of the real APIs to score under `real` beside the sample (`--recorded CACHE`): the cache's entries of
   * source real (recorded by `serve --upstream record`, imported from ToolBench) with a 2xx status, on their own
   * recorded arguments.
   */
  recorded?: Iterable<CacheEntry> | AsyncIterable<CacheEntry>;
}

export interface Inconsistency {
  tool: string;
  rule: string;
  request: string;
  field: string;
  expected: unknown;
  got: unknown;
}

export interface Implausibility {
  tool: string;
  check: string;
  field: string;
  value: unknown;
}

export interface ErrorKindSummary extends ErrorSummary {
  by_source: Record<ErrorSource, ErrorSummary>;
}

/** The error bodies of one surface, checked against the declared schemas. */
export interface SurfaceErrors {
  /** `controls.code` of the operation's lowest declared 4xx. */
  forced: ErrorKindSummary;
  /** A Rule-layer refusal: a required argument left out (or an undeclared one added when nothing is required). */
  refusal: ErrorKindSummary;
  overall: ErrorSummary;
}

/** What the model responders did for the scored calls (their fallbacks included), and how fast they generated. */
export interface ModelSummary {
  calls: number;
  answered: number;
  fallbacks: number;
  invalid: number;
  retries: number;
  timeouts: number;
  errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  generation_s: number;
  /** Completion tokens per second of generation (prompt evaluation included in the time). */
  tokens_per_s: number | null;
  last_error?: string;
}

export interface SameCallSide {
  scores: SuccessSummary;
  latency: LatencySummary;
}

export interface SameCalls {
  baseline: string;
  /** Calls the model answered, each also answered by the baseline. */
  calls: number;
  model: SameCallSide;
  other: SameCallSide;
}

export interface FidelityReport {
  seed: number;
  responders: string[];
  tools: {
    library: number;
    sampled: number;
    valid_requests: number;
    no_valid_request: number;
    unanswered: number;
    with_response_schema: number;
    recorded?: number;
  };
  overall: SuccessSummary;
  by_source: Record<SuccessSource, SuccessSummary>;
  /**
   * Wall time of each 2xx answer through the pipeline, by its source; an answer after a model fallback includes the
   * model's attempts.
   */
  latency: Record<SuccessSource, LatencySummary>;
  /** Present when the responder list has a model. */
  model?: ModelSummary;
  /** Present when a baseline was given and the list has a model. */
  same_calls?: SameCalls;
  /** Request consistency by how the response field was matched (all sources). */
  consistency_rules: Record<MatchRule, { checks: number; consistent: number; rate: number | null }>;
  plausibility_checks: Record<string, { applicable: number; passed: number; rate: number | null }>;
  errors: {
    /** Sampled OpenAPI tools whose declared responses are known (from the tool record, else the API document). */
    operations: number;
    declaring_4xx: number;
    declaring_error_schema: number;
    /** As `/v1` answers them: ToolEnv problems. */
    v1: SurfaceErrors;
    /** As the REST surface (`/apis/…`) answers them: the declared shape where the tool record keeps it. */
    rest: SurfaceErrors;
  };
  inconsistent: Inconsistency[];
  implausible: Implausibility[];
}

function isModelResponder(responder: Responder): responder is ModelResponder {
  return responder.name === 'model' && 'stats' in responder;
}

type ModelCounter = Exclude<keyof ModelResponderStats, 'lastError'>;
type ModelCounts = Record<ModelCounter, number>;

const MODEL_COUNTERS: readonly ModelCounter[] = [
  'calls',
  'answered',
  'fallbacks',
  'invalid',
  'retries',
  'timeouts',
  'errors',
  'busy',
  'promptTokens',
  'completionTokens',
  'generationSeconds',
];

/** The models' counters summed, to take what one call added. */
function modelCounts(models: readonly ModelResponder[]): ModelCounts {
  return Object.fromEntries(
    MODEL_COUNTERS.map((key) => [key, models.reduce((total, m) => total + m.stats[key], 0)]),
  ) as ModelCounts;
}

function modelSummary(counts: ModelCounts, lastError: string | undefined): ModelSummary {
  const generation = counts.generationSeconds;
  const completion = counts.completionTokens;
  return {
    calls: counts.calls,
    answered: counts.answered,
    fallbacks: counts.fallbacks,
    invalid: counts.invalid,
    retries: counts.retries,
    timeouts: counts.timeouts,
    errors: counts.errors,
    prompt_tokens: counts.promptTokens,
    completion_tokens: completion,
    generation_s: Math.round(generation * 10) / 10,
    tokens_per_s: generation > 0 ? Math.round((completion / generation) * 10) / 10 : null,
    ...(lastError !== undefined ? { last_error: lastError } : {}),
  };
}

/** A GET of one resource by its id: what the status flag check reads as "an existing resource". */
function readsOne(tool: Tool): boolean {
  return (
    tool.origin.format === 'openapi' && tool.origin.method.toLowerCase() === 'get' && /\}\/?$/.test(tool.origin.path)
  );
}

/** The responder that gave a 2xx answer; undefined for anything else (a Rule-layer answer, a 501 when none answers). */
function successSource(result: CallResult): SuccessSource | undefined {
  const ok =
    result.status >= 200 && result.status < 300 && (SUCCESS_SOURCES as readonly string[]).includes(result.source);
  return ok ? (result.source as SuccessSource) : undefined;
}

/**
 * Measures what the simulator answers today: a seeded sample of tools, a valid request for each, answered through
 * the real pipeline in process (no cache, no injected errors), every answer scored for schema validity, request
 * consistency and plausibility by its source; then for the same tools an error forced through `controls.code` and a
 * Rule-layer refusal, checked against the error response the operation declares.
 */
export async function runFidelity(options: FidelityOptions): Promise<FidelityReport> {
  const { store } = options;
  const seed = options.seed ?? 1;
  const simulator = createSimulator({ store, responders: options.responders, seed, errorRate: 0 });
  const models = options.responders.filter(isModelResponder);
  // What the models did for the scored calls only: the refusal calls below may reach them too (a tool that takes any
  // argument).
  const modelTotals = Object.fromEntries(MODEL_COUNTERS.map((key) => [key, 0])) as ModelCounts;
  const baseline =
    options.baseline && models.length > 0
      ? createSimulator({ store, responders: [options.baseline], seed, errorRate: 0 })
      : undefined;
  const same = { model: successTally(), other: successTally(), modelMs: [] as number[], otherMs: [] as number[] };
  const validates = schemaChecker();
  const ids = sampleIds(store.ids(), options.sample ?? DEFAULT_SAMPLE, seed);
  const tools = ids.map((id) => store.get(id)!);
  // One API document parsed at a time: tools of one API are measured together.
  const apiOf = (tool: Tool) => (tool.origin.format === 'openapi' ? tool.origin.api_id : '');
  tools.sort((a, b) => apiOf(a).localeCompare(apiOf(b)) || a.id.localeCompare(b.id));

  const bySource = Object.fromEntries(SUCCESS_SOURCES.map((s) => [s, successTally()])) as Record<
    SuccessSource,
    SuccessTally
  >;
  const times = Object.fromEntries(SUCCESS_SOURCES.map((s) => [s, [] as number[]])) as Record<SuccessSource, number[]>;
  const checks = Object.fromEntries(CHECKS.map((c) => [c.name, { applicable: 0, passed: 0 }]));
  const rules = Object.fromEntries(MATCH_RULES.map((r) => [r, { checks: 0, consistent: 0 }])) as Record<
    MatchRule,
    { checks: number; consistent: number }
  >;
  const surfaces = { v1: newSurface(), rest: newSurface() };
  const counts = {
    valid_requests: 0,
    no_valid_request: 0,
    unanswered: 0,
    with_response_schema: 0,
    operations: 0,
    declaring_4xx: 0,
    declaring_error_schema: 0,
  };
  const inconsistent: Inconsistency[] = [];
  const implausible: Implausibility[] = [];
  let document: { api: string; value: unknown } | undefined;

  for (const [index, tool] of tools.entries()) {
    options.onProgress?.(index, tools.length);
    if (tool.response_schema !== undefined) counts.with_response_schema++;
    const args = validRequest(tool, simulator.rules, seed);
    if (!args) {
      counts.no_valid_request++;
      continue;
    }
    counts.valid_requests++;

    const countsBefore = modelCounts(models);
    const started = performance.now();
    const result = await simulator.call(tool.id, args, { errorRate: 0 });
    const elapsed = performance.now() - started;
    const countsAfter = modelCounts(models);
    for (const key of MODEL_COUNTERS) modelTotals[key] += countsAfter[key] - countsBefore[key];
    const source = successSource(result);
    if (source === undefined) counts.unanswered++;
    else {
      const tally = bySource[source];
      tally.answers++;
      times[source].push(elapsed);
      scoreSuccess(tool, args, result.body, { tally, checks, rules, validates, inconsistent, implausible });
    }
    if (baseline && source === 'model') {
      const at = performance.now();
      const other = await baseline.call(tool.id, args, { errorRate: 0 });
      const otherMs = performance.now() - at;
      if (successSource(other) !== undefined) {
        same.modelMs.push(elapsed);
        same.otherMs.push(otherMs);
        for (const [tally, body] of [
          [same.model, result.body],
          [same.other, other.body],
        ] as const) {
          tally.answers++;
          scoreSuccess(tool, args, body, asideScoring(tally, validates));
        }
      }
    }

    if (tool.origin.format !== 'openapi') continue;
    let declared = tool.error_responses;
    if (declared === undefined) {
      // A library built before tool records kept their error responses: read them from the API document.
      const api = tool.origin.api_id;
      if (document?.api !== api) document = { api, value: store.apiDocument(api) };
      declared = documentErrorResponses(
        document.value,
        tool.origin.path,
        tool.origin.method,
        dialectOf(document.value),
      );
      if (declared === undefined) continue;
    }
    counts.operations++;
    const lowest4xx = declaredStatuses(declared).find((status) => status < 500);
    if (lowest4xx !== undefined) {
      counts.declaring_4xx++;
      const controls = { code: lowest4xx };
      await scoreSurfaces(
        tool,
        args,
        controls,
        await simulator.call(tool.id, args, { controls }),
        declared,
        surfaces,
        'forced',
        validates,
        seed,
      );
    }
    if (Object.values(declared).some((s) => s !== null)) counts.declaring_error_schema++;
    const refusal = refusalArguments(tool, args);
    const refused = await simulator.call(tool.id, refusal);
    if (refused.status >= 400)
      await scoreSurfaces(tool, refusal, {}, refused, declared, surfaces, 'refusal', validates, seed);
  }
  options.onProgress?.(tools.length, tools.length);

  let recorded = 0;
  for await (const entry of options.recorded ?? []) {
    const tool =
      entry.source === REAL_SOURCE && entry.status >= 200 && entry.status < 300 ? store.get(entry.tool) : undefined;
    if (!tool) continue;
    recorded++;
    bySource.real.answers++;
    scoreSuccess(tool, entry.arguments, entry.body, {
      tally: bySource.real,
      checks,
      rules,
      validates,
      inconsistent,
      implausible,
    });
  }

  const overall = successTally();
  for (const tally of Object.values(bySource)) addInto(overall, tally);
  return {
    seed,
    responders: options.responders.map((r) => r.name),
    tools: {
      library: store.ids().length,
      sampled: tools.length,
      valid_requests: counts.valid_requests,
      no_valid_request: counts.no_valid_request,
      unanswered: counts.unanswered,
      with_response_schema: counts.with_response_schema,
      ...(options.recorded ? { recorded } : {}),
    },
    overall: summarizeSuccess(overall),
    by_source: Object.fromEntries(SUCCESS_SOURCES.map((s) => [s, summarizeSuccess(bySource[s])])) as Record<
      SuccessSource,
      SuccessSummary
    >,
    latency: Object.fromEntries(SUCCESS_SOURCES.map((s) => [s, summarizeLatency(times[s])])) as Record<
      SuccessSource,
      LatencySummary
    >,
    ...(models.length > 0
      ? {
          model: modelSummary(
            modelTotals,
            models.map((m) => m.stats.lastError).find((e) => e !== undefined),
          ),
        }
      : {}),
    ...(baseline
      ? {
          same_calls: {
            baseline: options.baseline!.name,
            calls: same.model.answers,
            model: { scores: summarizeSuccess(same.model), latency: summarizeLatency(same.modelMs) },
            other: { scores: summarizeSuccess(same.other), latency: summarizeLatency(same.otherMs) },
          },
        }
      : {}),
    consistency_rules: Object.fromEntries(
      MATCH_RULES.map((r) => [r, { ...rules[r], rate: rate(rules[r].consistent, rules[r].checks) }]),
    ) as FidelityReport['consistency_rules'],
    plausibility_checks: Object.fromEntries(
      Object.entries(checks).map(([name, c]) => [name, { ...c, rate: rate(c.passed, c.applicable) }]),
    ),
    errors: {
      operations: counts.operations,
      declaring_4xx: counts.declaring_4xx,
      declaring_error_schema: counts.declaring_error_schema,
      v1: summarizeSurface(surfaces.v1),
      rest: summarizeSurface(surfaces.rest),
    },
    inconsistent,
    implausible,
  };
}

interface Scoring {
  tally: SuccessTally;
  checks: Record<string, { applicable: number; passed: number }>;
  rules: Record<MatchRule, { checks: number; consistent: number }>;
  validates: ReturnType<typeof schemaChecker>;
  inconsistent: Inconsistency[];
  implausible: Implausibility[];
}

/** Scores into `tally` alone: the per-rule and per-check counts and the failure examples are the main columns'. */
function asideScoring(tally: SuccessTally, validates: Scoring['validates']): Scoring {
  const checks = Object.fromEntries(CHECKS.map((c) => [c.name, { applicable: 0, passed: 0 }]));
  const rules = Object.fromEntries(MATCH_RULES.map((r) => [r, { checks: 0, consistent: 0 }])) as Scoring['rules'];
  return { tally, checks, rules, validates, inconsistent: [], implausible: [] };
}

/** Whether a list of examples has room for one more of this kind. */
const room = <T>(list: T[], kind: (item: T) => string, wanted: string) =>
  list.filter((e) => kind(e) === wanted).length < EXAMPLES_PER_KIND;

function scoreSuccess(
  tool: Tool,
  args: Arguments,
  body: unknown,
  { tally, checks, rules, validates, inconsistent, implausible }: Scoring,
): void {
  if (tool.response_schema !== undefined) {
    const verdict = validates(tool.response_schema, body);
    if (verdict === undefined) tally.schema_uncompiled++;
    else {
      tally.schema_checked++;
      if (verdict) tally.schema_valid++;
    }
  }

  const found = consistencyChecks(tool, args, body);
  if (found.length > 0) tally.consistency_answers++;
  for (const check of found) {
    tally.consistency_checks++;
    rules[check.rule].checks++;
    if (check.consistent) {
      tally.consistency_consistent++;
      rules[check.rule].consistent++;
    }
  }
  const wrong = found.find((c) => !c.consistent && room(inconsistent, (e) => e.rule, c.rule));
  if (wrong)
    inconsistent.push({
      tool: tool.id,
      rule: wrong.rule,
      request: wrong.request,
      field: wrong.field,
      expected: wrong.expected,
      got: wrong.got,
    });

  const read = readsOne(tool);
  let shown = false;
  for (const field of responseFields(body, tool.response_schema, primaryRecords(body))) {
    for (const check of CHECKS) {
      const verdict = check.test({ field, read });
      if (verdict === undefined) continue;
      tally.plausibility_applicable++;
      checks[check.name]!.applicable++;
      if (verdict) {
        tally.plausibility_passed++;
        checks[check.name]!.passed++;
      } else if (!shown && room(implausible, (e) => e.check, check.name)) {
        implausible.push({ tool: tool.id, check: check.name, field: field.path, value: field.value });
        shown = true;
      }
    }
  }
}

interface ErrorKind {
  total: ErrorTally;
  bySource: Record<ErrorSource, ErrorTally>;
}

const newErrorKind = (): ErrorKind => ({
  total: errorTally(),
  bySource: Object.fromEntries(ERROR_SOURCES.map((s) => [s, errorTally()])) as Record<ErrorSource, ErrorTally>,
});

type Surface = Record<'forced' | 'refusal', ErrorKind>;
const newSurface = (): Surface => ({ forced: newErrorKind(), refusal: newErrorKind() });

function summarizeErrorKind(kind: ErrorKind): ErrorKindSummary {
  return {
    ...summarizeError(kind.total),
    by_source: Object.fromEntries(ERROR_SOURCES.map((s) => [s, summarizeError(kind.bySource[s])])) as Record<
      ErrorSource,
      ErrorSummary
    >,
  };
}

function summarizeSurface(surface: Surface): SurfaceErrors {
  const overall = errorTally();
  addInto(overall, surface.forced.total);
  addInto(overall, surface.refusal.total);
  return {
    forced: summarizeErrorKind(surface.forced),
    refusal: summarizeErrorKind(surface.refusal),
    overall: summarizeError(overall),
  };
}

/** One error answer scored as `/v1` sends it, and as the REST surface re-shapes it. */
async function scoreSurfaces(
  tool: Tool,
  args: Arguments,
  controls: CallControls,
  result: CallResult,
  declared: ErrorResponses,
  surfaces: Record<'v1' | 'rest', Surface>,
  kind: 'forced' | 'refusal',
  validates: ReturnType<typeof schemaChecker>,
  seed: number,
): Promise<void> {
  // The Rule layer's reason, as the problem words it: whatever the shape, the agent should still be told it.
  const detail = isRecord(result.body) && typeof result.body.detail === 'string' ? result.body.detail : undefined;
  scoreError(result, declared, surfaces.v1[kind], validates, detail);
  scoreError(await vendorError(tool, result, args, controls, seed), declared, surfaces.rest[kind], validates, detail);
}

function scoreError(
  result: CallResult,
  declared: ErrorResponses,
  kind: ErrorKind,
  validates: ReturnType<typeof schemaChecker>,
  detail: string | undefined,
): void {
  const source: ErrorSource = (ERROR_SOURCES as readonly string[]).includes(result.source)
    ? (result.source as ErrorSource)
    : 'rule';
  const schema = errorSchema(declared, result.status);
  const verdict = schema === undefined || schema === null ? undefined : validates(schema, result.body);
  const fields =
    schema && typeof schema === 'object' && isRecord(schema.properties) ? Object.keys(schema.properties) : [];
  const present = isRecord(result.body)
    ? fields.filter((name) => Object.hasOwn(result.body as object, name)).length
    : 0;
  const carried =
    detail !== undefined && (JSON.stringify(result.body) ?? '').includes(JSON.stringify(detail).slice(1, -1));
  for (const tally of [kind.total, kind.bySource[source]]) {
    tally.calls++;
    if (carried) tally.reason_carried++;
    if (schema === undefined) continue;
    tally.declared++;
    if (verdict === undefined) continue;
    tally.with_schema++;
    if (verdict) tally.conforming++;
    tally.schema_fields += fields.length;
    tally.fields_present += present;
  }
}

/** The valid request less its first required argument, or with an undeclared one when nothing is required. */
function refusalArguments(tool: Tool, args: Arguments): Arguments {
  const required = (tool.parameters.required ?? []).find((name) => Object.hasOwn(args, name));
  if (required === undefined) return { ...args, toolenv_fidelity_undeclared: true };
  const { [required]: _left, ...rest } = args;
  return rest;
}
