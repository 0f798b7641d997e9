import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Protocol, SystemPromptStyle } from '../wire/episodes.js';
import type { EvalReport } from '../eval/report.js';
import { serveInProcess } from '../server/in-process.js';
import type { RunningServer } from '../server/serve.js';
import type { TinyHfSize } from '../model/tiny-hf.js';
import { epochSteps, linesOf, type SftStepMetrics, type StepMetrics } from '../train/metrics.js';

/**
 * `toolenv bench --learning`: one seeded recipe, end to end, that shows whether a policy learns on ToolEnv. Per seed:
 * training tasks and evaluated tasks (dev or test) on APIs the training tasks never use; cold-start demonstrations
 * (`sft generate`, offline roles) on the training tasks; a small model whose tokenizer is trained on them; the held-out
 * evaluation of the base, of the SFT checkpoint and of the GRPO checkpoint (TRL, ToolEnv's decoupled rewards). Every
 * stage leaves a run directory under `out` (the studio shows them: `serve --runs OUT`).
 */

export interface LearningOptions {
  library: string;
  cache: string;
  out: string;
  seeds: readonly number[];
  /** Training tasks synthesized per seed (demonstrations are the solved ones). */
  trainTasks: number;
  heldOut: number;
  /** The side evaluated: `dev` APIs while tuning, `test` APIs (held out) once per change. */
  evaluateOn: 'dev' | 'test';
  /** Tools per task, `N` or `MIN-MAX`. */
  tools: { min: number; max: number };
  protocols: readonly Protocol[];
  size: TinyHfSize;
  /** A pretrained Hugging Face model to start from instead of a from-scratch `size` model (`toolenv model smollm2`). */
  base?: string;
  /** Rank of the low-rank adapters SFT and GRPO train (0: every weight). */
  lora: number;
  /** The policy starts with the wired copy circuit (`model tiny-hf --copy-circuit`). */
  copyCircuit: boolean;
  sft: { epochs: number; lr: number; batch: number };
  /**
   * `tasks`: GRPO cycles through the first this-many training tasks (0: all of them), so its curve compares epochs of
   * the same tasks. `loraLayers`: GRPO's adapters on the last this-many decoder blocks only (0: all), where its
   * backward pass then stops; SFT adapts every block, its one forward pass a conversation being cheap beside GRPO's
   * rollouts.
   */
  rl: {
    steps: number;
    group: number;
    batch: number;
    lr: number;
    temperature: number;
    tasks: number;
    loraLayers: number;
  };
  maxTurns: number;
  maxTurnTokens: number;
  maxSeqLen: number;
  maxObservationChars: number;
  systemPrompt: SystemPromptStyle;
  log: (line: string) => void;
}

export interface StageResult {
  stage: 'base' | 'sft' | 'rl';
  protocol: Protocol;
  seed: number;
  success: number | null;
  success_1tool: number | null;
  well_formed: number | null;
  path: number | null;
  turns: number | null;
  actions_per_turn: number | null;
  r_step: number | null;
  r_phase: number | null;
  r_traj: number | null;
  /** Seconds of the stage: its training (none for the base) and its held-out evaluation. */
  wall_s: number;
  /**
   * Training tokens per second (SFT: tokens trained on; RL: tokens the policy sampled), else evaluation's generated
   * tokens.
   */
  tokens_per_s: number | null;
  /**
   * Teacher-forced on held-out demonstrations (`toolenv.probe`): assistant tokens an induction head could copy,
   * predicted right.
   */
  copy_accuracy: number | null;
  /** …and the other assistant tokens (templates, chosen words). */
  other_accuracy: number | null;
  /**
   * Why the stage has no numbers: its training failed (GRPO from a checkpoint that writes no turn the protocol
   * accepts).
   */
  error?: string;
  /** RL: the training rollouts' rewards over the GRPO steps, the first quarter of the steps against the last. */
  curve?: RewardCurve;
}

