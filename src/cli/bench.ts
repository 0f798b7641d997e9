import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultCacheFile, defaultLibraryDir } from '../paths.js';
import { choiceFlag, intFlag, numberFlag, observationFlag, printJson, printLine, systemPromptFlag } from './output.js';
import { ReportedFailure, UsageError } from '../terminal/errors.js';
import { workersFlag } from './workers.js';

interface BenchFlags {
  library: string;
  duration: string;
  connections: string;
  rolloutConnections: string;
  prism: boolean;
  build?: boolean;
  model?: string;
  gpu: string;
  workers: string;
  rounds: string;
  rollouts?: boolean;
  client?: boolean;
  turns: string;
  maxConnections?: string;
  episodes?: string;
  steps: string;
  learning?: boolean;
  learner: string;
  out?: string;
  seeds?: string;
  trainTasks: string;
  heldOut?: string;
  evaluateOn?: string;
  tools?: string;
  pool: string;
  k: string;
  checkpointEvery: string;
  curveTasks: string;
  protocols: string;
  size: string;
  copyCircuit?: boolean;
  base?: string;
  lora?: string;
  rlLoraLayers: string;
  sftEpochs: string;
  sftLr?: string;
  sftBatch: string;
  rlSteps?: string;
  rlGroup?: string;
  rlBatch?: string;
  rlLr?: string;
  rlTemperature: string;
  rlTasks: string;
  maxTurns?: string;
  maxTurnTokens: string;
  maxSeqLen: string;
  maxObservationChars: string;
  systemPrompt: string;
  cache: string;
  json?: boolean;
}

