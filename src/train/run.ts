import { spawn } from 'node:child_process';
import { chmodSync, createWriteStream, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fetchIdempotent } from '../agent/fetch-failure.js';
import { LOG_INTERVAL_MS } from '../terminal/progress.js';
import { MissingLibraryError, serveInProcess } from '../server/in-process.js';
import type { RunningServer } from '../server/serve.js';
import { totalmem } from 'node:os';
import {
  engineArgs,
  launchScript,
  ONE_MACHINE_DEFAULTS,
  type Engine,
  type EpisodeOptions,
  type Stage,
  type TrainJson,
} from './config.js';
import { memoryRefusal, readModelShape, rlMemoryTerms } from './memory.js';
import { writeDemonstrations, type DemonstrationSummary } from './demonstrations.js';
import {
  readJsonLines,
  sftMetrics,
  stepMetrics,
  trainerLogs,
  type EpisodeRecord,
  type SftStepMetrics,
  type StepMetrics,
} from './metrics.js';
import { missingPython, pythonExecutable } from '../python.js';
import { readTrainTasks, writeTrainTasks, type TrainTask } from './tasks.js';

export interface TrainOptions {
  engine: Engine;
  stage: Stage;
  model: string;
  out: string;
  /** A task file (own format); without one, `count` tasks are synthesized from the library. */
  tasks?: string;
  count: number;
  /** SFT conversations (chat-messages JSON Lines); without them, demonstrations by `policy` over the tasks. */
  data?: string;
  policy: string;
  server?: string;
  library: string;
  cache: string;
  apiKey?: string;
  steps: number;
  group: number;
  promptsPerStep: number;
  seed: number;
  episode: EpisodeOptions;
  maxTurnTokens: number;
  maxCompletionLength: number;
  maxSeqLen: number;
  /** Low-rank adapters of this rank instead of full fine-tuning (0); TRL's checkpoint holds them merged. */
  loraRank: number;
  /** With loraRank: adapters on the last this-many decoder blocks only (0: all of them). */
  loraLayers?: number;
  /** TRL: rollouts generated at once. */
  generationBatch?: number;
  /** Whether --batch was given: an RL default larger than the task file shrinks to it, a given one is an error. */
  batchGiven?: boolean;
  trainer: Record<string, unknown>;
  dryRun: boolean;
  verbose: boolean;
  log: (line: string) => void;
}

export interface TrainSummary {
  run: string;
  engine: Engine;
  stage: Stage;
  command: string[];
  server?: string;
  tasks?: number;
  demonstrations?: DemonstrationSummary;
  steps?: number;
  checkpoint?: string;
  /** The last step's line of metrics.jsonl. */
  metrics?: StepMetrics | SftStepMetrics;
  wall_s?: number;
}

/** A failure of the run itself (the engine exited non-zero, the server refused): reported with exit code 1. */
export class TrainError extends Error {}

/** A mistake in what train was asked to do: reported as a usage error (exit code 2). */
export class TrainInputError extends Error {}

/**
 * `toolenv train`: prepares RUN (tasks, SFT data, train.json, launch.sh), serves the library unless a server is
 * given, launches the engine through ToolEnv's Python package and follows it: progress per step from the episode
 * records the rollouts write, metrics.jsonl at the end, and the checkpoint the engine saved.
 */