/** The reward curve an RL user reads first, in two numbers per reward: early steps against late ones. */
export interface RewardCurve {
  steps: number;
  /**
   * Steps averaged at each end: one epoch over the tasks when GRPO cycled through a fixed set, else a quarter of the
   * steps, at least one.
   */
  window: number;
  /**
   * Prompts (tasks) each end averages over: the window times the prompts per step. Few, and the ends differ by which
   * tasks were drawn.
   */
  prompts: number;
  /** Both ends are an epoch over the same tasks: the difference is training's, not the draw's. */
  same_tasks: boolean;
  first: CurvePoint;
  last: CurvePoint;
  /**
   * The whole curve: the mean of every window of steps in turn (every epoch, with the same tasks), a last partial one
   * left out.
   */
  points: CurvePoint[];
}

export interface CurvePoint {
  r_traj: number | null;
  r_step: number | null;
  success: number | null;
}

export interface StageSummary extends Omit<StageResult, 'seed'> {
  spread: { success: number | null; r_traj: number | null };
}

export interface LearningReport {
  wall_s: number;
  seeds: number[];
  /** The side the stages were evaluated on: `dev` (for tuning) or `test` (held-out APIs, read once per change). */
  evaluated_on: 'dev' | 'test';
  held_out: number;
  /** Evaluated APIs that some training task of the same seed uses, over all seeds: 0 by construction. */
  heldout_apis_seen_in_training: number;
  train_tasks: number;
  demonstrations: number[];
  /** The policy: a from-scratch `size` model, or `base`, a pretrained one; `lora` the adapters' rank (0: full). */
  model: { size: TinyHfSize | null; base: string | null; parameters: number; copy_circuit: boolean; lora: number };
  stages: StageSummary[];
  runs: StageResult[];
  /** Stages that failed, as `seed N STAGE: why`; the command exits 1 when there are any. */
  failures: string[];
  out: string;
}

const METRICS = [
  'success',
  'success_1tool',
  'well_formed',
  'path',
  'turns',
  'actions_per_turn',
  'r_step',
  'r_phase',
  'r_traj',
  'wall_s',
  'tokens_per_s',
  'copy_accuracy',
  'other_accuracy',
] as const;

export async function runLearningBench(options: LearningOptions): Promise<LearningReport> {
  const started = Date.now();
  const out = resolve(options.out);
  mkdirSync(out, { recursive: true });
  const server = await serveInProcess({ library: options.library, cache: options.cache });
  options.log(`toolenv: bench --learning: serving ${options.library} in-process at ${server.url}; runs under ${out}`);
  const runs: StageResult[] = [];
  const demonstrations: number[] = [];
  let parameters = 0;
  let seen = 0;
  try {
    for (const seed of options.seeds) {
      for (const protocol of options.protocols) {
        const dir = join(out, options.protocols.length > 1 ? `${protocol}-seed-${seed}` : `seed-${seed}`);
        const recipe = await runRecipe(options, server, dir, seed, protocol);
        runs.push(...recipe.stages);
        demonstrations.push(recipe.demonstrations);
        parameters = recipe.parameters;
        seen += recipe.seen;
      }
    }
  } finally {
    await server.close();
  }
  const report: LearningReport = {
    wall_s: Math.round((Date.now() - started) / 100) / 10,
    seeds: [...options.seeds],
    evaluated_on: options.evaluateOn,
    held_out: options.heldOut,
    heldout_apis_seen_in_training: seen,
    train_tasks: options.trainTasks,
    demonstrations,
    model: {
      size: options.base === undefined ? options.size : null,
      base: options.base ?? null,
      parameters,
      copy_circuit: options.base === undefined && options.copyCircuit,
      lora: options.lora,
    },
    stages: summarizeStages(runs),
    runs,
    failures: runs
      .filter((r) => r.error !== undefined)
      .map((r) => `seed ${r.seed} ${r.protocol} ${r.stage}: ${r.error}`),
    out,
  };
  writeFileSync(join(out, 'learning.json'), `${JSON.stringify(report, null, 2)}\n`);
  return report;
}