export function registerBench(program: Command): void {
  program
    .command('bench')
    .description(
      'benchmark: bare hono ceiling, cached tool calls, the REST surface and Stoplight Prism, in one run; startup ' +
        'and memory; --rollouts: actions inside concurrent episodes',
    )
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--duration <seconds>', 'seconds of load per target', '5')
    .option('--connections <n>', 'concurrent connections', '32')
    .option(
      '--rounds <n>',
      'rounds of the ceiling and call measurements, taken in turn; the best of each is reported',
      '3',
    )
    .option('--no-prism', 'skip Stoplight Prism')
    .option(
      '--build',
      'also build the default library into a temporary directory and report build time and peak memory',
    )
    .option(
      '--model <file>',
      'also measure model-backed calls with this GGUF at --parallel 1, 4 and 8 (e.g. `toolenv model tiny`)',
    )
    .option('--gpu <kind>', 'compute back-end for --model: auto, cuda, vulkan, cpu', 'auto')
    .option(
      '--workers <n>',
      'also measure the server and the ceiling with this many processes each (serve --workers), or auto (one per core)',
      '1',
    )
    .option(
      '--rollouts',
      'instead: episodes at rollout scale (JSON steps and text turns, ' +
        'cached and fresh arguments) beside the plain cached call',
    )
    .option(
      '--episodes <list>',
      'with --rollouts or --client: concurrent episodes of each scale, ' +
        'comma-separated (default 256,2048; --client 1024,4096)',
    )
    .option('--steps <n>', 'with --rollouts: steps (call turns) per episode, each of three calls', '8')
    .option(
      '--rollout-connections <n>',
      'with --rollouts: most connections the load generator opens; past it a scale interleaves its episodes over them',
      '2048',
    )
    .option(
      '--client',
      'instead: the Python client (AsyncToolEnvClient) ' +
        'driving --episodes concurrent episodes’ text turns against a served library',
    )
    .option('--turns <n>', 'with --client: text turns per episode (one search, then calls)', '3')
    .option('--max-connections <n>', 'with --client: the client’s connection pool (default the client’s, 100)')
    .option(
      '--learning',
      'instead: the learning benchmark: held-out success and rewards of a small policy before training, after SFT, ' +
        'after GRPO, over seeds (see docs/training.md)',
    )
    .option(
      '--learner <kind>',
      'with --learning: lm (a small language model: SFT, then GRPO with TRL) or linear (a log-linear policy, not a ' +
        'language model, trained by policy gradient from the server’s group advantages in minutes on a CPU; see ' +
        'docs/learner.md)',
      'lm',
    )
    .option(
      '--out <dir>',
      'with --learning: where every stage’s run directory goes (default runs/learning-<time>; linear: ' +
        'runs/learner-<time>, itself a studio run)',
    )
    .option('--seeds <list>', 'with --learning: recipe seeds, comma-separated (default 1,2,3; linear 1,2,3,4,5)')
    .option('--train-tasks <n>', 'with --learning: training tasks synthesized per seed', '600')
    .option(
      '--held-out <n>',
      'with --learning: evaluated tasks per seed, on APIs no training task uses (default 24; linear 200)',
    )
    .option(
      '--evaluate-on <side>',
      'with --learner lm: dev (APIs set aside for tuning) or test (the held-out APIs: read once per change, for the ' +
        'figure you report; default dev)',
    )
    .option('--tools <range>', 'with --learning: tools per task, N or MIN-MAX (default 1; linear 1-2)')
    .option('--pool <n>', 'with --learner linear: tasks synthesized once, split by API for every seed', '600')
    .option('--k <n>', 'with --learner linear: search results per query, the tools each choice is among', '5')
    .option('--checkpoint-every <n>', 'with --learner linear: training steps between the curve’s checkpoints', '4')
    .option(
      '--curve-tasks <n>',
      'with --learner linear: held-out tasks a checkpoint runs, spread over each seed’s',
      '50',
    )
    .option('--protocols <list>', 'with --learning: paraact, react or both (the paper’s comparison)', 'paraact')
    .option('--size <name>', 'with --learning: the policy, `model tiny-hf --size` (tiny or small)', 'small')
    .option(
      '--copy-circuit',
      'with --learning: the policy starts with the wired copy circuit (`model tiny-hf --copy-circuit`)',
    )
    .option(
      '--base <dir>',
      'with --learning: start from this pretrained Hugging Face model ' +
        '(`toolenv model smollm2`) instead of a from-scratch --size one',
    )
    .option(
      '--lora <rank>',
      'with --learning: rank of the low-rank adapters SFT and GRPO train, ' +
        '0 for every weight (default 16 with --base, else 0)',
    )
    .option('--sft-epochs <n>', 'with --learning: epochs over the demonstrations', '4')
    .option(
      '--sft-lr <rate>',
      'with --learning: SFT learning rate (default 1.5e-3 from scratch, ' +
        'far above the paper’s 1e-5; 2e-4 for adapters on --base)',
    )
    .option('--sft-batch <n>', 'with --learning: conversations per SFT step', '2')
    .option(
      '--rl-steps <n>',
      'with --learning: GRPO steps, 0 for base and SFT only (default 10; linear: policy-gradient steps, 16)',
    )
    .option('--rl-group <n>', 'with --learning: rollouts per prompt (default 4; linear too)')
    .option('--rl-batch <n>', 'with --learning: prompts per GRPO step (default 2; linear: groups per step, 8)')
    .option(
      '--rl-lr <rate>',
      'with --learning: GRPO learning rate (default 1e-4 from scratch, 2e-5 for adapters on --base; linear 2)',
    )
    .option(
      '--rl-temperature <t>',
      'with --learning: sampling temperature of the GRPO rollouts (a 135M ' +
        'policy that answers right greedily can fail every rollout at 1)',
      '1',
    )
    .option(
      '--rl-lora-layers <n>',
      'with --learning and --lora: GRPO’s adapters on the last N decoder blocks only (0: every block), where its ' +
        'backward pass stops; SFT adapts every block',
      '0',
    )
    .option(
      '--rl-tasks <n>',
      'with --learning: GRPO cycles through the first N training tasks (a multiple of --rl-batch; 0: all of them, ' +
        'drawn anew each step), so its curve compares the first epoch with the last on the same tasks',
      '0',
    )
    .option('--max-turns <n>', 'with --learning: turn cap of every episode (default 4; linear 5)')
    .option('--max-turn-tokens <n>', 'with --learning: most tokens of one message, in RL and evaluation alike', '256')
    .option('--max-seq-len <n>', 'with --learning: tokens of one sequence, in SFT, RL and evaluation alike', '4096')
    .option(
      '--max-observation-chars <n>',
      'with --learning: characters of one observation, in demonstrations, rollouts and evaluation alike',
      '1500',
    )
    .option(
      '--system-prompt <style>',
      'with --learning: the episodes’ system prompt in demonstrations, rollouts and evaluation alike: brief (~300 ' +
        'tokens: the recipe fine-tunes the policy on the protocol, and the full ~950-token prompt would be half of ' +
        'every sequence) or full',
      'brief',
    )
    .option('--cache <file>', 'with --learning: the in-process server’s response cache', defaultCacheFile())
    .option('--json', 'print the report as one JSON object (last stdout line)')
    .action(async (opts: BenchFlags) => {
      if (opts.rollouts) return rollouts(opts);
      if (opts.client) return client(opts);
      if (opts.learning && opts.learner === 'linear') return linearLearning(opts);
      if (opts.learning) return learning(opts);
      if (!['auto', 'cuda', 'vulkan', 'cpu'].includes(opts.gpu))
        throw new UsageError(`--gpu must be auto, cuda, vulkan or cpu, got ${JSON.stringify(opts.gpu)}`);
      // Loaded here: the load generator is a large import no other command needs.
      const { runBench } = await import('../bench/run.js');
      const report = await runBench({
        library: opts.library,
        durationSeconds: intFlag('--duration', opts.duration, { min: 1, max: 600 }),
        connections: intFlag('--connections', opts.connections, { min: 1, max: 1000 }),
        prism: opts.prism,
        build: opts.build ?? false,
        model: opts.model,
        gpu: opts.gpu as 'auto' | 'cuda' | 'vulkan' | 'cpu',
        workers: workersFlag(opts.workers),
        rounds: intFlag('--rounds', opts.rounds, { min: 1, max: 20 }),
        log: (line) => process.stderr.write(`${line}\n`),
      });
      if (opts.json) return printJson(report);
      const rows: [string, string][] = [
        ['library tools', String(report.library_tools)],
        ['library open', `${report.open_ms} ms`],
        ['server startup', `${report.startup_ms} ms`],
        ['idle RSS', `${report.rss_mb} MB`],
        ['RSS after load', `${report.rss_after_load_mb} MB`],
        ['ceiling (bare hono)', `${report.ceiling_rps} req/s`],
        ['ceiling, POST with body', `${report.ceiling_post_rps} req/s`],
        [
          'tool call (cached)',
          `${report.call_rps} req/s (${report.call_vs_ceiling} × ceiling, ` +
            `${report.call_vs_post_ceiling} × POST ceiling)`,
        ],
        ...(report.cluster
          ? ([
              [`ceiling, ${report.cluster.workers} processes`, `${report.cluster.ceiling_rps} req/s`],
              [
                `tool call, ${report.cluster.workers} workers`,
                `${report.cluster.call_rps} req/s (${report.cluster.call_vs_ceiling} × ceiling; startup ` +
                  `${report.cluster.startup_ms} ms, RSS ${report.cluster.rss_mb} MB)`,
              ],
            ] as [string, string][])
          : []),
        ['REST surface (cached)', `${report.rest_rps} req/s`],
        ['search p95 (k=3)', `${report.search_p95_ms} ms (batch of 8: ${report.search_batch8_ms} ms)`],
        [
          'Stoplight Prism',
          report.prism_rps === null ? 'skipped' : `${report.prism_rps} req/s (call is ${report.call_vs_prism} × Prism)`,
        ],
      ];
      if (report.build)
        rows.push([
          'library build',
          `${(report.build.duration_ms / 1000).toFixed(1)} s (CPU ${(report.build.cpu_ms / 1000).toFixed(1)} s), ` +
            `peak RSS ${report.build.peak_rss_mb} MB`,
        ]);
      for (const row of report.model?.rows ?? []) {
        rows.push([
          `model, parallel ${row.parallel}`,
          `${row.calls_per_s} calls/s, p50 ${row.p50_ms} ms, p95 ${row.p95_ms} ms, ${row.tokens_per_s} tokens/s`,
        ]);
      }
      for (const [label, value] of rows) printLine(`${label.padEnd(24)}${value}`);
    });
}

