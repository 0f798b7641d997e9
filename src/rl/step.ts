import type { TurnRecord } from '../wire/episodes.js';
import type { StepScore } from '../wire/schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type { StepScore } from '../wire/schema-types.js';

/**
 * R_step (Eq. 4): the mean of r_base + r_plan over every turn, halved, rejected turns included. r_base is the
 * structural check the session recorded; r_plan follows Table 8 by the controller state the turn met:
 * `need` a valid plan is required; `may` no plan or a valid new one; `no` no plan; `answer` 0. A valid plan that
 * repeats the one in force scores 0 wherever it appears.
 */
export function stepReward(turns: readonly TurnRecord[]): { r_step: number; steps: StepScore[] } {
  const steps = turns.map(
    (turn): StepScore => ({
      turn: turn.turn,
      state: turn.controller,
      r_base: turn.well_formed ? 1 : 0,
      r_plan: planScore(turn),
    }),
  );
  const total = steps.reduce((sum, s) => sum + s.r_base + s.r_plan, 0);
  return { r_step: steps.length === 0 ? 0 : total / (2 * steps.length), steps };
}

function planScore(turn: TurnRecord): 0 | 1 {
  if (turn.controller === 'answer') return 0;
  if (!turn.plan) return turn.controller === 'need' ? 0 : 1;
  const fresh = turn.plan.valid && !turn.plan.repeated;
  return fresh && turn.controller !== 'no' ? 1 : 0;
}
