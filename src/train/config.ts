import { join } from 'node:path';
import type { SystemPromptStyle } from '../wire/episodes.js';

export const ENGINES = ['trl', 'verl'] as const;
export type Engine = (typeof ENGINES)[number];
export const STAGES = ['rl', 'sft'] as const;
export type Stage = (typeof STAGES)[number];

/** The episode options every rollout of the run is created with (POST /v1/episodes members). */
export interface EpisodeOptions {
  protocol?: string;
  k?: number;
  max_calls_per_turn?: number;
  max_turns?: number;
  error_rate?: number;
  max_observation_chars?: number;
  system_prompt?: SystemPromptStyle;
}

/** `RUN/train.json`: everything the Python side reads (python/src/toolenv/run.py RunConfig mirrors it). */
export interface TrainJson {
  engine: Engine;
  stage: Stage;
  run_dir: string;
  model: string;
  server: string;
  steps: number;
  group: number;
  prompts_per_step: number;
  seed: number;
  tasks?: string;
  sft_data?: string;
  episode: EpisodeOptions;
  max_turn_tokens: number;
  max_completion_length: number;
  max_seq_len: number;
  /**
   * Rank of the low-rank adapters trained instead of every weight (peft on TRL, verl's lora_rank); 0: full fine-tuning.
   */
  lora_rank: number;
  /** Adapters on the last this-many decoder blocks only (0: every block): the backward pass stops there. TRL only. */
  lora_layers: number;
  /** TRL: rollouts generated together; a step's rollouts go through the model in chunks of this many. */
  generation_batch: number;
  /** Engine settings beyond the paper's defaults: TRL config keys, or verl's gpus/nodes and Hydra `overrides`. */
  trainer: Record<string, unknown>;
}

/** The paper's RL hyperparameters (D.3) where a flag leaves them: N = 8, batch 256, 15 turns; SFT lr 1e-5. */
export const PAPER_DEFAULTS = {
  group: 8,
  promptsPerStep: 256,
  maxTurns: 15,
  rlLearningRate: 1e-6,
  sftLearningRate: 1e-5,
} as const;

/**
 * TRL's RL defaults, one machine's: the paper's 256 prompts a step are a 16-GPU cluster's batch (2,048 rollouts), which
 * on one machine makes a first step look like a hang. 8 prompts × N = 8 is 64 rollouts, generated 16 at a time (a
 * 4,096-token prefill of 16 holds ~1.6 GB).
 */
export const ONE_MACHINE_DEFAULTS = { promptsPerStep: 8, generationBatch: 16 } as const;

/** The command line that runs the run's engine, as the launch script holds it. */
export function engineArgs(config: TrainJson): string[] {
  const file = join(config.run_dir, 'train.json');
  return config.engine === 'trl' ? ['-m', 'toolenv.trl', file] : ['-m', 'toolenv.verl', file];
}

/**
 * `RUN/launch.sh`: the exact command `toolenv train` runs, so a run can be relaunched (on a GPU node, under a
 * scheduler) without the CLI. TOOLENV_URL from the environment wins over the server the run was written for.
 */
export function launchScript(config: TrainJson, python: string): string {
  const quoted = [python, ...engineArgs(config)].map(shellQuote).join(' ');
  return [
    '#!/usr/bin/env bash',
    `# Written by \`toolenv train --engine ${config.engine} --stage ` +
      `${config.stage}\`: runs the engine on this run directory.`,
    'set -euo pipefail',
    `export TOOLENV_URL="\${TOOLENV_URL:-${config.server}}"`,
    `export TOOLENV_RUN=${shellQuote(config.run_dir)}`,
    `exec ${quoted} "$@"`,
    '',
  ].join('\n');
}

export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}
