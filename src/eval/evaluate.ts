import { fetchFailure, fetchIdempotent } from '../agent/fetch-failure.js';
import type { PolicyOptions } from '../agent/policies/create.js';
import type { Policy } from '../agent/types.js';
import { MissingLibraryError, serveInProcess } from '../server/in-process.js';
import type { RunningServer } from '../server/serve.js';
import { writeReport, writeTrajectory } from './files.js';
import { serverLibrary } from './library-client.js';
import { loadTasks } from './load.js';
import { isUnmappable, mapReferences, type EvalTask } from './map-references.js';
import { mappingCounts, taskCounts, type EvalReport } from './report.js';
import { DEFAULT_CONCURRENCY, runEval, type RunEvalOptions } from './run.js';
import { EvalInputError, type TaskFormat } from './tasks.js';
import { slowStep } from '../terminal/slow-step.js';

/** The run settings `evaluate` hands to runEval unchanged (documented there). */
type RunSettings = Pick<
  RunEvalOptions,
  | 'apiKey'
  | 'agents'
  | 'runs'
  | 'concurrency'
  | 'maxTurns'
  | 'k'
  | 'seed'
  | 'errorRate'
  | 'maxObservationChars'
  | 'systemPrompt'
  | 'toolParser'
  | 'onProgress'
  | 'signal'
>;

export interface EvaluateOptions extends RunSettings {
  tasks: string;
  format?: TaskFormat;
  /** A running ToolEnv server; without it eval starts one in this process on `library`. */
  server?: string;
  /** Library directory of the in-process server. */
  library: string;
  /** Response cache file of the in-process server. */
  cache?: string;
  /** `heuristic`, `openai:MODEL@URL`, `gguf:FILE`: one policy drives every agent. */
  policy: string;
  /** Options of the model-backed policies (token budgets, temperature). */
  policyOptions?: PolicyOptions;
  /** `openai:MODEL@URL`. */
  judge?: string;
  judgeApiKey?: string;
  /** Where trajectories, report.json and report.md go; nothing is written without it. */
  out?: string;
  log?: (line: string) => void;
}

/**
 * One eval: load and map the tasks through the server, run every agent on every mappable task `runs` times, score,
 * and write trajectories and the report when `out` is given.
 */
export async function evaluate(options: EvaluateOptions): Promise<EvalReport> {
  const file = loadTasks(options.tasks, options.format);
  if (options.judge !== undefined) {
    const spec = options.judge;
    const { parseJudgeSpec } = await import('../rl/judge.js');
    await asInput('--judge', () => parseJudgeSpec(spec));
    if (options.server !== undefined && options.judgeApiKey !== undefined) {
      throw new EvalInputError(
        `--judge-api-key cannot reach the judge of a running server (${options.server}): start that server with ` +
          '--judge and --judge-api-key, and run eval without --judge',
      );
    }
  }
  // In process the server itself holds the judge (with its key); a running server is asked to use it per request.
  const judge: string | true | undefined =
    options.judge === undefined ? undefined : options.server === undefined ? true : options.judge;
  let inProcess: RunningServer | undefined;
  let policy: Policy | undefined;
  try {
    if (options.server === undefined) {
      inProcess = await slowStep(options.log, `starting a server on ${options.library} in this process`, () =>
        startInProcess(options),
      );
    }
    const server = options.server ?? inProcess!.url;
    const health = await checkServer(server, options.apiKey);
    warnSeed(file.tasks, health.seed, options.log);
    const log = options.log;
    await slowStep(log, 'waiting for the server to load its search index (its first search)', () =>
      warmSearch(server, options.apiKey),
    );
    const mapped = await slowStep(
      log,
      `mapping the reference tools of ${file.tasks.length} task(s) onto the served library`,
      () => mapReferences(file.tasks, serverLibrary(server, options.apiKey)),
    );
    const runnable = mapped.filter((t) => !isUnmappable(t));
    logUnmappedTools(runnable, options.log);
    if (runnable.length === 0)
      throw new EvalInputError(
        `no task of ${options.tasks} has a reference tool in the served library (${mapped.length} tasks, all ` +
          'unmapped); check the library the server serves',
      );

    // Loaded only now: a policy may pull in a model runtime.
    const { createPolicy, runAgent } = await import('../agent/index.js');
    policy = await slowStep(log, `loading the policy ${options.policy}`, () =>
      asInput('--policy', () => createPolicy(options.policy, { ...options.policyOptions, log })),
    );
    const runs = options.runs ?? 1;
    const results = await runEval({
      server,
      apiKey: options.apiKey,
      agents: options.agents,
      policy,
      runAgent,
      tasks: runnable,
      runs,
      concurrency: options.concurrency,
      maxTurns: options.maxTurns,
      k: options.k,
      seed: options.seed,
      errorRate: options.errorRate,
      maxObservationChars: options.maxObservationChars,
      ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
      ...(options.toolParser !== undefined ? { toolParser: options.toolParser } : {}),
      judge,
      onRun:
        options.out === undefined
          ? undefined
          : (run, score) => {
              writeTrajectory(options.out!, run, score);
            },
      onProgress: options.onProgress,
      signal: options.signal,
    });
    const report: EvalReport = {
      created_at: new Date().toISOString(),
      server: inProcess ? `${server} (in-process: ${options.library})` : server,
      task_file: options.tasks,
      format: file.format,
      agents: [...options.agents],
      policy: options.policy,
      judge: options.judge ?? null,
      runs,
      concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
      max_turns: options.maxTurns ?? null,
      k: options.k ?? null,
      seed: options.seed ?? null,
      error_rate: options.errorRate ?? null,
      max_observation_chars: options.maxObservationChars ?? null,
      system_prompt: options.systemPrompt ?? 'full',
      tasks: taskCounts(mapped, judge !== undefined),
      mapping: mappingCounts(mapped),
      results,
    };
    if (options.out !== undefined) writeReport(options.out, report);
    return report;
  } finally {
    await policy?.close?.();
    await inProcess?.close();
  }
}

