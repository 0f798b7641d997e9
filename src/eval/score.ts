import type { AgentName, AgentRun, Finish } from '../agent/types.js';
import type { EvalTask } from './map-references.js';

/** What decided success: the task's expected answer, the LLM judge, or the fallback rule (see scoreRun). */
export type SuccessSource = 'answer' | 'judge' | 'fallback';

export interface Verdict {
  solved: boolean;
  reason: string;
}

/** One task-run scored. Ratios over reference tools are null when the task has none in the library. */
export interface TaskScore {
  task_id: string;
  agent: AgentName;
  /** 1-based. */
  run: number;
  episode_id: string | null;
  seed: number | null;
  success: boolean;
  success_by: SuccessSource;
  judge_reason?: string;
  /** Reference tools invoked successfully (a 2xx answer) at least once, as a fraction of the task's reference tools. */
  path: number | null;
  /** Reference tools search surfaced, as a fraction of the task's reference tools. */
  coverage: number | null;
  /** Calls that invoked a reference tool, as a fraction of all calls; null without calls. */
  hit_rate: number | null;
  references: number;
  turns: number;
  actions: number;
  actions_per_turn: number | null;
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
  answer?: string;
}

/** Rule-based success: the answer contains the expected string, or every expected string, ignoring case. */
export function answerContains(answer: string | undefined, expected: string | string[]): boolean {
  if (answer === undefined) return false;
  const text = answer.toLowerCase();
  return (Array.isArray(expected) ? expected : [expected]).every((part) => text.includes(part.toLowerCase()));
}

/**
 * Scores one run. Success is rule-based when the task has an expected answer; else the judge's verdict when one
 * was asked; else the fallback: the agent answered and invoked every reference tool successfully (a task without
 * reference tools then only needs an answer).
 */
export function scoreRun(eval_: EvalTask, run: AgentRun, runIndex: number, verdict?: Verdict): TaskScore {
  const refs = eval_.task.reference_tools ?? [];
  const okTools = new Set(run.calls.filter((c) => c.ok).map((c) => c.tool));
  const surfaced = new Set(run.surfaced);
  const path = refs.length === 0 ? null : refs.filter((id) => okTools.has(id)).length / refs.length;
  const coverage = refs.length === 0 ? null : refs.filter((id) => surfaced.has(id)).length / refs.length;
  const refSet = new Set(refs);
  const answered = run.finish === 'answer' && (run.answer ?? '').trim() !== '';

  let success: boolean;
  let success_by: SuccessSource;
  if (eval_.task.answer !== undefined) {
    success = answered && answerContains(run.answer, eval_.task.answer);
    success_by = 'answer';
  } else if (verdict) {
    success = answered && verdict.solved;
    success_by = 'judge';
  } else {
    success = answered && (path === null || path === 1);
    success_by = 'fallback';
  }

  const counts = run.trajectory?.counts;
  const score: TaskScore = {
    task_id: eval_.task.id,
    agent: run.agent,
    run: runIndex,
    episode_id: run.episode_id || null,
    seed: run.trajectory?.seed ?? null,
    success,
    success_by,
    path,
    coverage,
    hit_rate: refs.length === 0 || run.calls.length === 0 ? null : run.calls.filter((c) => refSet.has(c.tool)).length / run.calls.length,
    references: refs.length,
    turns: run.turns,
    actions: run.actions,
    actions_per_turn: run.turns === 0 ? null : run.actions / run.turns,
    searches: counts?.searches ?? run.actions - run.calls.length,
    calls: run.calls.length,
    failed_calls: counts?.failed_calls ?? run.calls.filter((c) => !c.ok).length,
    injected_errors: counts?.injected_errors ?? 0,
    prompt_tokens: run.tokens.prompt,
    completion_tokens: run.tokens.completion,
    tokens: run.tokens.prompt + run.tokens.completion,
    wall_ms: run.wall_ms,
    finish: run.finish,
  };
  if (verdict && success_by === 'judge') score.judge_reason = verdict.reason;
  if (run.error !== undefined) score.error = run.error;
  if (run.answer !== undefined) score.answer = run.answer;
  return score;
}

/** A run that threw before it could report: a failure that reached no tool. */
export function failedScore(eval_: EvalTask, agent: AgentName, runIndex: number, error: string, wall_ms: number, seed: number | null): TaskScore {
  const refs = eval_.task.reference_tools ?? [];
  return {
    task_id: eval_.task.id,
    agent,
    run: runIndex,
    episode_id: null,
    seed,
    success: false,
    success_by: eval_.task.answer !== undefined ? 'answer' : 'fallback',
    path: refs.length === 0 ? null : 0,
    coverage: refs.length === 0 ? null : 0,
    hit_rate: null,
    references: refs.length,
    turns: 0,
    actions: 0,
    actions_per_turn: null,
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
  };
}
