import { createHash } from 'node:crypto';
import { bindRefs, RefError, type CallOutput } from '../../protocol/references.js';
import { renderCall } from '../../protocol/render.js';
import { EpisodeStore } from '../../episodes/store.js';
import type { ToolCallObservation } from '../../wire/episodes.js';
import type { StateAssertion } from '../../wire/schema-types.js';
import type { Graph } from '../../graph/store.js';
import type { LibraryStore } from '../../library/store.js';
import type { Tool } from '../../library/tool.js';
import { resourceKind } from '../../episodes/resource-op.js';
import { canonicalJson } from '../../simulator/canonical.js';
import type { ToolSimulator } from '../../simulator/pipeline.js';
import { Rng } from '../../simulator/synth/random.js';
import { synthArguments } from './arguments.js';
import { chooseAnswer, type AnswerField } from './answer.js';
import { CandidatePool, type TaskGoal, type TaskKind } from './candidates.js';
import { plannedState, type PlannedState } from './expect.js';
import { templateQuery, type StatedCall } from './phrase.js';

/** One synthesized task, in the project's task format (schemas/task.schema.json). */
export interface SynthTask {
  id: string;
  query: string;
  reference_tools: string[];
  /** What the final answer must contain: read and mixed tasks. */
  answer?: string[];
  /** What the reference calls leave in the world, which fails before them: write and mixed tasks. */
  expect?: StateAssertion[];
  /** The episode seed the task was made under. */
  seed: number;
  meta: {
    source: 'synth';
    goal: TaskGoal;
    kind: TaskKind;
    /** Tools the reference chain calls: the stratum. */
    tools: number;
    category: string;
    /** The server seed the synthesized answers hold for (`serve --seed`). */
    server_seed: number;
    calls: { tool: string; arguments: Record<string, unknown> }[];
    answer_fields: string[];
  };
}

/** Why a candidate was dropped: each check of issue #16, counted in the report. */
export const DROP_REASONS = [
  'no_candidate',
  'arguments',
  'unbound',
  'not_2xx',
  'duplicate',
  'no_answer',
  'not_reproducible',
  'value_missing',
  'leaks_tool_id',
  'no_state',
  'holds_before',
  'state_not_held',
] as const;
export type DropReason = (typeof DROP_REASONS)[number];

export interface SynthOptions {
  store: LibraryStore;
  graph: Graph;
  /** The simulator the reference chains run through: the pipeline a server with the same seed and responders runs. */
  simulator: ToolSimulator;
  count: number;
  seed: number;
  /** Questions (the default), changes of the world, or both at once. */
  goal?: TaskGoal;
  /** Tools per task, inclusive. */
  minTools: number;
  maxTools: number;
  category?: string;
  /** Bias toward tasks with more tools (the paper's RL set): stratum n drawn with weight n² instead of 1. */
  hard?: boolean;
  /** Rewrites a template query; its rewrite must pass the same checks, else the template stays. */
  rephrase?: (query: string) => Promise<string>;
  onProgress?: (made: number, total: number) => void;
}

export interface SynthReport {
  tasks: SynthTask[];
  /** Candidates drawn, and how many each check dropped. */
  candidates: number;
  dropped: Record<DropReason, number>;
  /** Tasks by stratum (tools per task) and by kind. */
  strata: Record<string, number>;
  kinds: Record<TaskKind, number>;
  /**
   * Of the finished reference chains, the share that executed again with 2xx answers and the same answer in a fresh
   * episode.
   */
  executed_share: number;
  /**
   * With a rewriter: queries rewritten, rewrites refused by the checks (the template stays), rewriter failures
   * (likewise).
   */
  rephrase: { rewritten: number; rejected: number; failed: number; last_error?: string };
}

/**
 * Draws per task before a stratum gives up: a library whose graph has no chains of that length ends rather than loops.
 */
const MAX_DRAWS_PER_TASK = 40;
/** Successors tried for each link of a chain before the chain is given up. */
const MAX_SUCCESSORS = 8;

/** One call of a task being built: the tool, the values the query gives, the link to an earlier call. */
export interface Built extends StatedCall {
  link?: { from: number; param: string; key: string; path: string };
}

