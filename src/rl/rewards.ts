import { renderCall } from '../protocol/render.js';
import { MAX_NATIVE_TOOLS, type Observation, type Trajectory, type TurnRecord } from '../wire/episodes.js';
import { type AnswerReward, answerReward, NO_ANSWER_REWARD, pattern, ruleVerdicts } from './answer.js';
import type { AnswerJudge, JudgeInput, JudgeOutcome } from './judge.js';
import { JudgeError } from './judge-error.js';
import { phaseScores, type SubgraphSource } from './phase.js';
import { stepReward } from './step.js';
import { DEFAULT_COEFFICIENTS, type RewardCoefficients, type Verdicts } from '../wire/rewards.js';
import type { AnswerSource, Rewards, StateCheck } from '../wire/schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type { AnswerSource, Rewards } from '../wire/schema-types.js';

/**
 * What a trajectory's rewards are computed from: the summary members, steps and turns `GET /v1/episodes/{id}` answers.
 */
export type ScoredTrajectory = Pick<Trajectory, 'task' | 'answer' | 'turns' | 'steps' | 'reward'> &
  Partial<Pick<Trajectory, 'protocol' | 'tools' | 'native_tools' | 'state_checks'>>;

/** Why a chat trajectory has no R_step. */
export const CHAT_STEP_NOTE =
  'not defined for the chat protocol: R_step scores plans ' +
  'against the controller (Table 8), and chat turns carry no plan';

export interface AnswerOutcome {
  source: AnswerSource;
  r_ans: AnswerReward | null;
  verdicts?: Verdicts;
  judge?: JudgedOutcome;
  flagged?: string;
}

export interface AnswerOptions {
  /** Verdicts the caller gives (replays, tests): scored as given. */
  verdicts?: Verdicts;
  judge?: AnswerJudge;
  /**
   * Judgements kept per judge name, in flight or done, so that a finished episode is judged once and always scores the
   * same.
   */
  memo?: Map<string, Promise<JudgedOutcome>>;
}

/**
 * R_ans and where it came from (C.3). First that applies: no final answer (−0.5); verdicts given; an
 * information-seeking task (one with reference tools or an expected answer) answered with no successful call
 * (−0.5); the task's expected answer, by rule (answer.ts); a task with `expect` alone, by its world state
 * (stateVerdicts); the judge, asked once more on the inconsistent 110. A judge that fails, or no way to score, is
 * flagged rather than scored.
 */
export async function answerOutcome(trajectory: ScoredTrajectory, options: AnswerOptions = {}): Promise<AnswerOutcome> {
  const answer = trajectory.answer;
  if (answer === undefined) return { source: 'missing', r_ans: NO_ANSWER_REWARD };
  if (options.verdicts)
    return { source: 'verdicts', r_ans: answerReward(options.verdicts), verdicts: options.verdicts };
  const task = trajectory.task;
  const okCalls = trajectory.turns.flatMap((t) => t.calls).filter((c) => c.ok);
  const seeking = (task?.reference_tools?.length ?? 0) > 0 || task?.answer !== undefined;
  if (seeking && okCalls.length === 0) return { source: 'no_evidence', r_ans: NO_ANSWER_REWARD };
  if (task?.answer !== undefined) {
    const verdicts = ruleVerdicts(task.answer, answer, evidence(trajectory));
    return { source: 'rule', r_ans: answerReward(verdicts), verdicts };
  }
  if (task?.expect !== undefined && trajectory.state_checks !== undefined) {
    const verdicts = stateVerdicts(trajectory.state_checks);
    return { source: 'state', r_ans: answerReward(verdicts), verdicts };
  }
  const judge = options.judge;
  if (!judge)
    return {
      source: 'unscored',
      r_ans: null,
      flagged:
        'no way to score the answer: the task has no expected answer, no verdicts were given, and no judge is ' +
        'configured (serve --judge, or POST {"judge": "openai:MODEL@URL"})',
    };
  let judged = options.memo?.get(judge.name);
  if (!judged) {
    // Concurrent requests share the one judgement (bounded by the judge's own timeouts, not by any one request's
    // connection); a failed one is not kept, so a later request asks again.
    judged = judgeOnce(judge, judgeInput(trajectory, answer));
    options.memo?.set(judge.name, judged);
    judged.catch(() => options.memo?.delete(judge.name));
  }
  try {
    const outcome = await judged;
    return { source: 'judge', r_ans: answerReward(outcome.verdicts), verdicts: outcome.verdicts, judge: outcome };
  } catch (error) {
    if (!(error instanceof JudgeError)) throw error;
    return { source: 'judge', r_ans: null, flagged: `the judge failed: ${error.message}` };
  }
}

type JudgedOutcome = JudgeOutcome & { rejudged?: boolean };

/**
 * The verdicts a write task's world gives, as the rule reads an answer: Quality, every assertion holds; Utility, some
 * does; Faithfulness, yes, the server having read the world itself. So a full solve is 111 (1.5), a partial one 011
 * (0.5), none 010 (−0.5): the same ladder as an expected answer's.
 */