export async function train(options: TrainOptions): Promise<TrainSummary> {
  const started = Date.now();
  const run = resolve(options.out);
  if (existsSync(join(run, 'train.json')) && !options.dryRun) {
    throw new TrainInputError(`${run} already holds a run (train.json): pass another --out`);
  }
  const needsTasks = options.stage === 'rl' || options.data === undefined;
  // Everything the user gave is read before anything starts: a bad file costs no server start.
  const sftData = options.data === undefined ? undefined : checkSftData(resolve(options.data));
  const given = needsTasks && options.tasks !== undefined ? readTrainTasks(resolve(options.tasks)) : undefined;
  if (needsTasks && given === undefined && options.server !== undefined) {
    throw new TrainInputError(
      '--server needs --tasks FILE: tasks are synthesized from the local library, which may not be the server’s',
    );
  }
  if (options.stage === 'rl' && options.engine === 'trl' && !options.dryRun) checkMemory(options);
  mkdirSync(run, { recursive: true });
  const python = pythonExecutable();
  if (python === undefined && !options.dryRun) throw new TrainInputError(missingPython());
  let inProcess: RunningServer | undefined;
  try {
    const server =
      options.server ?? (options.dryRun ? 'http://127.0.0.1:8080' : (inProcess = await serveLibrary(options)).url);
    if (options.dryRun && options.server === undefined) {
      options.log(
        `toolenv: dry run: no server started; launch.sh reaches ${server} ` +
          "(`toolenv serve`'s default) unless TOOLENV_URL says otherwise",
      );
    }
    if (options.server !== undefined && !options.dryRun) await checkServer(options.server, options.apiKey);
    if (given !== undefined && !options.dryRun) await checkTaskTools(server, options.apiKey, options.tasks!, given);
    const summary: TrainSummary = { run, engine: options.engine, stage: options.stage, command: [], server };
    const tasksFile = needsTasks ? join(run, 'tasks.jsonl') : undefined;
    if (tasksFile !== undefined) {
      const tasks = given ?? (options.dryRun ? undefined : await synthesizeTasks(options, tasksFile));
      if (given !== undefined) writeTrainTasks(tasksFile, given);
      if (tasks !== undefined) summary.tasks = tasks.length;
      if (tasks !== undefined && options.stage === 'rl' && tasks.length < options.promptsPerStep) {
        if (options.batchGiven)
          throw new TrainInputError(
            `--batch ${options.promptsPerStep}: one step takes that many prompts, but there are only ${tasks.length} ` +
              `tasks; pass --batch ${tasks.length} or fewer, or more tasks`,
          );
        options.log(
          `toolenv: ${tasks.length} tasks: ${tasks.length} prompts per step ` +
            `(the paper's ${options.promptsPerStep} needs that many tasks)`,
        );
        options.promptsPerStep = tasks.length;
      }
    }
    if (options.stage === 'rl' && options.engine === 'trl' && !options.dryRun) {
      const rollouts = options.promptsPerStep * options.group;
      options.log(
        `toolenv: each step samples ${options.promptsPerStep} prompts × ${options.group} rollouts = ${rollouts} ` +
          `episodes, generated ${options.generationBatch} at a time, then updates one group at a time`,
      );
    }
    let demonstrationsFile: string | undefined;
    if (options.stage === 'sft' && sftData === undefined) {
      demonstrationsFile = join(run, 'sft.jsonl');
      if (!options.dryRun)
        summary.demonstrations = await demonstrations(options, server, tasksFile!, demonstrationsFile);
    }
    const config: TrainJson = {
      engine: options.engine,
      stage: options.stage,
      run_dir: run,
      model: resolve(options.model),
      server,
      steps: options.steps,
      group: options.group,
      prompts_per_step: options.promptsPerStep,
      seed: options.seed,
      ...(tasksFile !== undefined && options.stage === 'rl' ? { tasks: tasksFile } : {}),
      ...(options.stage === 'sft' ? { sft_data: sftData ?? demonstrationsFile } : {}),
      episode: options.episode,
      max_turn_tokens: options.maxTurnTokens,
      max_completion_length: options.maxCompletionLength,
      max_seq_len: options.maxSeqLen,
      lora_rank: options.loraRank,
      lora_layers: options.loraLayers ?? 0,
      generation_batch: options.generationBatch ?? ONE_MACHINE_DEFAULTS.generationBatch,
      trainer: options.trainer,
    };
    const pythonPath = python ?? join('.venv', 'bin', 'python');
    writeFileSync(join(run, 'train.json'), `${JSON.stringify(config, null, 2)}\n`);
    const launch = join(run, 'launch.sh');
    writeFileSync(launch, launchScript(config, pythonPath));
    chmodSync(launch, 0o755);
    summary.command = ['bash', launch];
    if (options.dryRun) {
      summary.command = [pythonPath, ...engineArgs(config)];
      return summary;
    }
    await runEngine(launch, server, run, options);
    const metrics = metricsOf(options.stage, run, started);
    writeFileSync(
      join(run, 'metrics.jsonl'),
      metrics.map((m) => JSON.stringify(m)).join('\n') + (metrics.length ? '\n' : ''),
    );
    // A trainer that stops early exits 0 (TRL on an empty epoch): fewer steps than asked is the run failing.
    if (options.steps > 0 && metrics.length < options.steps) {
      throw new TrainError(
        `the ${options.engine} engine ran ${metrics.length} of ${options.steps} optimizer steps (see ` +
          `${join(run, 'engine.log')})`,
      );
    }
    if (metrics.length === 0)
      throw new TrainError(`the ${options.engine} engine ran no optimizer step (see ${join(run, 'engine.log')})`);
    const checkpoint = join(run, 'checkpoint');
    return {
      ...summary,
      steps: metrics.length,
      ...(existsSync(checkpoint) ? { checkpoint } : {}),
      ...(metrics.length ? { metrics: metrics[metrics.length - 1]! } : {}),
      wall_s: Math.round((Date.now() - started) / 100) / 10,
    };
  } finally {
    await inProcess?.close();
  }
}

