import { Rng } from '../simulator/synth/random.js';
import { ANSWER_FEATURES } from './answer-features.js';
import { ARGUMENT_FEATURES } from './argument-features.js';
import { TOOL_FEATURES } from './tool-features.js';

/**
 * The learned policy's model: log-linear (a softmax over linear scores) for each kind of decision an episode asks
 * for. Not a language model: it writes no text, it picks among candidates the agent enumerates, each candidate
 * described by a few generic features (word overlaps, value shapes, ranks), never by a tool id, so that what it
 * learns carries over to APIs it never saw.
 */

export type DecisionKind = 'tool' | 'argument' | 'answer';
export const DECISION_KINDS: readonly DecisionKind[] = ['tool', 'argument', 'answer'];

export const FEATURES: Record<DecisionKind, readonly string[]> = {
  tool: TOOL_FEATURES,
  argument: ARGUMENT_FEATURES,
  answer: ANSWER_FEATURES,
};

/** One weight per feature, per kind of decision. */
export type Weights = Record<DecisionKind, number[]>;

/** One choice made in an episode: every candidate's features, and which was taken. */
export interface Decision {
  kind: DecisionKind;
  features: number[][];
  chosen: number;
}

/** `sample`: from the softmax (training rollouts); `greedy`: its argmax (evaluation); `uniform`: the random floor. */
export type ChoiceMode = 'sample' | 'greedy' | 'uniform';

/** Starting weights: small seeded noise, so the untrained policy samples almost uniformly and argmaxes at random. */
export function initialWeights(seed: number, scale = 0.01): Weights {
  const rng = new Rng(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng.next())) * Math.cos(2 * Math.PI * rng.next());
  return byKind((kind) => FEATURES[kind].map(() => scale * normal()));
}

/** Every candidate's features, one row each. */
type Features = readonly (readonly number[])[];

export function probabilities(weights: readonly number[], features: Features): number[] {
  const scores = features.map((f) => f.reduce((sum, x, i) => sum + x * weights[i]!, 0));
  const top = Math.max(...scores);
  const exps = scores.map((s) => Math.exp(s - top));
  const total = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / total);
}

/** The candidate taken: ties of the argmax go to the first, as candidates come in a fixed order. */
export function choose(weights: readonly number[], features: Features, mode: ChoiceMode, rng: Rng): number {
  if (mode === 'uniform') return Math.floor(rng.next() * features.length);
  const p = probabilities(weights, features);
  if (mode === 'greedy') return p.indexOf(Math.max(...p));
  let u = rng.next();
  for (let i = 0; i < p.length; i++) if ((u -= p[i]!) < 0) return i;
  return p.length - 1;
}

/** An episode's decisions and the advantage they get. */
export interface Scored {
  decisions: readonly Decision[];
  advantage: number;
}

/**
 * REINFORCE with a given advantage per episode: Σ_e A_e Σ_d (φ(a_d) − E_π[φ]) / episodes, the gradient of the
 * expected advantage-weighted log-likelihood of the decisions taken. Episodes in a fixed order, so the sum is too.
 */
export function policyGradient(weights: Weights, episodes: readonly Scored[]): Weights {
  const grad = zeroWeights();
  for (const { decisions, advantage } of episodes) {
    if (advantage === 0) continue;
    for (const d of decisions) {
      if (d.features.length < 2) continue;
      const p = probabilities(weights[d.kind], d.features);
      const g = grad[d.kind];
      for (let i = 0; i < g.length; i++) {
        const expected = d.features.reduce((sum, f, c) => sum + p[c]! * f[i]!, 0);
        g[i]! += (advantage * (d.features[d.chosen]![i]! - expected)) / episodes.length;
      }
    }
  }
  return grad;
}

/** Plain gradient ascent: w ← w + lr · g. */
export function step(weights: Weights, grad: Weights, lr: number): Weights {
  return byKind((kind) => weights[kind].map((w, i) => w + lr * grad[kind][i]!));
}

function zeroWeights(): Weights {
  return byKind((kind) => FEATURES[kind].map(() => 0));
}

function byKind(make: (kind: DecisionKind) => number[]): Weights {
  return Object.fromEntries(DECISION_KINDS.map((kind) => [kind, make(kind)])) as Weights;
}
