/**
 * The reward layer's data (paper §3.3, Appendix C): the judge's three verdicts, the coefficients of Table 7, and
 * what `GET /v1/episodes/{id}/rewards` answers.
 */

import type { Verdict, Verdicts } from './schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type { Verdict, Verdicts };

export const VERDICTS: readonly Verdict[] = ['YES', 'PARTIAL', 'NO'];

/** A verdict word in any ASCII case (toUpperCase alone would also read "yeſ" as YES). */
export function verdictOf(value: unknown): Verdict | undefined {
  return typeof value === 'string' && /^(yes|partial|no)$/i.test(value) ? (value.toUpperCase() as Verdict) : undefined;
}

/** Table 7's coefficients. Each may be overridden per episode (`reward` in the episode config). */
export interface RewardCoefficients {
  /** Phase weights of L1–L4 (Eq. 5); they sum to 1 so a phase scores in [0, 1]. */
  w1: number;
  w2: number;
  w3: number;
  w4: number;
  /** Search recall, successful-call recall and answer weights of R_traj (Eq. 6). */
  gamma_e: number;
  gamma_o: number;
  gamma_ans: number;
  /** Advantage weights of the trajectory, phase and step components (Eq. 7). */
  lambda_traj: number;
  lambda_phase: number;
  lambda_step: number;
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
});

export const COEFFICIENT_NAMES = Object.keys(DEFAULT_COEFFICIENTS) as (keyof RewardCoefficients)[];
