import type { Verdict, Verdicts } from '../wire/rewards.js';

/**
 * R_ans (Appendix C.3, Table 9): the Quality / Faithfulness / Utility pattern, a bit per axis (only YES counts),
 * mapped to −0.5, 0, 0.5 or 1.5, and the rule-based verdicts a task's expected answer gives.
 */

/** The Q/F/U bits as the paper writes them, `111` … `000`. */
export function pattern(verdicts: Verdicts): string {
  return [verdicts.quality, verdicts.faithfulness, verdicts.utility].map((v) => (v === 'YES' ? '1' : '0')).join('');
}

/** The values R_ans takes (Table 9), as the rewards schema lists them. */
export type AnswerReward = -0.5 | 0 | 0.5 | 1.5;

const TABLE_9: Record<string, AnswerReward> = {
  '000': -0.5,
  '010': -0.5,
  '100': -0.5,
  '001': 0,
  '101': 0,
  '011': 0.5,
  '110': 0.5,
  '111': 1.5,
};

/** Table 9: only 111 earns the full 1.5, any failed axis caps at 0.5, unsupported claims (F = 0) cap at 0. */
export function answerReward(verdicts: Verdicts): AnswerReward {
  return TABLE_9[pattern(verdicts)]!;
}

/**
 * R_ans of a run that gave no final answer (the turn cap included), or answered an information-seeking task with no
 * tool evidence.
 */
export const NO_ANSWER_REWARD: AnswerReward = -0.5;

const yes = (bit: boolean): Verdict => (bit ? 'YES' : 'NO');

/**
 * The verdicts a task's expected answer gives, by rule: Quality, the answer contains every expected string;
 * Utility, the tool results the model saw contain every one; Faithfulness, every expected string the answer
 * contains is also in those results (a right value the tools never showed is a guess). Case-insensitive. So a
 * complete answer read off the results is 111 (1.5), an honest partial one 011 (0.5), and a guess or a miss −0.5.
 */
export function ruleVerdicts(expected: string | readonly string[], answer: string, evidence: string): Verdicts {
  const parts = (typeof expected === 'string' ? [expected] : expected).map((p) => p.toLowerCase());
  const said = answer.toLowerCase();
  const seen = evidence.toLowerCase();
  const inAnswer = parts.filter((p) => said.includes(p));
  return {
    quality: yes(inAnswer.length === parts.length),
    faithfulness: yes(inAnswer.every((p) => seen.includes(p))),
    utility: yes(parts.every((p) => seen.includes(p))),
  };
}