interface Recipe {
  stages: StageResult[];
  demonstrations: number;
  parameters: number;
  /** Evaluated APIs some training task uses (0). */
  seen: number;
}

async function runRecipe(
  options: LearningOptions,
  server: RunningServer,
  dir: string,
  seed: number,
  protocol: Protocol,
): Promise<Recipe> {
  mkdirSync(dir, { recursive: true });
  const log = (line: string) =>
    options.log(`toolenv: seed ${seed}${options.protocols.length > 1 ? ` ${protocol}` : ''}: ${line}`);
  const { trainFile, heldOutFile, heldOut, apis, seen } = await splitTasks(options, dir, seed);
  log(`${heldOut} ${options.evaluateOn} tasks on ${apis} APIs no training task uses`);

  const { generateColdStart } = await import('../coldstart/generate.js');
  const { readGenerationTasks } = await import('../coldstart/tasks.js');
  // Offline roles (the heuristic's): the solved and accepted trajectories of a task file.
  const demonstrate = (tasks: string, out: string) =>
    generateColdStart({
      tasks: readGenerationTasks(tasks),
      roles: { planner: 'offline', executor: 'offline', critic: 'offline', answerer: 'offline' },
      model: { temperature: 0.7, maxTokens: 2048 },
      concurrency: 4,
      server: server.url,
      out: join(dir, out),
      maxRounds: 12,
      errorRate: 0,
      maxTurns: options.maxTurns,
      maxObservationChars: options.maxObservationChars,
      systemPrompt: options.systemPrompt,
      seed,
    });
  const demos = await demonstrate(trainFile, 'demonstrations');
  log(`${demos.accepted} of ${demos.tasks} cold-start trajectories accepted as demonstrations`);
  if (demos.accepted === 0) throw new Error(`seed ${seed}: no cold-start trajectory was accepted: nothing to train on`);
  // Demonstrations of the held-out tasks, never trained on: each stage is read against them, teacher-forced.
  const probeDemos = await demonstrate(heldOutFile, 'heldout-demonstrations');

  const base = await baseModel(options, dir, seed, demos.files.sft);
  log(
    `base model: ${base.name}, ${base.parameters} parameters${options.lora > 0 ? `, LoRA rank ${options.lora}` : ''}`,
  );

  const evaluateStage = async (
    stage: StageResult['stage'],
    model: string,
    train?: { wall_s: number; tokens_per_s: number | null },
  ): Promise<StageResult> => {
    const t0 = Date.now();
    const report = await evaluateHeldOut(
      options,
      server.url,
      model,
      heldOutFile,
      join(dir, `eval-${stage}`),
      protocol,
      seed,
    );
    const evalWall = (Date.now() - t0) / 1000;
    const probed =
      probeDemos.accepted > 0 ? await probeCheckpoint(model, probeDemos.files.sft, options.maxSeqLen) : undefined;
    const result = stageResult(
      stage,
      protocol,
      seed,
      report,
      (train?.wall_s ?? 0) + evalWall,
      train ? train.tokens_per_s : generatedPerSecond(report, evalWall),
      probed,
    );
    log(
      `${stage}: held-out success ${pct(result.success)} (one-tool ${pct(result.success_1tool)}), well-formed ` +
        `${pct(result.well_formed)}, R_traj ${num(result.r_traj)}, demonstration tokens predicted: copies ` +
        `${pct(result.copy_accuracy)}, others ${pct(result.other_accuracy)}, ${Math.round(result.wall_s)} s`,
    );
    return result;
  };

  const stages = [await evaluateStage('base', base.dir)];
  const { train } = await import('../train/run.js');
  const common = {
    engine: 'trl' as const,
    server: server.url,
    library: options.library,
    cache: options.cache,
    count: 0,
    policy: 'heuristic',
    seed,
    maxTurnTokens: options.maxTurnTokens,
    maxSeqLen: options.maxSeqLen,
    loraRank: options.lora,
    maxCompletionLength: options.maxSeqLen,
    dryRun: false,
    verbose: false,
    batchGiven: true,
    episode: {
      protocol,
      max_turns: options.maxTurns,
      error_rate: 0,
      max_observation_chars: options.maxObservationChars,
      system_prompt: options.systemPrompt,
    },
    log: (line: string) => log(line.replace(/^toolenv: /, '')),
  };
  const sftDemos = linesOf<unknown>(demos.files.sft).length;
  const sftSteps = Math.max(1, Math.ceil((sftDemos * options.sft.epochs) / options.sft.batch));
  const sft = await train({
    ...common,
    stage: 'sft',
    model: base.dir,
    out: join(dir, 'train-sft'),
    data: demos.files.sft,
    steps: sftSteps,
    group: 1,
    promptsPerStep: options.sft.batch,
    trainer: { learning_rate: options.sft.lr },
  });
  stages.push(await evaluateStage('sft', sft.checkpoint!, trainThroughput(sft.run, 'sft', sft.wall_s ?? 0)));
  // `--rl-steps 0`: base and SFT only, the language model's measure where GRPO cannot be afforded (a CPU).
  if (options.rl.steps === 0) return { stages, demonstrations: demos.accepted, parameters: base.parameters, seen };

  const { TrainError } = await import('../train/run.js');
  const rlTasks =
    options.rl.tasks > 0 ? firstTasks(trainFile, options.rl.tasks, join(dir, 'tasks-rl.jsonl')) : trainFile;
  try {
    const rl = await train({
      ...common,
      stage: 'rl',
      model: sft.checkpoint!,
      out: join(dir, 'train-rl'),
      tasks: rlTasks,
      steps: options.rl.steps,
      group: options.rl.group,
      promptsPerStep: options.rl.batch,
      loraLayers: options.rl.loraLayers,
      trainer: { learning_rate: options.rl.lr, temperature: options.rl.temperature, beta: 0 },
    });
    const result = await evaluateStage('rl', rl.checkpoint!, trainThroughput(rl.run, 'rl', rl.wall_s ?? 0));
    result.curve = rewardCurve(
      linesOf<StepMetrics>(join(rl.run, 'metrics.jsonl')),
      options.rl.batch,
      options.rl.tasks > 0 ? linesOf<unknown>(rlTasks).length : undefined,
    );
    log(`rl: training rollouts: ${curveLine(result.curve)}`);
    stages.push(result);
  } catch (error) {
    // GRPO refusing an SFT checkpoint that writes no accepted turn is a finding of the benchmark: reported, not lost.
    if (!(error instanceof TrainError)) throw error;
    log(`rl: failed: ${error.message}`);
    stages.push({ ...emptyStage('rl', protocol, seed), error: error.message });
  }
  return { stages, demonstrations: demos.accepted, parameters: base.parameters, seen };
}

