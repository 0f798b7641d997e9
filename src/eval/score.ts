import type { AgentName, AgentRun, Finish } from '../agent/types.js';
import type { EvalTask } from './map-references.js';

/**
 * What decided success: the task's expected answer, the LLM judge, or the fallback rule (see scoreRun); `unscored`
 * when nothing can (no expected answer, no judge, no reference tool): success is then null and left out of the means.
 */
export type SuccessSource = 'answer' | 'state' | 'judge' | 'fallback' | 'unscored';

export interface Verdict {
  solved: boolean;
  reason: string;
}

/**
 * One task-run scored. Ratios over reference tools are null when the task names none. `path` and `coverage` count
 * every reference tool the task names, those missing from the library as misses (the paper's Tool-Path);
 * `path_mapped` and `coverage_mapped` count only the ones the library has.
 */
export interface TaskScore {
  task_id: string;
  agent: AgentName;
  /** 1-based. */
  run: number;
  episode_id: string | null;
  seed: number | null;
  /** Null when the task-run is unscored (success_by `unscored`). */
  success: boolean | null;
  success_by: SuccessSource;
  judge_reason?: string;
  /** Reference tools invoked successfully (a 2xx answer) at least once, as a fraction of the task's reference tools. */
  path: number | null;
  /** The same over the reference tools the library has. */
  path_mapped: number | null;
  /** Reference tools search surfaced, as a fraction of the task's reference tools. */
  coverage: number | null;
  /** The same over the reference tools the library has. */
  coverage_mapped: number | null;
  /** Calls that invoked a reference tool, as a fraction of all calls; null without calls. */
  hit_rate: number | null;
  /** Reference tools the task names. */
  references: number;
  /** Of those, the ones no library tool matched. */
  unmapped_references: number;
  turns: number;
  actions: number;
  actions_per_turn: number | null;
  /**
   * Turns the server found well-formed (its trajectory's `well_formed`): the protocol's tags, closed, a think first.
   */
  well_formed_turns: number;
  searches: number;
  calls: number;
  failed_calls: number;
  injected_errors: number;
  prompt_tokens: number;
  completion_tokens: number;
  tokens: number;
  wall_ms: number;
  finish: Finish;
  error?: string;
  /** The run finished but its trajectory could not be fetched: scored from the calls the agent client saw. */
  trajectory_error?: string;
  /**
   * The episode's rewards (Appendix C) as the server scored them; null when they could not be had or R_ans was flagged.
   */
  r_step: number | null;
  r_phase: number | null;
  r_traj: number | null;
  r_ans: number | null;
  /** Tasks with `expect`: the share of its assertions that held on the episode's world, and whether all did. */
  r_state?: number | null;
  state_success?: boolean | null;
  /** Why R_ans was not scored (a judge that failed, no way to score), or why the rewards are missing. */
  reward_flag?: string;
  answer?: string;
}

/** Rule-based success: the answer contains the expected string, or every expected string, ignoring case. */
export function answerContains(answer: string | undefined, expected: string | string[]): boolean {
  if (answer === undefined) return false;
  const text = answer.toLowerCase();
  return (Array.isArray(expected) ? expected : [expected]).every((part) => text.includes(part.toLowerCase()));
}

/** The task's reference tools: the mapped ids the agent is given, and how many references the library lacks. */
function references(eval_: EvalTask): { mapped: string[]; unmapped: number; total: number } {
  const mapped = eval_.task.reference_tools ?? [];
  const unmapped = eval_.mapping.filter((m) => m.id === undefined).length;
  return { mapped, unmapped, total: mapped.length + unmapped };
}

/**
 * What decides a task's success: its expected answer, else its world state (`expect`), else the judge (when one is
 * asked), else the fallback rule when there are reference tools to check.
 */
export function successSource(eval_: EvalTask, judged: boolean): SuccessSource {
  if (eval_.task.answer !== undefined) return 'answer';
  if (eval_.task.expect !== undefined) return 'state';
  if (judged) return 'judge';
  return references(eval_).total > 0 ? 'fallback' : 'unscored';
}

/**
 * Scores one run. Success is rule-based when the task has an expected answer; else, for a write task, every
 * assertion holding on the episode's world (state_success, as the server read it); else the judge's verdict when one
 * was asked; else the fallback: the agent answered and invoked every reference tool successfully — a reference the
 * library lacks cannot be invoked, so such a task never passes the fallback. A task with none of these is unscored.
 */