/**
 * Tasks whose answers ToolEnv can check itself: reference chains drawn from G_dep (chains along hard edges,
 * independent sets, mixes), concrete argument values, each chain run through the simulator inside an episode at
 * error rate 0 (so world state links a create to its read as it will in training), an answer read off the
 * results, and a query that states every value and names no tool id. A chain grows by running it: of a tool's hard
 * successors, the first whose link resolves in the tool's actual result and that answers 2xx comes next. Every
 * task's chain is then run once more in a fresh episode, and kept only if it executes again and gives the same
 * answer. Deterministic in the seed, the library, the graph and the simulator's seed and responders.
 */
export async function synthesizeTasks(options: SynthOptions): Promise<SynthReport> {
  const rng = new Rng(options.seed);
  const goal = options.goal ?? 'read';
  const pool = new CandidatePool(options.store, options.graph, options.category, goal);
  const episodes = new EpisodeStore({
    simulator: options.simulator,
    library: options.store,
    search: () => Promise.reject(new Error('task synthesis runs no searches')),
    maxEpisodes: 2,
  });
  const dropped = Object.fromEntries(DROP_REASONS.map((r) => [r, 0])) as Record<DropReason, number>;
  const strata: Record<string, number> = {};
  const kinds = { single: 0, chain: 0, parallel: 0, mix: 0 } as Record<TaskKind, number>;
  const tasks: SynthTask[] = [];
  const keys = new Set<string>();
  let candidates = 0;
  let verified = 0;
  let reproduced = 0;
  const rephrase: SynthReport['rephrase'] = { rewritten: 0, rejected: 0, failed: 0 };
  try {
    for (const [n, target] of stratumTargets(options)) {
      let made = 0;
      // A write task is one change or a chain of them, each feeding the next its created id.
      const balance = new KindBalance(
        n === 1
          ? ['single']
          : goal !== 'read'
            ? ['chain']
            : n >= 3
              ? ['chain', 'parallel', 'mix']
              : ['chain', 'parallel'],
      );
      for (let draws = 0; made < target && draws < target * MAX_DRAWS_PER_TASK; draws++) {
        candidates++;
        const kind = balance.next();
        if (kind === undefined) break;
        const seed = rng.int(0, 2 ** 31 - 1);
        const built = await build(episodes, pool, kind, n, seed, rng, goal);
        if (typeof built === 'string') {
          dropped[built]++;
          balance.failed(kind);
          continue;
        }
        const key = canonicalJson(built.calls.map((c) => [c.tool.id, c.given]));
        if (keys.has(key)) {
          dropped.duplicate++;
          continue;
        }
        let planned: PlannedState | undefined;
        if (goal !== 'read' && (planned = plannedState(built.calls, built.args)) === undefined) {
          dropped.no_state++;
          continue;
        }
        // Values the query states: an answer must not be one of them (short ones would rule out too much).
        const values = built.calls.flatMap((c) => Object.values(c.given).map(String)).filter((v) => v.length >= 4);
        const answers = (goal === 'write' ? [] : answerCalls(kind, n)).map((call) => ({
          call,
          field: chooseAnswer(built.results[call]!, values, built.results.slice(0, call)),
        }));
        if (answers.some((a) => a.field === undefined)) {
          dropped.no_answer++;
          continue;
        }
        const fields = answers as { call: number; field: AnswerField }[];
        verified++;
        const again = await replay(episodes, built.calls, seed);
        if (
          typeof again === 'string' ||
          fields.some(({ call, field }) => !renderCall(again[call]!).includes(field.value))
        ) {
          dropped.not_reproducible++;
          continue;
        }
        reproduced++;
        const stateDrop = planned && (await stateProblem(episodes, built.calls, seed, planned));
        if (stateDrop) {
          dropped[stateDrop]++;
          continue;
        }
        let query = templateQuery(kind, built.calls, fields);
        const problem = queryProblem(query, built.calls, fields);
        if (problem) {
          dropped[problem]++;
          continue;
        }
        if (options.rephrase) {
          const rewrite = await options.rephrase(query).catch((error: unknown) => {
            rephrase.failed++;
            rephrase.last_error = error instanceof Error ? error.message : String(error);
            return undefined;
          });
          if (rewrite !== undefined && queryProblem(rewrite, built.calls, fields) === undefined) {
            query = rewrite;
            rephrase.rewritten++;
          } else if (rewrite !== undefined) rephrase.rejected++;
        }
        keys.add(key);
        tasks.push(toTask(goal, kind, built.calls, fields, planned, query, seed, options));
        made++;
        balance.made(kind);
        strata[String(n)] = (strata[String(n)] ?? 0) + 1;
        kinds[kind]++;
        options.onProgress?.(tasks.length, options.count);
      }
    }
  } finally {
    episodes.close();
  }
  return {
    tasks,
    candidates,
    dropped,
    strata,
    kinds,
    executed_share: verified === 0 ? 0 : reproduced / verified,
    rephrase,
  };
}

