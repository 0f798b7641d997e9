import type { RewardCoefficients } from '../wire/rewards.js';
import type { Advantage, AdvantageMode, ComponentRewards } from '../wire/schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type { Advantage, AdvantageMode, ComponentRewards } from '../wire/schema-types.js';

export const ADVANTAGE_MODES: readonly AdvantageMode[] = ['decoupled', 'aggregated'];

/** The stabilizer of the denominator, as verl's GRPO uses: a zero-variance component then contributes 0. */
export const ADVANTAGE_EPSILON = 1e-6;

type Lambdas = Pick<RewardCoefficients, 'lambda_traj' | 'lambda_phase' | 'lambda_step' | 'lambda_state'>;

const COMPONENTS = ['r_step', 'r_phase', 'r_traj', 'r_state'] as const;
type Component = (typeof COMPONENTS)[number];
const LAMBDA: Record<Component, keyof Lambdas> = {
  r_step: 'lambda_step',
  r_phase: 'lambda_phase',
  r_traj: 'lambda_traj',
  r_state: 'lambda_state',
};
const ADVANTAGE: Record<Component, 'a_step' | 'a_phase' | 'a_traj' | 'a_state'> = {
  r_step: 'a_step',
  r_phase: 'a_phase',
  r_traj: 'a_traj',
  r_state: 'a_state',
};

/** A component's reward; r_state is absent, not null, for tasks without `expect`. */
const value = (r: ComponentRewards, c: Component): number | null => r[c] ?? null;

/**
 * Group-relative advantages (Eq. 7, C.4) for one group of rollouts of the same task: (R − μ) / (σ + ε) per
 * component, σ the sample standard deviation (n − 1, as torch.std), then advantage = λτ·a_traj + λp·a_phase +
 * λs·a_step. A rollout with a null reward gets null advantages and is left out of μ and σ; a group of one, or one
 * whose component does not vary, gives 0 for it. A component null for the whole group is not defined for it (R_step
 * of the chat protocol): it is left out of the sum and its advantage is null. R_state (tasks with `expect`) is a
 * fourth component, weighted by λ_state; a group without it answers no `a_state`, so answer-only groups are scored
 * as before. Whitening across the batch is the trainer's (it rescales all rollouts alike and keeps the ratio).
 */
export function groupAdvantages(
  group: readonly ComponentRewards[],
  lambdas: Lambdas,
  mode: AdvantageMode = 'decoupled',
): Advantage[] {
  const defined = COMPONENTS.filter((c) => group.some((r) => value(r, c) !== null));
  const stated = group.some((r) => r.r_state !== undefined);
  const nulls = (): Advantage => ({
    a_step: null,
    a_phase: null,
    a_traj: null,
    ...(stated ? { a_state: null } : {}),
    advantage: null,
  });
  const scored = (r: ComponentRewards) => defined.length > 0 && defined.every((c) => value(r, c) !== null);
  const valid = group.filter(scored);
  if (mode === 'aggregated') {
    const sum = (r: ComponentRewards) => defined.reduce((total, c) => total + lambdas[LAMBDA[c]] * value(r, c)!, 0);
    const standard = standardizer(valid.map(sum));
    return group.map((r) => (scored(r) ? { ...nulls(), advantage: standard(sum(r)) } : nulls()));
  }
  const standard = new Map(defined.map((c) => [c, standardizer(valid.map((r) => value(r, c)!))]));
  return group.map((r) => {
    if (!scored(r)) return nulls();
    const out = nulls();
    let advantage = 0;
    for (const c of defined) {
      const a = standard.get(c)!(value(r, c)!);
      out[ADVANTAGE[c]] = a;
      advantage += lambdas[LAMBDA[c]] * a;
    }
    return { ...out, advantage };
  });
}

function standardizer(values: readonly number[]): (value: number) => number {
  // Equal values give exactly 0, not the rounding residue of their mean.
  if (values.length < 2 || values.every((v) => v === values[0])) return () => 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const std = Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1));
  return (value) => (value - mean) / (std + ADVANTAGE_EPSILON);
}
