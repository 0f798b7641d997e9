import { createWriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import { createPolicy } from '../agent/policies/create.js';
import { runAgent } from '../agent/run.js';
import type { AgentRun } from '../agent/types.js';
import type { EpisodeOptions } from './config.js';
import type { TrainTask } from './tasks.js';
import { episodeTask } from '../wire/episodes.js';

export interface DemonstrationOptions {
  server: string;
  apiKey?: string;
  policy: string;
  tasks: readonly TrainTask[];
  episode: EpisodeOptions;
  concurrency: number;
  out: string;
  onProgress?: (done: number, total: number) => void;
}

export interface DemonstrationSummary {
  runs: number;
  kept: number;
  /** Runs left out, by why: not solved (the rewards' success false or unscored), or the run failed. */
  dropped: { unsolved: number; failed: number };
  out: string;
}

/**
 * SFT data made by running a policy (the bundled heuristic by default) through the server's text turns: each
 * solved run (`success` in the server's rewards) becomes one chat-messages conversation — the system prompt, the
 * task, then the policy's messages and the observations ToolEnv answered, exactly what the episode took.
 */
export async function writeDemonstrations(options: DemonstrationOptions): Promise<DemonstrationSummary> {
  const policy = await createPolicy(options.policy);
  const out = createWriteStream(options.out);
  const summary: DemonstrationSummary = { runs: 0, kept: 0, dropped: { unsolved: 0, failed: 0 }, out: options.out };
  const queue = [...options.tasks];
  const worker = async (): Promise<void> => {
    for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
      const run = await runAgent({
        server: options.server,
        apiKey: options.apiKey,
        agent: (options.episode.protocol ?? 'paraact') as AgentRun['agent'],
        policy,
        task: episodeTask(task),
        ...(task.tools ? { tools: task.tools } : {}),
        ...(task.seed !== undefined ? { seed: task.seed } : {}),
        ...(options.episode.max_turns !== undefined ? { maxTurns: options.episode.max_turns } : {}),
        ...(options.episode.k !== undefined ? { k: options.episode.k } : {}),
        ...(options.episode.max_calls_per_turn !== undefined
          ? { maxCallsPerTurn: options.episode.max_calls_per_turn }
          : {}),
        ...(options.episode.error_rate !== undefined ? { errorRate: options.episode.error_rate } : {}),
        ...(options.episode.max_observation_chars !== undefined
          ? { maxObservationChars: options.episode.max_observation_chars }
          : {}),
        ...(options.episode.system_prompt !== undefined ? { systemPrompt: options.episode.system_prompt } : {}),
      });
      summary.runs++;
      if (run.finish === 'error' || !run.rewards) summary.dropped.failed++;
      else if (run.rewards.success !== true) summary.dropped.unsolved++;
      else {
        summary.kept++;
        const { r_step, r_phase, r_traj } = run.rewards;
        out.write(
          `${JSON.stringify({ messages: run.messages, task_id: task.id, seed: run.seed, r_step, r_phase, r_traj })}\n`,
        );
      }
      options.onProgress?.(summary.runs, options.tasks.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, options.tasks.length) }, worker));
  } finally {
    out.end();
    await finished(out);
  }
  return summary;
}