/**
 * The kinds of one stratum kept about even: the next draw is of the kind with the fewest tasks so far, and a kind
 * that keeps failing (long chains are rare in some libraries) steps aside, so the stratum fills with the others.
 */
class KindBalance {
  private readonly counts = new Map<TaskKind, number>();
  private readonly streaks = new Map<TaskKind, number>();

  constructor(private readonly kinds: readonly TaskKind[]) {}

  next(): TaskKind | undefined {
    const open = this.kinds.filter((k) => (this.streaks.get(k) ?? 0) < MAX_FAILURE_STREAK);
    return open.sort((a, b) => (this.counts.get(a) ?? 0) - (this.counts.get(b) ?? 0))[0];
  }

  made(kind: TaskKind): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
    this.streaks.set(kind, 0);
  }

  failed(kind: TaskKind): void {
    this.streaks.set(kind, (this.streaks.get(kind) ?? 0) + 1);
  }
}

/** Failed draws in a row after which a kind steps aside in its stratum. */
const MAX_FAILURE_STREAK = 40;

/**
 * How many tasks each stratum gets: even shares, or with `hard` shares weighted by n² like the paper's tool-intensive
 * RL set.
 */
function stratumTargets(options: SynthOptions): [number, number][] {
  const strata = Array.from({ length: options.maxTools - options.minTools + 1 }, (_, i) => options.minTools + i);
  const weights = strata.map((n) => (options.hard ? n * n : 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const targets = strata.map((n, i): [number, number] => [n, Math.floor((options.count * weights[i]!) / total)]);
  // What rounding left goes to the largest strata first.
  for (
    let left = options.count - targets.reduce((a, [, t]) => a + t, 0), i = targets.length - 1;
    left > 0;
    left--, i = (i - 1 + targets.length) % targets.length
  )
    targets[i]![1]++;
  return targets;
}

/** One task's calls built and run in an episode; the calls with their results, or why none could be built. */
async function build(
  episodes: EpisodeStore,
  pool: CandidatePool,
  kind: TaskKind,
  n: number,
  seed: number,
  rng: Rng,
  goal: TaskGoal,
): Promise<{ calls: Built[]; args: Record<string, unknown>[]; results: ToolCallObservation[] } | DropReason> {
  const episode = episodes.create({ seed, error_rate: 0, max_steps: 1000 });
  // A write task's create or update sets one optional member too, so that the change it asks for is stated.
  const changes = (tool: Tool) => (goal !== 'read' && resourceKind(tool) !== 'delete' ? 1 : 0);
  const calls: Built[] = [];
  const args: Record<string, unknown>[] = [];
  const results: ToolCallObservation[] = [];
  const run = async (call: Built): Promise<DropReason | undefined> => {
    const outcome = await runCall(episodes, episode.id, calls.length, call, results);
    if (typeof outcome === 'string') return outcome;
    calls.push(call);
    args.push(outcome.args);
    results.push(outcome.observation);
    return undefined;
  };
  try {
    const chainLength = kind === 'chain' ? n : kind === 'mix' ? n - 1 : 0;
    if (chainLength > 0) {
      const start = pool.chainStart(rng);
      if (!start) return 'no_candidate';
      const given = synthArguments(start, new Set(), seed, changes(start));
      if (!given) return 'arguments';
      const failed = await run({ tool: start, given });
      if (failed) return failed;
      while (calls.length < chainLength) {
        const producer = calls.at(-1)!;
        let reason: DropReason = 'no_candidate';
        let grown = false;
        let tried = 0;
        for (const link of pool.successors(
          producer.tool,
          calls.map((c) => c.tool.id),
          rng,
        )) {
          if (++tried > MAX_SUCCESSORS) break;
          const args = synthArguments(link.tool, new Set([link.param]), seed + calls.length, changes(link.tool));
          if (!args) {
            reason = 'arguments';
            continue;
          }
          const failed = await run({
            tool: link.tool,
            given: args,
            link: { from: calls.length - 1, param: link.param, key: fieldName(link.path, link.param), path: link.path },
          });
          if (!failed) {
            grown = true;
            break;
          }
          reason = failed;
        }
        if (!grown) return reason;
      }
    }
    const independent = kind === 'single' || kind === 'parallel' ? n : kind === 'mix' ? 1 : 0;
    for (let i = 0; i < independent; i++) {
      const tool =
        i === 0 && kind === 'single'
          ? pool.single(rng)
          : pool.independent(
              calls.map((c) => c.tool.id),
              rng,
            );
      if (!tool) return 'no_candidate';
      const given = synthArguments(tool, new Set(), seed + calls.length, changes(tool));
      if (!given) return 'arguments';
      const failed = await run({ tool, given });
      if (failed) return failed;
    }
    return { calls, args, results };
  } finally {
    episodes.delete(episode.id);
  }
}

/**
 * A call's arguments as the task records them: the stated values, and the link as a reference to the producer's result.
 */
function referenceArguments(call: Built): Record<string, unknown> {
  return call.link
    ? { ...call.given, [call.link.param]: { $ref: `c${call.link.from + 1}.${call.link.path}` } }
    : { ...call.given };
}

/**
 * One call run as a step of the episode, its link bound to the producer's result; the observation and the arguments
 * as sent, or why it failed.
 */
async function runCall(
  episodes: EpisodeStore,
  episodeId: string,
  index: number,
  call: Built,
  results: readonly ToolCallObservation[],
): Promise<{ observation: ToolCallObservation; args: Record<string, unknown> } | DropReason> {
  let args: Record<string, unknown>;
  try {
    args = bindRefs(referenceArguments(call), (id) => output(results[Number(id.slice(1)) - 1])) as Record<
      string,
      unknown
    >;
  } catch (error) {
    if (error instanceof RefError) return 'unbound';
    throw error;
  }
  const step = await episodes.step(episodeId, {
    actions: [{ type: 'tool_call', id: `c${index + 1}`, tool: call.tool.id, arguments: args }],
  });
  const observation = step.observations[0] as ToolCallObservation;
  return observation.status >= 200 && observation.status < 300 ? { observation, args } : 'not_2xx';
}

/**
 * The chain run again in a fresh episode, as an agent following the task would: its results, or why it no longer ran.
 */
async function replay(
  episodes: EpisodeStore,
  calls: readonly Built[],
  seed: number,
): Promise<ToolCallObservation[] | DropReason> {
  const episode = episodes.create({ seed, error_rate: 0, max_steps: calls.length });
  try {
    const results: ToolCallObservation[] = [];
    for (const [i, call] of calls.entries()) {
      const outcome = await runCall(episodes, episode.id, i, call, results);
      if (typeof outcome === 'string') return outcome;
      results.push(outcome.observation);
    }
    return results;
  } finally {
    episodes.delete(episode.id);
  }
}

/**
 * A write task's assertions read off a fresh episode's world as its reference calls run, the way the server scores
 * them: each must fail before the call it checks runs (all of them on the fresh world), else that call is not what
 * makes it hold, and all must hold after the last. Undefined when they do; else why not.
 */
async function stateProblem(
  episodes: EpisodeStore,
  calls: readonly Built[],
  seed: number,
  planned: PlannedState,
): Promise<DropReason | undefined> {
  const episode = episodes.create({
    seed,
    error_rate: 0,
    max_steps: calls.length,
    task: { id: 'synth', query: 'synthesis', expect: planned.expect },
  });
  const checks = () => episodes.summary(episode.id)?.state_checks ?? [];
  try {
    const results: ToolCallObservation[] = [];
    for (const [i, call] of calls.entries()) {
      const before = checks();
      if (planned.by.some((by, j) => by >= i && before[j]?.held)) return 'holds_before';
      const outcome = await runCall(episodes, episode.id, i, call, results);
      if (typeof outcome === 'string') return 'not_reproducible';
      results.push(outcome.observation);
    }
    const after = checks();
    return after.length === planned.expect.length && after.every((c) => c.held) ? undefined : 'state_not_held';
  } finally {
    episodes.delete(episode.id);
  }
}

function output(observation: ToolCallObservation | undefined): CallOutput | undefined {
  return (
    observation && {
      status: observation.status,
      body: observation.body,
      ...(observation.headers ? { headers: observation.headers } : {}),
    }
  );
}

/** The field a link reads, for the query (`body[0].id` → `id`). */
function fieldName(path: string, fallback: string): string {
  return (
    path
      .split(/[.[\]]/)
      .filter((s) => s && !/^\d+$/.test(s) && s !== 'body')
      .pop() ?? fallback
  );
}

/**
 * The calls whose results the answer reports: the last of a chain, every call of an independent set, the chain's end
 * and the extra call of a mix.
 */
function answerCalls(kind: TaskKind, n: number): number[] {
  if (kind === 'parallel') return Array.from({ length: n }, (_, i) => i);
  if (kind === 'mix') return [n - 2, n - 1];
  return [n - 1];
}

/** A query that misses a value the chain needs, states an answer, or names a tool id, fails its check. */
export function queryProblem(
  query: string,
  calls: readonly Built[],
  answers: readonly { call: number; field: AnswerField }[],
): DropReason | undefined {
  const lower = query.toLowerCase();
  if (calls.some((c) => lower.includes(c.tool.id.toLowerCase()))) return 'leaks_tool_id';
  const needed = calls.flatMap((c) => Object.values(c.given).map(String));
  if (needed.some((v) => !query.includes(v))) return 'value_missing';
  // The answer's values must stay unsaid (the answer check ignores case), and the fields it reports said.
  if (answers.some(({ field }) => lower.includes(field.value.toLowerCase()) || !query.includes(`"${field.key}"`)))
    return 'value_missing';
  // Which result feeds which parameter, and which step each field comes from: a rewrite must keep them.
  if (calls.some((c) => c.link && !query.includes(c.link.param))) return 'value_missing';
  if (
    calls.length > 1 &&
    answers.some(({ call }) => !query.includes(`step ${call + 1}`) && !query.includes(`(${call + 1})`))
  )
    return 'value_missing';
  return undefined;
}

function toTask(
  goal: TaskGoal,
  kind: TaskKind,
  built: readonly Built[],
  answers: readonly { call: number; field: AnswerField }[],
  planned: PlannedState | undefined,
  query: string,
  seed: number,
  options: SynthOptions,
): SynthTask {
  const calls = built.map((call) => ({ tool: call.tool.id, arguments: referenceArguments(call) }));
  return {
    // The calls' hash (and the goal, but for questions): unique across files made with other flags, stable for the
    // same task.
    id: `synth-${createHash('sha256')
      .update(canonicalJson(goal === 'read' ? calls : [goal, calls]))
      .digest('hex')
      .slice(0, 12)}`,
    query,
    reference_tools: [...new Set(built.map((c) => c.tool.id))],
    ...(answers.length > 0 ? { answer: answers.map((a) => a.field.value) } : {}),
    ...(planned ? { expect: planned.expect } : {}),
    seed,
    meta: {
      source: 'synth',
      goal,
      kind,
      tools: built.length,
      category: built[0]!.tool.category,
      server_seed: options.simulator.seed,
      calls,
      answer_fields: answers.map((a) => `c${a.call + 1}.body${a.field.path}`),
    },
  };
}