/**
 * Tool-set entries (api_list, offered functions) missing from the library are no reason to skip a task: counted, then
 * left out of its episode.
 */
function logUnmappedTools(tasks: readonly EvalTask[], log: ((line: string) => void) | undefined): void {
  const short = tasks.filter((t) => t.unmappedTools !== undefined);
  if (short.length === 0) return;
  const entries = short.reduce((n, t) => n + t.unmappedTools!.length, 0);
  const open = short.filter((t) => t.tools === undefined).length;
  log?.(
    `toolenv: ${entries} tool-set entr${entries === 1 ? 'y' : 'ies'} of ` +
      `${short.length} task(s) not in the library, left out of their episodes` +
      (open > 0 ? `; ${open} task(s) with none in it run on the whole library` : ''),
  );
}

/** A server on the library directory, in this process, on a free port: what `toolenv serve` would run, for one eval. */
async function startInProcess(options: EvaluateOptions): Promise<RunningServer> {
  let server: RunningServer;
  try {
    server = await serveInProcess(options);
  } catch (error) {
    if (error instanceof MissingLibraryError) throw new EvalInputError(error.message);
    throw error;
  }
  options.log?.(`toolenv: serving ${options.library} in-process at ${server.url} (${server.tools} tools)`);
  return server;
}

/** Fails early, as an input error, on a URL that is not a ToolEnv server or a key it refuses. */
/**
 * Synthesized tasks carry the synthesis seed their answers were read under (`meta.server_seed`): on a server with
 * another `--seed` the same calls synthesize other bodies, and the expected answers cannot be met. Said, not refused:
 * the rest of the report stays meaningful.
 */
function warnSeed(
  tasks: readonly { meta?: Record<string, unknown> }[],
  seed: number | undefined,
  log: ((line: string) => void) | undefined,
): void {
  if (seed === undefined) return;
  const other = tasks.filter((t) => typeof t.meta?.server_seed === 'number' && t.meta.server_seed !== seed);
  if (other.length === 0) return;
  log?.(
    `toolenv: ${other.length} task(s) were synthesized for a server with --seed ` +
      `${String(other[0]!.meta!.server_seed)}, and this one runs --seed ${seed}: their expected answers will not ` +
      `hold (serve with that seed, or synthesize with --server-seed ${seed})`,
  );
}

/** The server's /healthz, after checking it is a ToolEnv server that takes the key. */
async function checkServer(server: string, apiKey?: string): Promise<{ seed?: number }> {
  let response: Response;
  try {
    response = await fetchIdempotent(`${server.replace(/\/+$/, '')}/healthz`, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    });
  } catch (error) {
    throw new EvalInputError(`cannot reach a ToolEnv server at ${server} (${fetchFailure(error)})`);
  }
  if (!response.ok) throw new EvalInputError(`${server}/healthz answered ${response.status}: is it a ToolEnv server?`);
  const health = (await response.json().catch(() => ({}))) as { seed?: unknown };
  // /healthz is open to all; the library route tells whether the key is right.
  const probe = await fetch(`${server.replace(/\/+$/, '')}/v1/tools?limit=1`, {
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
  });
  await probe.body?.cancel();
  if (probe.status === 401 || probe.status === 403) {
    throw new EvalInputError(
      `${server} refused the ${apiKey ? 'API key given' : 'requests without an API key'} (${probe.status}); pass ` +
        '--api-key KEY or set TOOLENV_API_KEY',
    );
  }
  return typeof health.seed === 'number' ? { seed: health.seed } : {};
}

/**
 * The server loads its search index on the first search: one search before the runs keeps that load out of the
 * first runs' wall time. A failure here is left for the runs to meet and report.
 */
async function warmSearch(server: string, apiKey?: string): Promise<void> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const response = await fetch(`${server.replace(/\/+$/, '')}/v1/search`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: 'warm up', k: 1 }),
  }).catch(() => undefined);
  await response?.body?.cancel();
}

/** A step whose failure is the user's input at fault (a bad spec, a missing model file): reported against the flag. */
async function asInput<T>(flag: string, step: () => T | Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    throw new EvalInputError(`${flag}: ${error instanceof Error ? error.message : String(error)}`);
  }
}