/**
 * A TRL run whose projected peak exceeds this machine's memory is refused before anything loads, naming the flag to
 * lower.
 */
function checkMemory(options: TrainOptions): void {
  const model = readModelShape(options.model);
  if (model === undefined) return;
  const terms = rlMemoryTerms({
    model,
    group: options.group,
    generationBatch: options.generationBatch ?? ONE_MACHINE_DEFAULTS.generationBatch,
    maxSeqLen: options.maxSeqLen,
    lora: options.loraRank > 0,
  });
  const refusal = memoryRefusal(terms, totalmem());
  if (refusal !== undefined) throw new TrainInputError(refusal);
}

/** The library served in this process, for the rollouts. */
async function serveLibrary(options: TrainOptions): Promise<RunningServer> {
  let server: RunningServer;
  try {
    // No key: the in-process server is this run's own, on loopback; --api-key is for a --server.
    server = await serveInProcess({ library: options.library, cache: options.cache });
  } catch (error) {
    if (error instanceof MissingLibraryError) throw new TrainInputError(error.message);
    throw error;
  }
  options.log(`toolenv: serving ${options.library} in-process at ${server.url} (${server.tools} tools)`);
  return server;
}

async function checkServer(url: string, apiKey: string | undefined): Promise<void> {
  let response: Response;
  try {
    response = await fetchIdempotent(new URL('/healthz', url), {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    });
  } catch (error) {
    throw new TrainInputError(`--server ${url} does not answer: ${(error as Error).message}`);
  }
  if (!response.ok)
    throw new TrainInputError(`--server ${url}/healthz answered ${response.status}: not a ToolEnv server?`);
}

/** Most tool lookups in flight while checking a task file: enough to check thousands of ids in a second. */
const TOOL_CHECKS_IN_FLIGHT = 16;

/**
 * Every tool a task names (`reference_tools`, `tools`) is in the served library: a misspelled id would otherwise
 * surface as a 400 from the episode route steps into training, after the engine has loaded its model.
 */