function stateVerdicts(checks: readonly StateCheck[]): Verdicts {
  const held = checks.filter((c) => c.held).length;
  return {
    quality: held === checks.length ? 'YES' : 'NO',
    faithfulness: 'YES',
    utility: held > 0 ? 'YES' : 'NO',
  };
}

/** One judgement; the inconsistent 110 is asked once more and the second answer kept. */
async function judgeOnce(judge: AnswerJudge, input: JudgeInput): Promise<JudgedOutcome> {
  const outcome = await judge.judge(input);
  return pattern(outcome.verdicts) === '110' ? { ...(await judge.judge(input)), rejudged: true } : outcome;
}

/** Every reward of a trajectory (Eqs. 4–6) given its R_ans; deterministic in its inputs. */
export function scoreTrajectory(
  trajectory: ScoredTrajectory,
  outcome: AnswerOutcome,
  graph: SubgraphSource | undefined,
): Rewards {
  const coefficients: RewardCoefficients = { ...DEFAULT_COEFFICIENTS, ...trajectory.reward };
  const chat = trajectory.protocol === 'chat';
  const { r_step, steps } = chat ? { r_step: null, steps: [] } : stepReward(trajectory.turns);
  // A chat episode's own tools were offered natively from the start when few enough (store.ts nativeTools).
  const given =
    chat && trajectory.native_tools !== false && (trajectory.tools?.length ?? 0) <= MAX_NATIVE_TOOLS
      ? (trajectory.tools ?? [])
      : [];
  const phases = phaseScores(trajectory.turns, coefficients, graph, chat ? { perTurnCalls: true, given } : {});
  const r_ans = outcome.r_ans;
  const gate = r_ans === null ? null : Math.min(1, Math.max(0, r_ans));
  const r_phase =
    gate === null
      ? null
      : phases.length === 0
        ? 0
        : (gate * phases.reduce((sum, p) => sum + p.score, 0)) / phases.length;
  const recall = recallOf(trajectory.turns, trajectory.task?.reference_tools);
  const r_traj =
    r_ans === null
      ? null
      : coefficients.gamma_e * (recall.search ?? 0) +
        coefficients.gamma_o * (recall.call ?? 0) +
        coefficients.gamma_ans * r_ans;
  const success = r_ans === null ? null : outcome.verdicts?.quality === 'YES';
  const checks = trajectory.task?.expect === undefined ? undefined : trajectory.state_checks;
  const rewards: Rewards = {
    r_step,
    r_phase,
    r_traj,
    r_ans,
    gate,
    answer_source: outcome.source,
    success,
    ...(checks ? stateRewards(checks) : {}),
    steps,
    phases,
    recall,
    graph: graph !== undefined,
    coefficients,
  };
  if (chat) rewards.r_step_note = CHAT_STEP_NOTE;
  if (outcome.flagged) rewards.flagged = outcome.flagged;
  if (outcome.verdicts) {
    rewards.verdicts = outcome.verdicts;
    rewards.pattern = pattern(outcome.verdicts);
  }
  if (outcome.judge) rewards.judge = outcome.judge;
  return rewards;
}

/** r_state, the share of a task's assertions that hold, and state_success, all of them. */
function stateRewards(checks: readonly StateCheck[]): Pick<Rewards, 'r_state' | 'state_success'> {
  const held = checks.filter((c) => c.held).length;
  return { r_state: held / checks.length, state_success: held === checks.length };
}

/** Eq. 6's recall terms: reference tools any search returned, and those some call invoked with a 2xx answer. */
function recallOf(turns: readonly TurnRecord[], references: readonly string[] | undefined): Rewards['recall'] {
  const wanted = new Set(references ?? []);
  if (wanted.size === 0) return { search: null, call: null };
  const found = new Set(turns.flatMap((t) => t.searches.flatMap((s) => s.results)));
  const invoked = new Set(turns.flatMap((t) => t.calls.filter((c) => c.ok).map((c) => c.tool)));
  const share = (set: ReadonlySet<string>) => [...wanted].filter((id) => set.has(id)).length / wanted.size;
  return { search: share(found), call: share(invoked) };
}

/** The turns' call observations, in order, from the steps they ran as. */
function callObservations(trajectory: ScoredTrajectory): Extract<Observation, { type: 'tool_call' }>[] {
  const byStep = new Map(trajectory.steps.map((s) => [s.step, s]));
  return trajectory.turns.flatMap((turn) => {
    const step = turn.step === undefined ? undefined : byStep.get(turn.step);
    return (step?.observations ?? []).filter(
      (o): o is Extract<Observation, { type: 'tool_call' }> => o.type === 'tool_call',
    );
  });
}

/** What the model saw of its successful calls, as the observations rendered them: the rule's evidence. */
function evidence(trajectory: ScoredTrajectory): string {
  return callObservations(trajectory)
    .filter((o) => o.status >= 200 && o.status < 300)
    .map(renderCall)
    .join('\n');
}

function judgeInput(trajectory: ScoredTrajectory, answer: string): JudgeInput {
  return {
    query: trajectory.task?.query ?? '',
    answer,
    results: callObservations(trajectory).map((o) => ({ tool: o.tool, status: o.status, body: o.body })),
  };
}
