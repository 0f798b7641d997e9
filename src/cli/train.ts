import { Option, type Command } from 'commander';
import { MAX_K } from '../protocol/protocol.js';
import { defaultCacheFile, defaultLibraryDir } from '../paths.js';
import {
  intFlag,
  numberFlag,
  observationFlag,
  printJson,
  printLine,
  SYSTEM_PROMPT_HELP,
  systemPromptFlag,
} from './output.js';
import { UsageError } from '../terminal/errors.js';
import { ONE_MACHINE_DEFAULTS, PAPER_DEFAULTS } from '../train/config.js';

interface TrainFlags {
  engine: string;
  stage: string;
  model?: string;
  tasks?: string;
  count: string;
  data?: string;
  policy: string;
  server?: string;
  library: string;
  cache: string;
  apiKey?: string;
  out?: string;
  steps?: string;
  group: string;
  batch?: string;
  generationBatch: string;
  seed: string;
  lr?: string;
  maxTurns: string;
  k?: string;
  maxCallsPerTurn?: string;
  errorRate?: string;
  maxTurnTokens: string;
  maxResponseTokens: string;
  maxSeqLen: string;
  lora: string;
  loraLayers: string;
  maxObservationChars: string;
  systemPrompt: string;
  gpus: string;
  nodes: string;
  set: string[];
  dryRun?: boolean;
  verbose?: boolean;
  json?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

export function registerTrain(program: Command): void {
  program
    .command('train')
    .description(
      'train a policy on ToolEnv: RL with the paper’s rewards and decoupled advantages, or SFT on ParaAct ' +
        'conversations, on TRL (one machine) or verl (GPUs)',
    )
    .addOption(
      new Option('--engine <name>', 'RL engine that runs the gradient steps').choices(['trl', 'verl']).default('trl'),
    )
    .addOption(
      new Option('--stage <name>', 'rl (GRPO with ToolEnv’s rewards) or sft (cold start on conversations)')
        .choices(['rl', 'sft'])
        .default('rl'),
    )
    .option('--model <dir>', 'Hugging Face model directory to start from (`toolenv model tiny-hf` writes a tiny one)')
    .option(
      '--tasks <file>',
      'task file in ToolEnv’s own JSON Lines (default: --count tasks synthesized from the library)',
    )
    .option('--count <n>', 'tasks to synthesize when no --tasks is given', '64')
    .option(
      '--data <file>',
      'sft: chat-messages JSON Lines ({"messages": [...]}); default: demonstrations by --policy over the tasks',
    )
    .option(
      '--policy <spec>',
      'sft: what writes the demonstrations (heuristic, openai:MODEL@URL, gguf:FILE); solved runs are kept',
      'heuristic',
    )
    .option('--server <url>', 'ToolEnv server the rollouts run against (default: serve --library in this process)')
    .option('--library <dir>', 'library of the in-process server', defaultLibraryDir())
    .option('--cache <file>', 'response cache of the in-process server', defaultCacheFile())
    .addOption(new Option('--api-key <key>', 'ToolEnv server API key').env('TOOLENV_API_KEY'))
    .option('--out <dir>', 'run directory (default runs/<engine>-<stage>-<time>)')
    .option('--steps <n>', 'optimizer steps (default: rl 128, the paper’s; sft 3 epochs over the data, the paper’s)')
    .option('--group <n>', 'rollouts per prompt (GRPO group, N)', '8')
    .option(
      '--batch <n>',
      'prompts per step (rl: trl 8, sized to one machine; verl 256, ' +
        'the paper’s; at most the tasks) or conversations per step (sft, default 8)',
    )
    .option(
      '--generation-batch <n>',
      'rl on trl: rollouts generated at once (a step’s rollouts go ' +
        'through the model in chunks of this many; memory grows with it)',
      String(ONE_MACHINE_DEFAULTS.generationBatch),
    )
    .option('--seed <n>', 'training and synthesis seed', '0')
    .option('--lr <rate>', 'learning rate (default rl 1e-6, sft 1e-5, the paper’s)')
    .option('--max-turns <n>', 'turn cap of every episode', '15')
    .option('--k <n>', 'search results per query (server default 3)')
    .option('--max-calls-per-turn <n>', 'calls one turn may run (server default 3)')
    .option('--error-rate <r>', 'injected-error rate of every episode (default the server’s)')
    .option('--max-turn-tokens <n>', 'most tokens the model writes in one turn', '1024')
    .option(
      '--max-response-tokens <n>',
      'most tokens of a whole rollout after the prompt (model and observations)',
      '8192',
    )
    .option(
      '--max-seq-len <n>',
      'most tokens of one sequence: an SFT conversation is cut there, an RL rollout stops there (prompt included)',
      '4096',
    )
    .option(
      '--max-observation-chars <n>',
      'characters of one observation the server renders, ' +
        'in demonstrations and rollouts alike (past it, shrunk and marked)',
      '2048',
    )
    .option('--system-prompt <style>', SYSTEM_PROMPT_HELP, 'full')
    .option(
      '--lora <rank>',
      'train low-rank adapters of this rank on every linear layer instead of all weights (0: full fine-tuning); for ' +
        'pretrained bases such as `model smollm2`; the checkpoint holds them merged',
      '0',
    )
    .option(
      '--lora-layers <n>',
      'with --lora, on TRL: adapters on the last N decoder blocks only, so the backward pass stops there ' +
        '(SmolLM2-135M: 8 of 30 blocks, 2.7x faster a step); 0 for every block',
      '0',
    )
    .option('--gpus <n>', 'verl: GPUs per node', '8')
    .option('--nodes <n>', 'verl: nodes', '1')
    .option(
      '--set <key=value>',
      'engine setting beyond the defaults, repeatable: a TRL config key (value as JSON), or a verl Hydra override',
      collect,
      [],
    )
    .option('--dry-run', 'write RUN (train.json, launch.sh) and print the engine command; start and run nothing')
    .option('--verbose', 'echo the engine’s output (always in RUN/engine.log)')
    .option('--json', 'print the summary as one JSON line')
    .action(async (flags: TrainFlags) => {
      if (flags.model === undefined)
        throw new UsageError(
          '--model DIR is required (a Hugging Face model directory; ' +
            '`toolenv model tiny-hf --out DIR` writes a tiny one)',
        );
      if (flags.server !== undefined && !/^https?:\/\/[^\s/]+/.test(flags.server))
        throw new UsageError(`--server must be an http(s) URL, got ${JSON.stringify(flags.server)}`);
      const { existsSync } = await import('node:fs');
      if (!flags.dryRun && !existsSync(flags.model)) throw new UsageError(`--model ${flags.model}: no such directory`);
      const engine = flags.engine as 'trl' | 'verl';
      const stage = flags.stage as 'rl' | 'sft';
      if (stage === 'rl' && flags.data !== undefined)
        throw new UsageError('--data is for --stage sft: RL rolls out on --tasks');
      if (engine === 'verl' && stage === 'sft')
        throw new UsageError(
          '--stage sft runs on TRL (--engine trl); ' +
            'verl’s SFT trainer takes the same sft.jsonl through its own launcher',
        );
      const rlBatch = engine === 'trl' ? ONE_MACHINE_DEFAULTS.promptsPerStep : PAPER_DEFAULTS.promptsPerStep;
      const batch =
        flags.batch === undefined
          ? stage === 'rl'
            ? rlBatch
            : 8
          : intFlag('--batch', flags.batch, { min: 1, max: 100_000 });
      const generationBatch = intFlag('--generation-batch', flags.generationBatch, { min: 1, max: 4096 });
      const group = intFlag('--group', flags.group, { min: 1, max: 64 });
      if (stage === 'rl' && group < 2)
        throw new UsageError('--group must be at least 2: group-relative advantages compare rollouts of one prompt');
      const loraRank = intFlag('--lora', flags.lora, { min: 0, max: 1024 });
      const loraLayers = intFlag('--lora-layers', flags.loraLayers, { min: 0, max: 10_000 });
      if (loraLayers > 0 && loraRank === 0)
        throw new UsageError('--lora-layers places adapters: give their rank with --lora');
      if (loraLayers > 0 && engine === 'verl')
        throw new UsageError(
          '--lora-layers is TRL’s: verl adapts every linear layer it targets (set ' +
            'actor_rollout_ref.model.target_modules with --set)',
        );
      const steps =
        flags.steps === undefined
          ? stage === 'rl'
            ? 128
            : 0
          : intFlag('--steps', flags.steps, { min: 1, max: 1_000_000 });
      const trainer: Record<string, unknown> = {};
      if (flags.lr !== undefined) trainer.learning_rate = numberFlag('--lr', flags.lr, { min: 0, max: 1 });
      if (engine === 'verl') {
        trainer.gpus = intFlag('--gpus', flags.gpus, { min: 1, max: 1024 });
        trainer.nodes = intFlag('--nodes', flags.nodes, { min: 1, max: 1024 });
        trainer.overrides = flags.set;
        if (flags.lr !== undefined)
          trainer.overrides = [`actor_rollout_ref.actor.optim.lr=${trainer.learning_rate}`, ...flags.set];
        delete trainer.learning_rate;
      } else Object.assign(trainer, parseSettings(flags.set));
      const episode = {
        max_turns: intFlag('--max-turns', flags.maxTurns, { min: 1, max: 100 }),
        ...(flags.k !== undefined ? { k: intFlag('--k', flags.k, { min: 1, max: MAX_K }) } : {}),
        ...(flags.maxCallsPerTurn !== undefined
          ? { max_calls_per_turn: intFlag('--max-calls-per-turn', flags.maxCallsPerTurn, { min: 1, max: 64 }) }
          : {}),
        ...(flags.errorRate !== undefined
          ? { error_rate: numberFlag('--error-rate', flags.errorRate, { min: 0, max: 1 }) }
          : {}),
        max_observation_chars: observationFlag(flags.maxObservationChars),
        system_prompt: systemPromptFlag(flags.systemPrompt),
      };
      const out = flags.out ?? `runs/${engine}-${stage}-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      const [{ train, TrainInputError }, { TaskFileError }] = await Promise.all([
        import('../train/run.js'),
        import('../eval/tasks.js'),
      ]);
      let summary;
      try {
        summary = await train({
          engine,
          stage,
          model: flags.model,
          out,
          tasks: flags.tasks,
          count: intFlag('--count', flags.count, { min: 1, max: 1_000_000 }),
          data: flags.data,
          policy: flags.policy,
          server: flags.server,
          library: flags.library,
          cache: flags.cache,
          apiKey: flags.apiKey,
          steps,
          group: stage === 'rl' ? group : 1,
          promptsPerStep: batch,
          seed: intFlag('--seed', flags.seed, { min: 0 }),
          episode,
          maxTurnTokens: intFlag('--max-turn-tokens', flags.maxTurnTokens, { min: 1 }),
          maxCompletionLength: intFlag('--max-response-tokens', flags.maxResponseTokens, { min: 1 }),
          maxSeqLen: intFlag('--max-seq-len', flags.maxSeqLen, { min: 64 }),
          loraRank,
          loraLayers,
          generationBatch,
          batchGiven: flags.batch !== undefined,
          trainer,
          dryRun: flags.dryRun === true,
          verbose: flags.verbose === true,
          log: (line) => process.stderr.write(`${line}\n`),
        });
      } catch (error) {
        if (error instanceof TrainInputError || error instanceof TaskFileError) throw new UsageError(error.message);
        throw error;
      }
      if (flags.json) printJson(summary);
      else if (flags.dryRun) {
        printLine(`wrote ${summary.run}/train.json and ${summary.run}/launch.sh; the engine command:`);
        printLine(summary.command.join(' '));
      } else {
        const m = summary.metrics;
        printLine(
          `${summary.run}: ${summary.steps} step(s); checkpoint ${summary.checkpoint ?? '(none saved)'}; metrics.jsonl`,
        );
        if (m && 'episodes' in m)
          printLine(
            `last step: r_step ${m.r_step} r_phase ${m.r_phase} r_traj ${m.r_traj} success ` +
              `${m.success}${m.loss !== undefined ? ` loss ${m.loss}` : ''}`,
          );
        else if (m) printLine(`last step: loss ${m.loss}`);
      }
    });
}

/** `--set key=value` for TRL: the value as JSON when it parses (numbers, booleans, lists), else as a string. */
function parseSettings(settings: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const setting of settings) {
    const eq = setting.indexOf('=');
    if (eq <= 0) throw new UsageError(`--set wants key=value, got ${JSON.stringify(setting)}`);
    const value = setting.slice(eq + 1);
    try {
      out[setting.slice(0, eq)] = JSON.parse(value);
    } catch {
      out[setting.slice(0, eq)] = value;
    }
  }
  return out;
}
