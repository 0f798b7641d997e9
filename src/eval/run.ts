import type { AgentName, AgentRun, EpisodeBudgets, Policy, RunAgentOptions } from '../agent/types.js';
import { summarize, type AgentSummary } from './aggregate.js';
import type { EvalTask } from './map-references.js';
import { mapLimit } from './pool.js';
import { failedScore, scoreRun, type TaskScore, type Verdict } from './score.js';
import { episodeSeed } from './seed.js';

/** What `toolenv eval` runs; the budgets are each episode's (the chat agent's alone read `toolParser`). */
export interface RunEvalOptions extends EpisodeBudgets {
  server: string;
  apiKey?: string;
  agents: readonly AgentName[];
  policy: Policy;
  /** The agent client (src/agent's runAgent), passed in so that eval loads it only when it runs. */
  runAgent: (options: RunAgentOptions) => Promise<AgentRun>;
  tasks: readonly EvalTask[];
  /** Runs of every task per agent; default 1. */
  runs?: number;
  /** Task-runs in flight at once; default 4. */
  concurrency?: number;
  /**
   * Each task-run's episode seed is derived from (seed, task, run), unless the task has its own; without either the
   * server picks fresh ones.
   */
  seed?: number;
  /**
   * The judge the server scores answers with: a spec it is asked to use per request, or true for the server's own
   * (`serve --judge`).
   */
  judge?: string | true;
  /** Called with each finished task-run and its score (trajectory files are written here). */
  onRun?: (run: AgentRun | undefined, score: TaskScore) => void | Promise<void>;
  onProgress?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

export interface AgentResult {
  summary: AgentSummary;
  scores: TaskScore[];
}

export const DEFAULT_CONCURRENCY = 4;

/** Every task × run × agent through the agent client under a concurrency bound, each scored as it finishes. */
export async function runEval(options: RunEvalOptions): Promise<AgentResult[]> {
  const runs = options.runs ?? 1;
  // Agents interleaved task by task: a slow spell of the machine then falls on every agent alike, not on one.
  const jobs = Array.from({ length: runs }, (_, r) =>
    options.tasks.flatMap((task) => options.agents.map((agent) => ({ agent, run: r + 1, task }))),
  ).flat();
  let done = 0;
  options.onProgress?.(0, jobs.length);
  const scores = await mapLimit(
    jobs,
    options.concurrency ?? DEFAULT_CONCURRENCY,
    async ({ agent, run: index, task }) => {
      // A seed the task file gives wins over the derived one: the task was written for that episode, so its first run
      // meets exactly it; later runs derive from it, so that `--runs N` still samples N different rollouts.
      const seed =
        task.seed !== undefined
          ? index === 1
            ? task.seed
            : episodeSeed(task.seed, task.task.id, index)
          : options.seed === undefined
            ? undefined
            : episodeSeed(options.seed, task.task.id, index);
      const started = performance.now();
      const outcome = await options
        .runAgent({
          server: options.server,
          apiKey: options.apiKey,
          agent,
          policy: options.policy,
          task: task.task,
          tools: task.tools,
          maxTurns: options.maxTurns,
          k: options.k,
          seed,
          errorRate: options.errorRate,
          maxObservationChars: options.maxObservationChars,
          ...(options.systemPrompt !== undefined ? { systemPrompt: options.systemPrompt } : {}),
          ...(options.toolParser !== undefined && agent === 'chat' ? { toolParser: options.toolParser } : {}),
          ...(typeof options.judge === 'string' ? { judge: options.judge } : {}),
          signal: options.signal,
        })
        .then(
          (result) => ({ result }),
          (error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }),
        );
      const score =
        'result' in outcome
          ? scoreRun(
              task,
              outcome.result,
              index,
              options.judge === undefined ? undefined : verdictOf(task, outcome.result),
            )
          : failedScore(
              task,
              agent,
              index,
              outcome.error,
              Math.round(performance.now() - started),
              seed ?? null,
              options.judge !== undefined,
            );
      await options.onRun?.('result' in outcome ? outcome.result : undefined, score);
      options.onProgress?.(++done, jobs.length);
      return score;
    },
  );
  return options.agents.map((agent) => {
    const own = scores.filter((s) => s.agent === agent);
    return { summary: summarize(agent, own, runs), scores: own };
  });
}

/**
 * Success by the judge, from the verdicts the server's rewards carry (Appendix C.3): solved when the answer is
 * complete (Quality YES) and faithful (Faithfulness YES). Tasks with an expected answer or `expect` assertions are
 * scored by them instead.
 */
function verdictOf(task: EvalTask, run: AgentRun): Verdict | undefined {
  if (task.task.answer !== undefined || task.task.expect !== undefined) return undefined;
  if (run.finish !== 'answer' || (run.answer ?? '').trim() === '')
    return { solved: false, reason: 'the agent gave no answer' };
  const rewards = run.rewards;
  // A judge that fails leaves the run unsolved, with the reason on record, rather than losing the run's metrics.
  if (!rewards) return { solved: false, reason: `no rewards: ${run.rewards_error ?? 'not fetched'}` };
  if (rewards.answer_source !== 'judge' || !rewards.verdicts)
    return { solved: false, reason: rewards.flagged ?? `scored by ${rewards.answer_source}, not the judge` };
  const { quality, faithfulness, utility } = rewards.verdicts;
  return {
    solved: quality === 'YES' && faithfulness === 'YES',
    reason: `Q/F/U ${quality}/${faithfulness}/${utility}${rewards.judge?.reason ? `: ${rewards.judge.reason}` : ''}`,
  };
}
