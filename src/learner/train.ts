import { hash32, Rng } from '../simulator/synth/random.js';
import type { EvalTask } from '../eval/map-references.js';
import { LinearAgent } from './agent.js';
import { DECISION_KINDS, policyGradient, step as ascend, type Scored, type Weights } from './linear.js';
import { rolloutGroup, type EpisodeSettings, type Rollout } from './rollout.js';

export interface TrainSettings {
  /** Training tasks, visited in this order, cycling. */
  tasks: readonly EvalTask[];
  steps: number;
  /** Tasks (groups) per step. */
  batch: number;
  /** Episodes per group. */
  group: number;
  lr: number;
  seed: number;
  /** The control: the batch's advantages moved to other groups before the update (needs two groups a step or more). */
  shuffle: boolean;
}

/** One update's training rollouts, as the curve reads them. */
export interface TrainStep {
  step: number;
  episodes: number;
  r_traj: number | null;
  success: number;
  /** Share of rollouts with a nonzero advantage: groups whose members all scored alike teach nothing. */
  informative: number;
  grad_norm: number;
  /** The first error of the rollouts that failed, and how many did. */
  failed: { count: number; first?: string };
}

/**
 * Policy gradient from the server's group advantages: per step, `batch` groups of `group` rollouts sampled from
 * the current weights, then w ← w + lr · Σ A·∇log π / episodes. Each rollout's choices draw on a stream seeded by
 * (seed, step, task, member), so a run repeats exactly whatever order the episodes finish in, and the trained
 * learner and its control meet the same draws until their weights part. `onStep` sees every step's weights (the
 * checkpoints).
 */
export async function train(
  settings: TrainSettings,
  episodes: EpisodeSettings,
  weights: Weights,
  onStep: (row: TrainStep, weights: Weights) => Promise<void>,
): Promise<Weights> {
  const { seed, batch, group, tasks: cycle } = settings;
  for (let step = 1; step <= settings.steps; step++) {
    const tasks = Array.from({ length: batch }, (_, j) => cycle[((step - 1) * batch + j) % cycle.length]!);
    const current = weights;
    const groups = await Promise.all(
      tasks.map((task, j) => {
        const draws = (m: number) => new Rng(hash32(`${seed}:${step}:${j}:${m}`));
        const k = episodes.k;
        const agents = Array.from({ length: group }, (_, m) => new LinearAgent(current, 'sample', draws(m), k));
        return rolloutGroup(episodes, task, agents);
      }),
    );
    const given = settings.shuffle ? shuffled(groups, new Rng(hash32(`${seed}:${step}:shuffle`))) : groups;
    const advantage = (j: number, m: number) => given[j]![m]!.advantage;
    const scored = groups.flatMap((g, j) => g.map((r, m) => ({ decisions: r.decisions, advantage: advantage(j, m) })));
    const rollouts = scored.filter((r): r is Scored => r.advantage !== null);
    const grad = policyGradient(weights, rollouts);
    weights = ascend(weights, grad, settings.lr);
    const all = groups.flat();
    const known = all.filter((r) => r.r_traj !== null);
    await onStep(
      {
        step,
        episodes: all.length,
        r_traj: known.length === 0 ? null : known.reduce((sum, r) => sum + r.r_traj!, 0) / known.length,
        success: all.filter((r) => r.success).length / all.length,
        informative: rollouts.filter((r) => r.advantage !== 0).length / all.length,
        grad_norm: Math.sqrt(DECISION_KINDS.reduce((sum, kind) => sum + grad[kind].reduce((s, g) => s + g * g, 0), 0)),
        failed: failures(all),
      },
      weights,
    );
  }
  return weights;
}

/**
 * The control's advantages: each group's go to another group of the batch (the groups rotated by a random offset),
 * in a random order. A rollout never gets its own group's: a sibling that made the same choice shares its outcome,
 * so its advantage would still carry the signal.
 */
function shuffled(groups: readonly (readonly Rollout[])[], rng: Rng): Rollout[][] {
  const offset = 1 + Math.floor(rng.next() * (groups.length - 1));
  return groups.map((_, j) => {
    const source = [...groups[(j + offset) % groups.length]!];
    permute(source, rng);
    return source;
  });
}

function failures(rollouts: readonly Rollout[]): TrainStep['failed'] {
  const failed = rollouts.filter((r) => r.error !== undefined);
  return failed.length === 0 ? { count: 0 } : { count: failed.length, first: failed[0]!.error! };
}

/** Fisher–Yates, in place. */
function permute<T>(items: T[], rng: Rng): void {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(rng.next() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
}