export function scoreRun(eval_: EvalTask, run: AgentRun, runIndex: number, verdict?: Verdict): TaskScore {
  const refs = references(eval_);
  const okTools = new Set(run.calls.filter((c) => c.ok).map((c) => c.tool));
  const surfaced = new Set(run.surfaced);
  const invoked = refs.mapped.filter((id) => okTools.has(id)).length;
  const found = refs.mapped.filter((id) => surfaced.has(id)).length;
  const path = ratio(invoked, refs.total);
  const refSet = new Set(refs.mapped);
  const answered = run.finish === 'answer' && (run.answer ?? '').trim() !== '';

  const success_by = successSource(eval_, verdict !== undefined);
  const success =
    success_by === 'answer'
      ? answered && answerContains(run.answer, eval_.task.answer!)
      : success_by === 'state'
        ? run.rewards?.state_success === true
        : success_by === 'judge'
          ? answered && verdict!.solved
          : success_by === 'fallback'
            ? answered && path === 1
            : null;

  const counts = run.trajectory?.counts;
  const score: TaskScore = {
    task_id: eval_.task.id,
    agent: run.agent,
    run: runIndex,
    episode_id: run.episode_id || null,
    seed: run.trajectory?.seed ?? run.seed ?? null,
    success,
    success_by,
    path,
    path_mapped: ratio(invoked, refs.mapped.length),
    coverage: ratio(found, refs.total),
    coverage_mapped: ratio(found, refs.mapped.length),
    hit_rate:
      refs.mapped.length === 0 || run.calls.length === 0
        ? null
        : run.calls.filter((c) => refSet.has(c.tool)).length / run.calls.length,
    references: refs.total,
    unmapped_references: refs.unmapped,
    turns: run.turns,
    actions: run.actions,
    actions_per_turn: run.turns === 0 ? null : run.actions / run.turns,
    well_formed_turns: (run.trajectory?.turns ?? []).filter((t) => t.well_formed).length,
    searches: counts?.searches ?? run.actions - run.calls.length,
    calls: run.calls.length,
    failed_calls: counts?.failed_calls ?? run.calls.filter((c) => !c.ok).length,
    injected_errors: counts?.injected_errors ?? run.calls.filter((c) => c.injected !== undefined).length,
    prompt_tokens: run.tokens.prompt,
    completion_tokens: run.tokens.completion,
    tokens: run.tokens.prompt + run.tokens.completion,
    wall_ms: run.wall_ms,
    finish: run.finish,
    r_step: run.rewards?.r_step ?? null,
    r_phase: run.rewards?.r_phase ?? null,
    r_traj: run.rewards?.r_traj ?? null,
    r_ans: run.rewards?.r_ans ?? null,
  };
  if (eval_.task.expect !== undefined) {
    score.r_state = run.rewards?.r_state ?? null;
    score.state_success = run.rewards?.state_success ?? null;
  }
  const flag = run.rewards ? run.rewards.flagged : run.rewards_error;
  if (flag !== undefined) score.reward_flag = flag;
  if (verdict && success_by === 'judge') score.judge_reason = verdict.reason;
  if (run.error !== undefined) score.error = run.error;
  if (run.trajectory_error !== undefined) score.trajectory_error = run.trajectory_error;
  if (run.answer !== undefined) score.answer = run.answer;
  return score;
}

/** A run that threw before it could report: a failure that reached no tool (unscored tasks stay unscored). */
export function failedScore(
  eval_: EvalTask,
  agent: AgentName,
  runIndex: number,
  error: string,
  wall_ms: number,
  seed: number | null,
  judged = false,
): TaskScore {
  const refs = references(eval_);
  const success_by = successSource(eval_, judged);
  return {
    task_id: eval_.task.id,
    agent,
    run: runIndex,
    episode_id: null,
    seed,
    success: success_by === 'unscored' ? null : false,
    success_by,
    path: ratio(0, refs.total),
    path_mapped: ratio(0, refs.mapped.length),
    coverage: ratio(0, refs.total),
    coverage_mapped: ratio(0, refs.mapped.length),
    hit_rate: null,
    references: refs.total,
    unmapped_references: refs.unmapped,
    turns: 0,
    actions: 0,
    actions_per_turn: null,
    well_formed_turns: 0,
    searches: 0,
    calls: 0,
    failed_calls: 0,
    injected_errors: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    tokens: 0,
    wall_ms,
    finish: 'error',
    error,
    r_step: null,
    r_phase: null,
    r_traj: null,
    r_ans: null,
    ...(eval_.task.expect !== undefined ? { r_state: null, state_success: null } : {}),
  };
}

function ratio(part: number, whole: number): number | null {
  return whole === 0 ? null : part / whole;
}
