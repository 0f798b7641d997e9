import { EpisodeClient } from '../agent/episode-client.js';
import { runAgent } from '../agent/run.js';
import type { Policy, RunAgentOptions } from '../agent/types.js';
import type { Tool } from '../library/tool.js';
import { episodeTask } from '../wire/episodes.js';
import type { EvalTask } from '../eval/map-references.js';
import { mapLimit } from '../eval/pool.js';
import { scoreRun, type TaskScore } from '../eval/score.js';
import type { LinearAgent } from './agent.js';
import type { Decision } from './linear.js';

/** What every episode of a learner run shares: the server, the ParaAct budgets, the tool records fetched so far. */
export interface EpisodeSettings {
  server: string;
  k: number;
  maxTurns: number;
  records: Map<string, Tool>;
}

/** One training rollout: the decisions taken, the server's advantage for them, and how the episode went. */
export interface Rollout {
  decisions: readonly Decision[];
  /** Null when the server flagged the episode's rewards (then it teaches nothing). */
  advantage: number | null;
  r_traj: number | null;
  success: boolean;
  /** Why the run ended early, when it failed (a turn the server never answered): its decisions stop there. */
  error?: string;
}

/**
 * One group (`POST /v1/groups`: the task's episodes under the task's seed), an agent in each, their text turns run
 * together; then the group's advantages (`GET /v1/groups/{id}/advantages`, Eq. 7 on the server) are read and the
 * group deleted: what a trainer without an estimator of its own does.
 */
export async function rolloutGroup(
  settings: EpisodeSettings,
  task: EvalTask,
  agents: readonly LinearAgent[],
): Promise<Rollout[]> {
  const client = new EpisodeClient(settings.server);
  const group = await client.group({ n: agents.length, ...episodeConfig(settings, task) });
  try {
    const runs = await Promise.all(
      group.episodes.map((episode, i) => runAgent({ ...runOptions(settings, task, agents[i]!), episode })),
    );
    const advantages = new Map((await client.advantages(group.id)).episodes.map((e) => [e.id, e]));
    return runs.map((run, i) => {
      const scored = advantages.get(run.episode_id);
      return {
        decisions: agents[i]!.decisions,
        advantage: scored?.advantage ?? null,
        r_traj: scored?.r_traj ?? null,
        success: scoreRun(task, run, 1).success === true,
        ...(run.error !== undefined ? { error: run.error } : {}),
      };
    });
  } finally {
    await client.deleteGroup(group.id).catch(() => undefined);
  }
}

/** Each task once under `policyFor(task)`, `concurrency` at a time, scored as `toolenv eval` scores a run. */
export function evaluate(
  settings: EpisodeSettings,
  tasks: readonly EvalTask[],
  policyFor: (task: EvalTask) => Policy,
  concurrency: number,
): Promise<TaskScore[]> {
  return mapLimit(tasks, concurrency, async (task) => {
    const run = await runAgent({ ...runOptions(settings, task, policyFor(task)), seed: task.seed, errorRate: 0 });
    return scoreRun(task, run, 1);
  });
}

/** What every run of the learner's is given: a ParaAct agent on the task, the shared budgets and tool records. */
function runOptions(settings: EpisodeSettings, task: EvalTask, policy: Policy): RunAgentOptions {
  const { server, maxTurns, k, records } = settings;
  return { server, agent: 'paraact', policy, task: task.task, maxTurns, k, records };
}

/** The episode options a group is made with: the ones `runAgent` makes its own episodes with, no injected errors. */
function episodeConfig(settings: EpisodeSettings, task: EvalTask) {
  return {
    task: episodeTask(task.task),
    protocol: 'paraact' as const,
    k: settings.k,
    max_turns: settings.maxTurns,
    max_steps: settings.maxTurns,
    error_rate: 0,
    ...(task.seed !== undefined ? { seed: task.seed } : {}),
  };
}