/** The first `count` tasks of a task file, written to `out`: the fixed set GRPO cycles through. */
function firstTasks(file: string, count: number, out: string): string {
  const lines = readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  if (lines.length < count)
    throw new Error(`--rl-tasks ${count}: ${file} holds ${lines.length} training tasks: pass more --train-tasks`);
  writeFileSync(out, `${lines.slice(0, count).join('\n')}\n`);
  return out;
}

/** The policy every seed starts from: the pretrained `base` as given, or a from-scratch model written for the seed. */
async function baseModel(
  options: LearningOptions,
  dir: string,
  seed: number,
  corpus: string,
): Promise<{ dir: string; name: string; parameters: number }> {
  if (options.base !== undefined) {
    const { safetensorsParameters } = await import('../model/safetensors.js');
    return { dir: resolve(options.base), name: resolve(options.base), parameters: safetensorsParameters(options.base) };
  }
  const { writeTinyHfModel } = await import('../model/tiny-hf.js');
  const written = await writeTinyHfModel(join(dir, 'model'), seed, options.size, corpus, options.copyCircuit);
  return {
    dir: written.dir,
    name: `Qwen2 ${written.size}, vocabulary ${written.vocab}${written.copy_circuit ? ', copy circuit wired' : ''}`,
    parameters: written.parameters,
  };
}