async function checkTaskTools(
  server: string,
  apiKey: string | undefined,
  file: string,
  tasks: readonly TrainTask[],
): Promise<void> {
  const named = new Map<string, string>();
  for (const task of tasks)
    for (const id of [...(task.reference_tools ?? []), ...(task.tools ?? [])])
      if (!named.has(id)) named.set(id, task.id);
  const ids = [...named.keys()];
  const headers = apiKey ? { authorization: `Bearer ${apiKey}` } : undefined;
  const missing: string[] = [];
  for (let start = 0; start < ids.length; start += TOOL_CHECKS_IN_FLIGHT) {
    const batch = ids.slice(start, start + TOOL_CHECKS_IN_FLIGHT);
    const statuses = await Promise.all(
      batch.map(
        async (id) => (await fetch(new URL(`/v1/tools/${encodeURIComponent(id)}`, server), { headers })).status,
      ),
    );
    statuses.forEach((status, i) => {
      if (status === 404) missing.push(batch[i]!);
      else if (status !== 200)
        throw new TrainInputError(`${server}/v1/tools/${batch[i]} answered ${status} while checking --tasks ${file}`);
    });
  }
  if (missing.length === 0) return;
  const shown = missing.slice(0, 5).map((id) => `${JSON.stringify(id)} (task ${JSON.stringify(named.get(id))})`);
  const more = missing.length > shown.length ? ` and ${missing.length - shown.length} more` : '';
  throw new TrainInputError(
    `--tasks ${file}: ${missing.length} tool id(s) not in the served library: ${shown.join(', ')}${more}`,
  );
}

/** `count` tasks synthesized from the library into RUN/tasks.jsonl, as `toolenv tasks synth` makes them. */
async function synthesizeTasks(options: TrainOptions, file: string): Promise<TrainTask[]> {
  const { synthCommand } = await import('../tasks/synth/command.js');
  options.log(
    `toolenv: synthesizing ${options.count} tasks from ${options.library} (pass --tasks FILE to use your own)`,
  );
  await synthCommand({
    count: options.count,
    seed: options.seed,
    serverSeed: 0,
    minTools: 1,
    maxTools: 4,
    hard: false,
    library: options.library,
    out: file,
  });
  return readTrainTasks(file);
}

/**
 * `--data`: a chat-messages JSON Lines file, or a directory holding one as sft.jsonl (`toolenv sft generate --out`).
 */
function checkSftData(given: string): string {
  const file = existsSync(given) && statSync(given).isDirectory() ? join(given, 'sft.jsonl') : given;
  if (!existsSync(file)) throw new TrainInputError(`--data ${file}: no such file`);
  const lines = readFileSync(file, 'utf8').split('\n');
  let records = 0;
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let row: { messages?: unknown };
    try {
      row = JSON.parse(line) as { messages?: unknown };
    } catch {
      throw new TrainInputError(`--data ${file}:${i + 1}: not JSON`);
    }
    const messages = row.messages;
    if (!Array.isArray(messages) || !messages.some((m) => (m as { role?: unknown })?.role === 'assistant')) {
      throw new TrainInputError(
        `--data ${file}:${i + 1}: a record needs "messages": [{role, content}, …] with assistant turns`,
      );
    }
    records++;
  });
  if (records === 0) throw new TrainInputError(`--data ${file}: holds no conversations`);
  return file;
}

async function demonstrations(
  options: TrainOptions,
  server: string,
  tasksFile: string,
  out: string,
): Promise<DemonstrationSummary> {
  const tasks = readTrainTasks(tasksFile);
  options.log(
    `toolenv: demonstrations by the ${options.policy} policy ` +
      `over ${tasks.length} tasks (pass --data FILE to use your own)`,
  );
  const summary = await writeDemonstrations({
    server,
    apiKey: options.apiKey,
    policy: options.policy,
    tasks,
    episode: options.episode,
    concurrency: 4,
    out,
  });
  options.log(`toolenv: ${summary.kept} of ${summary.runs} runs solved, kept as SFT conversations in ${out}`);
  if (summary.kept === 0)
    throw new TrainError(
      `no demonstration solved its task (${summary.dropped.unsolved} unsolved, ${summary.dropped.failed} failed): ` +
        'pass --data FILE or other --tasks',
    );
  return summary;
}

