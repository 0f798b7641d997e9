/**
 * The reward layer's data (paper §3.3, Appendix C): the judge's three verdicts, the coefficients of Table 7, and
 * what `GET /v1/episodes/{id}/rewards` answers.
 */

import type { RewardCoefficients, Verdict } from './schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type { RewardCoefficients, Verdict, Verdicts } from './schema-types.js';

export const VERDICTS: readonly Verdict[] = ['YES', 'PARTIAL', 'NO'];

/** A verdict word in any ASCII case (toUpperCase alone would also read "yeſ" as YES). */
export function verdictOf(value: unknown): Verdict | undefined {
  return typeof value === 'string' && /^(yes|partial|no)$/i.test(value) ? (value.toUpperCase() as Verdict) : undefined;
}

export const DEFAULT_COEFFICIENTS: Readonly<RewardCoefficients> = Object.freeze({
  w1: 0.1,
  w2: 0.2,
  w3: 0.2,
  w4: 0.5,
  gamma_e: 0.1,
  gamma_o: 0.4,
  gamma_ans: 1.0,
  lambda_traj: 1.0,
  lambda_phase: 0.5,
  lambda_step: 0.25,
  // Not the paper's: the weight of r_state, the verified world state of tasks with `expect`.
  lambda_state: 1.0,
});

export const COEFFICIENT_NAMES = Object.keys(DEFAULT_COEFFICIENTS) as (keyof RewardCoefficients)[];