/** `bench --rollouts`: the rollout bench and its table. */
async function rollouts(opts: BenchFlags): Promise<void> {
  const episodes = episodeScales(opts.episodes ?? '256,2048');
  const { runRolloutBench } = await import('../bench/rollouts.js');
  const report = await runRolloutBench({
    library: opts.library,
    episodes,
    steps: intFlag('--steps', opts.steps, { min: 1, max: 100 }),
    connections: intFlag('--rollout-connections', opts.rolloutConnections, { min: 1, max: 10_000 }),
    actionsPerStep: 3,
    durationSeconds: intFlag('--duration', opts.duration, { min: 1, max: 600 }),
    rounds: intFlag('--rounds', opts.rounds, { min: 1, max: 20 }),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  // Measured scales are reported whatever happened at a larger one; the exit status says it failed.
  if (report.failed) process.exitCode = 1;
  if (opts.json) return printJson(report);
  if (report.failed) {
    const { episodes, workload, error, server_exited } = report.failed;
    printLine(`${episodes} episodes failed in ${workload}${server_exited ? ' (the server exited)' : ''}: ${error}`);
  }
  printLine(
    `tool ${report.tool}; ${report.steps} steps of ${report.actions_per_step} ` +
      `calls per episode; idle RSS ${report.idle_rss_mb} MB`,
  );
  for (const scale of report.scales) {
    printLine();
    printLine(
      `${scale.episodes} concurrent episodes over ${scale.connections} connections: steps ${scale.step_vs_call} × ` +
        `the plain call, turns ${scale.turns_vs_call} ×; fresh/cached step latency ${scale.fresh_step_vs_cached} ` +
        `(steps), ${scale.fresh_turn_vs_cached} (turns); RSS ${scale.rss_live_mb} MB live ` +
        `(${scale.rss_per_episode_kib} KiB an episode), heap ${scale.heap_live_mb} MB; ${scale.sweeps.count} ` +
        `expiry sweeps, ${scale.sweeps.mean_ms} ms each (${scale.sweeps.largest.ms} ms over ` +
        `${scale.sweeps.largest.visited} live episodes)`,
    );
    printLine(
      `${'workload'.padEnd(14)}${'actions/s'.padStart(11)}${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}` +
        `${'server µs/action'.padStart(18)}${'GC share'.padStart(10)}`,
    );
    for (const [name, row] of Object.entries(scale.workloads)) {
      printLine(
        `${name.padEnd(14)}${String(row.actions_per_s).padStart(11)}${String(row.step_p50_ms).padStart(10)}` +
          `${String(row.step_p99_ms).padStart(10)}${String(row.server_us_per_action ?? '').padStart(18)}` +
          `${String(row.gc_share ?? '').padStart(10)}`,
      );
    }
  }
}

function episodeScales(list: string): number[] {
  return list.split(',').map((part) => intFlag('--episodes', part, { min: 1, max: 100_000 }));
}

/** `bench --client`: the Python client at trainer scale and its table. */
async function client(opts: BenchFlags): Promise<void> {
  const { runClientBench } = await import('../bench/client.js');
  const report = await runClientBench({
    library: opts.library,
    episodes: episodeScales(opts.episodes ?? '1024,4096'),
    turns: intFlag('--turns', opts.turns, { min: 1, max: 50 }),
    ...(opts.maxConnections !== undefined
      ? { maxConnections: intFlag('--max-connections', opts.maxConnections, { min: 1, max: 10_000 }) }
      : {}),
    log: (line) => process.stderr.write(`toolenv: ${line}\n`),
  });
  if (opts.json) return printJson(report);
  printLine(
    `${report.client} client, ${report.max_connections ?? 100} connections; tool ${report.tool}; server RSS ` +
      `${report.server_rss_mb} MB after`,
  );
  printLine(
    `${'episodes'.padEnd(10)}${'create s'.padStart(10)}${'turns'.padStart(8)}${'turns/s'.padStart(10)}` +
      `${'p50 ms'.padStart(10)}${'p99 ms'.padStart(10)}`,
  );
  for (const s of report.scales) {
    printLine(
      `${String(s.episodes).padEnd(10)}${String(s.create_s).padStart(10)}${String(s.turns).padStart(8)}` +
        `${String(s.turns_per_s).padStart(10)}${String(s.turn_p50_ms).padStart(10)}` +
        `${String(s.turn_p99_ms).padStart(10)}`,
    );
  }
  printLine(`turns/s at the largest scale over the smallest: ${report.largest_vs_smallest}`);
}

/** `bench --learning`: the learning recipe over seeds and its table. */
async function learning(opts: BenchFlags): Promise<void> {
  if (opts.learner !== 'lm') {
    throw new UsageError(`--learner must be lm or linear, got ${JSON.stringify(opts.learner)}`);
  }
  const seeds = seedList(opts.seeds ?? '1,2,3');
  const tools = toolRange(opts.tools ?? '1');
  const protocols = opts.protocols.split(',').map((p) => p.trim());
  if (protocols.length === 0 || protocols.some((p) => p !== 'paraact' && p !== 'react'))
    throw new UsageError(`--protocols must be paraact, react or both, got ${JSON.stringify(opts.protocols)}`);
  if (opts.size !== 'tiny' && opts.size !== 'small')
    throw new UsageError(`--size must be tiny or small, got ${JSON.stringify(opts.size)}`);
  if (opts.base !== undefined && opts.copyCircuit)
    throw new UsageError('--copy-circuit wires a from-scratch model: it does not apply to --base');
  if (opts.base !== undefined && !existsSync(join(opts.base, 'config.json')))
    throw new UsageError(
      `--base ${opts.base}: no config.json there: not a Hugging Face ` +
        'model directory (`toolenv model smollm2 --out DIR` writes one)',
    );
  const lora = intFlag('--lora', opts.lora ?? (opts.base !== undefined ? '16' : '0'), { min: 0, max: 1024 });
  const rlLoraLayers = intFlag('--rl-lora-layers', opts.rlLoraLayers, { min: 0, max: 10_000 });
  if (rlLoraLayers > 0 && lora === 0)
    throw new UsageError('--rl-lora-layers places adapters: give their rank with --lora');
  const rlBatch = intFlag('--rl-batch', opts.rlBatch ?? '2', { min: 1, max: 1024 });
  const rlTasks = intFlag('--rl-tasks', opts.rlTasks, { min: 0, max: 100_000 });
  if (rlTasks % rlBatch !== 0)
    throw new UsageError(
      `--rl-tasks ${rlTasks} must be a multiple of --rl-batch ${rlBatch}: each epoch then visits every task once`,
    );
  const { runLearningBench, curveLine } = await import('../bench/learning.js');
  const report = await runLearningBench({
    library: opts.library,
    cache: opts.cache,
    out: opts.out ?? `runs/learning-${new Date().toISOString().replace(/[:.]/g, '-')}`,
    seeds,
    trainTasks: intFlag('--train-tasks', opts.trainTasks, { min: 1, max: 100_000 }),
    heldOut: intFlag('--held-out', opts.heldOut ?? '24', { min: 1, max: 10_000 }),
    evaluateOn: choiceFlag('--evaluate-on', opts.evaluateOn ?? 'dev', ['dev', 'test'] as const),
    tools,
    protocols: protocols as ('paraact' | 'react')[],
    size: opts.size,
    copyCircuit: opts.copyCircuit === true,
    ...(opts.base !== undefined ? { base: opts.base } : {}),
    lora,
    sft: {
      epochs: numberFlag('--sft-epochs', opts.sftEpochs, { min: 0.01, max: 100 }),
      lr: numberFlag('--sft-lr', opts.sftLr ?? (lora > 0 ? '2e-4' : '1.5e-3'), { min: 0, max: 1 }),
      batch: intFlag('--sft-batch', opts.sftBatch, { min: 1, max: 1024 }),
    },
    rl: {
      steps: intFlag('--rl-steps', opts.rlSteps ?? '10', { min: 0, max: 100_000 }),
      group: intFlag('--rl-group', opts.rlGroup ?? '4', { min: 2, max: 64 }),
      batch: rlBatch,
      lr: numberFlag('--rl-lr', opts.rlLr ?? (lora > 0 ? '2e-5' : '1e-4'), { min: 0, max: 1 }),
      temperature: numberFlag('--rl-temperature', opts.rlTemperature, { min: 0.01, max: 2 }),
      tasks: rlTasks,
      loraLayers: rlLoraLayers,
    },
    maxTurns: intFlag('--max-turns', opts.maxTurns ?? '4', { min: 1, max: 100 }),
    maxTurnTokens: intFlag('--max-turn-tokens', opts.maxTurnTokens, { min: 8 }),
    maxSeqLen: intFlag('--max-seq-len', opts.maxSeqLen, { min: 64 }),
    maxObservationChars: observationFlag(opts.maxObservationChars),
    systemPrompt: systemPromptFlag(opts.systemPrompt),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  // A failed stage is in the report and its table; the exit code says the recipe did not run through.
  const failed = report.failures.length > 0 ? new ReportedFailure(1) : undefined;
  if (opts.json) {
    printJson(report);
    if (failed) throw failed;
    return;
  }
  const pct = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
  const num = (v: number | null, d = 3) => (v === null ? '–' : v.toFixed(d));
  const m = report.model;
  const policy = m.base !== null ? m.base : `Qwen2 ${m.size}`;
  printLine(
    `${report.seeds.length} seed(s), ${report.held_out} ` +
      `${report.evaluated_on === 'test' ? 'held-out (test)' : 'dev'} tasks each on APIs no training task uses, ` +
      `policy ${policy} (${m.parameters} ` +
      `parameters${m.copy_circuit ? ', copy circuit wired' : ''}${m.lora > 0 ? `, LoRA rank ${m.lora}` : ''}); ` +
      `${Math.round(report.wall_s)} s; runs in ${report.out}`,
  );
  printLine(
    '| stage | success | ±sd | one-tool | well-formed | path | turns | actions/turn | R_step | R_phase | R_traj | ' +
      '±sd | copies | others | wall s | tokens/s |',
  );
  printLine('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const s of report.stages) {
    const name = protocols.length > 1 ? `${s.protocol} ${s.stage}` : s.stage;
    printLine(
      `| ${name} | ${pct(s.success)} | ${pct(s.spread.success)} | ${pct(s.success_1tool)} | ${pct(s.well_formed)} | ` +
        `${pct(s.path)} | ${num(s.turns, 2)} | ${num(s.actions_per_turn, 2)} | ${num(s.r_step)} | ${num(s.r_phase)} ` +
        `| ${num(s.r_traj)} | ${num(s.spread.r_traj)} | ${pct(s.copy_accuracy)} | ${pct(s.other_accuracy)} | ` +
        `${num(s.wall_s, 0)} | ${num(s.tokens_per_s, 0)} |`,
    );
  }
  for (const s of report.stages) {
    if (!s.curve) continue;
    printLine(`GRPO training rollouts${protocols.length > 1 ? ` (${s.protocol})` : ''}: ${curveLine(s.curve)}`);
  }
  printLine(
    'copies, others: held-out demonstrations read teacher-forced, ' +
      'the assistant tokens an induction head could copy and the rest, predicted right',
  );
  for (const failure of report.failures) printLine(`failed: ${failure}`);
  if (failed) throw failed;
}

function seedList(text: string): number[] {
  const parts = text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  const seeds = parts.map((part) => intFlag('--seeds', part, { min: 0 }));
  if (seeds.length === 0) throw new UsageError('--seeds needs at least one seed');
  return seeds;
}

function toolRange(text: string): { min: number; max: number } {
  const range = /^(\d)(?:-(\d))?$/.exec(text.trim());
  const tools = range ? { min: Number(range[1]), max: Number(range[2] ?? range[1]) } : undefined;
  if (!tools || tools.min < 1 || tools.max > 4 || tools.min > tools.max) {
    throw new UsageError(`--tools must be N or MIN-MAX within 1-4, got ${JSON.stringify(text)}`);
  }
  return tools;
}

/** `bench --learning --learner linear`: the log-linear reference learner, its control and baselines over seeds. */
async function linearLearning(opts: BenchFlags): Promise<void> {
  if (opts.evaluateOn !== undefined) {
    throw new UsageError(
      '--evaluate-on is for --learner lm: the linear learner has no dev side (its settings are fixed)',
    );
  }
  const steps = intFlag('--rl-steps', opts.rlSteps ?? '16', { min: 1, max: 10_000 });
  const { runLinearLearning } = await import('../bench/learner.js');
  const report = await runLinearLearning({
    library: opts.library,
    out: opts.out ?? `runs/learner-${new Date().toISOString().replace(/[:.]/g, '-')}`,
    seeds: seedList(opts.seeds ?? '1,2,3,4,5'),
    pool: intFlag('--pool', opts.pool, { min: 1, max: 100_000 }),
    heldOut: intFlag('--held-out', opts.heldOut ?? '200', { min: 1, max: 10_000 }),
    tools: toolRange(opts.tools ?? '1-2'),
    steps,
    // The control hands each group another group's advantages: a step needs two groups.
    batch: intFlag('--rl-batch', opts.rlBatch ?? '8', { min: 2, max: 1024 }),
    group: intFlag('--rl-group', opts.rlGroup ?? '4', { min: 2, max: 64 }),
    lr: numberFlag('--rl-lr', opts.rlLr ?? '2', { min: 0, max: 1000 }),
    k: intFlag('--k', opts.k, { min: 1, max: 10 }),
    maxTurns: intFlag('--max-turns', opts.maxTurns ?? '5', { min: 2, max: 100 }),
    checkpointEvery: intFlag('--checkpoint-every', opts.checkpointEvery, { min: 1, max: steps }),
    curveTasks: intFlag('--curve-tasks', opts.curveTasks, { min: 1, max: 10_000 }),
    log: (line) => process.stderr.write(`${line}\n`),
  });
  if (opts.json) {
    const held = (name: keyof typeof report.summary) => {
      const { success, r_traj, spread } = report.summary[name];
      return { success, r_traj, spread };
    };
    return printJson({
      learner: report.learner,
      wall_s: report.wall_s,
      seeds: report.seeds,
      episodes: report.episodes,
      heldout_tasks: report.heldout_tasks,
      heldout_apis_seen_in_training: report.heldout_apis_seen_in_training,
      untrained: held('untrained'),
      trained: held('trained'),
      control: held('control'),
      random: held('random'),
      heuristic: held('heuristic'),
      episodes_per_s: report.episodes_per_s,
      server_share: report.server_share,
      out: report.out,
    });
  }
  const { reportLines } = await import('../bench/learner-report.js');
  for (const line of reportLines(report)) printLine(line);
}