/** Shares of the pool's APIs (`splitByApi`): half tested, a fifth for tuning (dev), the rest trained on. */
const TEST_SHARE = 0.5;
const DEV_SHARE = 0.2;

/**
 * One pool of tasks, its APIs split three ways by a seeded hash (`splitByApi`): the evaluated tasks lie on the test
 * APIs (or, with `evaluateOn: 'dev'`, on the dev APIs, which tuning reads so that the test side is looked at once per
 * change), the training tasks on the rest, a task that mixes sides is left out. The score measures the protocol
 * learned, not APIs remembered.
 */
async function splitTasks(
  options: LearningOptions,
  dir: string,
  seed: number,
): Promise<{ trainFile: string; heldOutFile: string; heldOut: number; apis: number; seen: number }> {
  const { synthCommand } = await import('../tasks/synth/command.js');
  const { readPool, splitByApi } = await import('./learner-tasks.js');
  const poolFile = join(dir, 'tasks-pool.jsonl');
  const side = options.evaluateOn === 'test' ? TEST_SHARE : DEV_SHARE;
  await synthCommand({
    // Room for both ends with a quarter to spare: tasks on more than one API fall between sides more often.
    count: Math.ceil(1.25 * (options.trainTasks / (1 - TEST_SHARE - DEV_SHARE) + options.heldOut / side)),
    seed,
    serverSeed: 0,
    minTools: options.tools.min,
    maxTools: options.tools.max,
    hard: false,
    library: options.library,
    out: poolFile,
  });
  const lines = readFileSync(poolFile, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
  const split = splitByApi(readPool(poolFile, options.library), seed, options.heldOut, {
    devShare: DEV_SHARE,
    on: options.evaluateOn,
  });
  const lineOf = (task: { line: number }) => lines[task.line - 1]!;
  const trainFile = join(dir, 'tasks-train.jsonl');
  const heldOutFile = join(dir, 'tasks-heldout.jsonl');
  writeFileSync(trainFile, `${split.train.slice(0, options.trainTasks).map(lineOf).join('\n')}\n`);
  writeFileSync(heldOutFile, `${split.heldOut.map(lineOf).join('\n')}\n`);
  return {
    trainFile,
    heldOutFile,
    heldOut: split.heldOut.length,
    apis: split.heldOutApis,
    seen: split.heldOutApisSeenInTraining,
  };
}

async function evaluateHeldOut(
  options: LearningOptions,
  server: string,
  model: string,
  tasks: string,
  out: string,
  protocol: Protocol,
  seed: number,
): Promise<EvalReport> {
  const { evaluate } = await import('../eval/evaluate.js');
  return evaluate({
    tasks,
    server,
    library: options.library,
    policy: `hf:${model}`,
    policyOptions: { maxSeqLen: options.maxSeqLen, maxTokens: options.maxTurnTokens, temperature: 0, seed },
    agents: [protocol],
    concurrency: 16,
    maxTurns: options.maxTurns,
    errorRate: 0,
    maxObservationChars: options.maxObservationChars,
    systemPrompt: options.systemPrompt,
    seed,
    out,
  });
}

interface ProbeResult {
  copy: { accuracy: number | null };
  other: { accuracy: number | null };
}

/** `python -m toolenv.probe`: the checkpoint read teacher-forced against held-out demonstrations. */
async function probeCheckpoint(model: string, conversations: string, maxSeqLen: number): Promise<ProbeResult> {
  const { execFile } = await import('node:child_process');
  const { promisify } = await import('node:util');
  const { missingPython, pythonExecutable } = await import('../python.js');
  const python = pythonExecutable();
  if (python === undefined) throw new Error(missingPython());
  const { stdout } = await promisify(execFile)(
    python,
    ['-m', 'toolenv.probe', '--model', model, '--max-seq-len', String(maxSeqLen), conversations],
    { maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as ProbeResult;
}

function stageResult(
  stage: StageResult['stage'],
  protocol: Protocol,
  seed: number,
  report: EvalReport,
  wall_s: number,
  tokens_per_s: number | null,
  probed?: ProbeResult,
): StageResult {
  const summary = report.results[0]!.summary;
  const s = summary.stats;
  return {
    stage,
    protocol,
    seed,
    success: s.success.mean,
    success_1tool: summary.by_tools['1']?.success ?? null,
    well_formed: s.well_formed.mean,
    path: s.path.mean,
    turns: s.turns.mean,
    actions_per_turn: s.actions_per_turn.mean,
    r_step: s.r_step.mean,
    r_phase: s.r_phase.mean,
    r_traj: s.r_traj.mean,
    wall_s: Math.round(wall_s * 10) / 10,
    tokens_per_s,
    copy_accuracy: probed?.copy.accuracy ?? null,
    other_accuracy: probed?.other.accuracy ?? null,
  };
}

/**
 * The mean training rewards at both ends of the GRPO steps. GRPO over a fixed set of `tasks` (a multiple of the prompts
 * per step) visits every task once an epoch: after two epochs or more, the ends are the first epoch and the last whole
 * one, the same tasks at both, so they differ by what training did. Otherwise each end is a quarter of the steps, on
 * tasks drawn anew.
 */
export function rewardCurve(rows: readonly StepMetrics[], promptsPerStep: number, tasks?: number): RewardCurve {
  const epoch = tasks === undefined ? undefined : epochSteps(tasks, promptsPerStep, rows.length);
  if (epoch !== undefined) {
    const points = windows(rows, epoch);
    return {
      steps: rows.length,
      window: epoch,
      prompts: tasks!,
      same_tasks: true,
      first: points[0]!,
      last: points.at(-1)!,
      points,
    };
  }
  const window = Math.max(1, Math.floor(rows.length / 4));
  return {
    steps: rows.length,
    window,
    prompts: window * promptsPerStep,
    same_tasks: false,
    first: meanPoint(rows.slice(0, window)),
    last: meanPoint(rows.slice(-window)),
    points: windows(rows, window),
  };
}

/** The mean of each whole window of `size` steps, in order. */
function windows(rows: readonly StepMetrics[], size: number): CurvePoint[] {
  return Array.from({ length: Math.floor(rows.length / size) }, (_, i) =>
    meanPoint(rows.slice(i * size, (i + 1) * size)),
  );
}

/** Prompts at each end of the curve below which it reads which tasks were drawn more than what the policy learned. */
export const FEW_CURVE_PROMPTS = 8;

/** The curve as one line: each reward early against late, and how many prompts each end stands on. */
export function curveLine(curve: RewardCurve): string {
  const { first, last } = curve;
  const rewards =
    `R_traj ${num(first.r_traj)} → ${num(last.r_traj)}, R_step ${num(first.r_step)} → ${num(last.r_step)}, success ` +
    `${pct(first.success)} → ${pct(last.success)}`;
  if (curve.same_tasks)
    return (
      `${rewards} (the first epoch against the last of ${curve.steps} steps: the same ${curve.prompts} tasks, ` +
      `${curve.window} step${curve.window === 1 ? '' : 's'} each); by epoch: R_traj ` +
      `${curve.points.map((p) => num(p.r_traj)).join(', ')}; success ` +
      `${curve.points.map((p) => pct(p.success)).join(', ')}`
    );
  const few =
    curve.prompts < FEW_CURVE_PROMPTS
      ? ': too few to tell learning from which tasks were drawn; the held-out stages are the measure'
      : '';
  return (
    `${rewards} (mean of the first and the last ${curve.window} of ${curve.steps} steps, ${curve.prompts} ` +
    `prompt${curve.prompts === 1 ? '' : 's'} each${few})`
  );
}

/** Each reward's mean over steps (or over seeds' curve ends). */
function meanPoint(points: readonly CurvePoint[]): CurvePoint {
  return {
    r_traj: round(mean(points.map((p) => p.r_traj))),
    r_step: round(mean(points.map((p) => p.r_step))),
    success: round(mean(points.map((p) => p.success))),
  };
}

function emptyStage(stage: StageResult['stage'], protocol: Protocol, seed: number): StageResult {
  const none = {
    success: null,
    success_1tool: null,
    well_formed: null,
    path: null,
    turns: null,
    actions_per_turn: null,
    r_step: null,
    r_phase: null,
    r_traj: null,
    copy_accuracy: null,
    other_accuracy: null,
  };
  return { stage, protocol, seed, ...none, wall_s: 0, tokens_per_s: null };
}

function generatedPerSecond(report: EvalReport, seconds: number): number | null {
  const scores = report.results[0]!.scores;
  const tokens = scores.reduce((sum, s) => sum + s.completion_tokens, 0);
  return seconds > 0 ? Math.round(tokens / seconds) : null;
}

/**
 * A training run's throughput from its metrics.jsonl: SFT's tokens trained on, RL's tokens sampled, per second of the
 * run.
 */
function trainThroughput(
  run: string,
  stage: 'sft' | 'rl',
  wall_s: number,
): { wall_s: number; tokens_per_s: number | null } {
  const rows = linesOf<SftStepMetrics & StepMetrics>(join(run, 'metrics.jsonl'));
  const tokens = stage === 'sft' ? (rows.at(-1)?.tokens ?? 0) : rows.reduce((sum, r) => sum + (r.tokens ?? 0), 0);
  return { wall_s, tokens_per_s: wall_s > 0 && tokens > 0 ? Math.round(tokens / wall_s) : null };
}

/**
 * Per stage (and protocol): each metric's mean over seeds; the spread is the sample standard deviation across seeds.
 */
export function summarizeStages(runs: readonly StageResult[]): StageSummary[] {
  const keys = [...new Set(runs.map((r) => `${r.protocol}\u0000${r.stage}`))];
  return keys.map((key) => {
    const [protocol, stage] = key.split('\u0000') as [Protocol, StageResult['stage']];
    const rows = runs.filter((r) => r.protocol === protocol && r.stage === stage && r.error === undefined);
    const summary = { stage, protocol } as StageSummary;
    for (const metric of METRICS)
      (summary as unknown as Record<string, number | null>)[metric] = round(mean(rows.map((r) => r[metric])));
    summary.spread = { success: round(std(rows.map((r) => r.success))), r_traj: round(std(rows.map((r) => r.r_traj))) };
    const curves = rows.flatMap((r) => (r.curve ? [r.curve] : []));
    if (curves.length > 0) {
      // Each seed's ends stand on their own prompts: the mean stands on all of them.
      const length = Math.min(...curves.map((c) => c.points.length));
      const points = Array.from({ length }, (_, i) => meanPoint(curves.map((c) => c.points[i]!)));
      summary.curve = {
        steps: curves[0]!.steps,
        window: curves[0]!.window,
        prompts: curves.reduce((n, c) => n + c.prompts, 0),
        same_tasks: curves.every((c) => c.same_tasks),
        first: meanPoint(curves.map((c) => c.first)),
        last: meanPoint(curves.map((c) => c.last)),
        points,
      };
    }
    return summary;
  });
}

function known(values: readonly (number | null)[]): number[] {
  return values.filter((v): v is number => v !== null && Number.isFinite(v));
}

function mean(values: readonly (number | null)[]): number | null {
  const k = known(values);
  return k.length === 0 ? null : k.reduce((a, b) => a + b, 0) / k.length;
}

function std(values: readonly (number | null)[]): number | null {
  const k = known(values);
  if (k.length < 2) return null;
  const m = k.reduce((a, b) => a + b, 0) / k.length;
  return Math.sqrt(k.reduce((a, b) => a + (b - m) ** 2, 0) / (k.length - 1));
}

function round(value: number | null): number | null {
  return value === null ? null : Math.round(value * 1e4) / 1e4;
}

const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
const num = (v: number | null) => (v === null ? '–' : v.toFixed(3));