/**
 * Runs the launch script with its output in RUN/engine.log (echoed with --verbose) and reports each finished
 * step; a line every LOG_INTERVAL_MS while a step runs. Ctrl-C stops the engine too.
 */
async function runEngine(launch: string, server: string, run: string, options: TrainOptions): Promise<void> {
  const logFile = join(run, 'engine.log');
  const log = createWriteStream(logFile);
  const env = {
    ...process.env,
    TOOLENV_URL: server,
    TRL_EXPERIMENTAL_SILENCE: '1',
    ...(options.apiKey ? { TOOLENV_API_KEY: options.apiKey } : {}),
  };
  const child = spawn('bash', [launch], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const stream of [child.stdout, child.stderr]) {
    stream.pipe(log, { end: false });
    if (options.verbose) stream.pipe(process.stderr, { end: false });
  }
  const stop = () => child.kill('SIGTERM');
  process.once('SIGINT', stop);
  const started = Date.now();
  let reported = 0;
  let lastLine = Date.now();
  const follow = () => {
    const logs = trainerLogs(run);
    const done = logs.filter((l) => typeof l.loss === 'number').reduce((most, l) => Math.max(most, l.step), 0);
    const records = readJsonLines<EpisodeRecord>(join(run, 'episodes'));
    const rows = options.stage === 'rl' ? stepMetrics(records, logs, started / 1000) : sftMetrics(logs, started / 1000);
    for (const row of rows.filter((r) => r.step > reported && r.step <= done)) {
      options.log(
        `toolenv: step ${row.step}/${options.steps || '?'} ${describe(row)} ` +
          `(${Math.round((Date.now() - started) / 1000)} s)`,
      );
      reported = row.step;
      lastLine = Date.now();
    }
    if (Date.now() - lastLine >= LOG_INTERVAL_MS) {
      const running = records.filter((r) => r.step > reported).length;
      const what =
        options.stage === 'rl' ? `: ${running} of ${options.promptsPerStep * options.group} episodes done` : '';
      options.log(
        `toolenv: step ${reported + 1}/${options.steps || '?'} running${what} ` +
          `(${Math.round((Date.now() - started) / 1000)} s)`,
      );
      lastLine = Date.now();
    }
  };
  const timer = setInterval(follow, 1000);
  try {
    const code = await new Promise<number | null>((done, fail) => {
      child.on('error', fail);
      child.on('close', (status) => done(status));
    });
    follow();
    if (code !== 0) {
      // The Python side says why in one line when it knows (no well-formed rollout, too few examples).
      // A progress bar may share its line or follow it (carriage returns): the reason is what follows the prefix.
      const said = tail(logFile, 5)
        .split('\n')
        .filter((line) => line.includes('toolenv: '))
        .at(-1);
      if (said !== undefined)
        throw new TrainError(said.slice(said.lastIndexOf('toolenv: ') + 'toolenv: '.length).trim());
      throw new TrainError(
        `the ${options.engine} engine exited with ${code ?? 'a signal'}; its log ends:\n${tail(logFile)}`,
      );
    }
  } finally {
    clearInterval(timer);
    process.off('SIGINT', stop);
    log.end();
  }
}

function metricsOf(stage: Stage, run: string, started: number): (StepMetrics | SftStepMetrics)[] {
  const logs = trainerLogs(run);
  return stage === 'rl'
    ? stepMetrics(readJsonLines<EpisodeRecord>(join(run, 'episodes')), logs, started / 1000)
    : sftMetrics(logs, started / 1000);
}

function describe(row: StepMetrics | SftStepMetrics): string {
  const n = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(3));
  if (!('episodes' in row)) return `loss ${n(row.loss)}`;
  return (
    `r_step ${n(row.r_step)} r_phase ${n(row.r_phase)} r_traj ${n(row.r_traj)} success ${n(row.success)} · ` +
    `${row.episodes} episodes, ${n(row.turns)} turns`
  );
}

function tail(file: string, lines = 15): string {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}
