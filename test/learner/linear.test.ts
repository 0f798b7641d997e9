/** The learner's model and features, on their own: a softmax that the gradient moves toward what was rewarded. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paramsOf } from '../../src/agent/heuristic/values.js';
import { answerCandidates, ANSWER_FEATURES } from '../../src/learner/answer-features.js';
import { argumentCandidates, ARGUMENT_FEATURES } from '../../src/learner/argument-features.js';
import { choose, FEATURES, initialWeights, policyGradient, probabilities, step } from '../../src/learner/linear.js';
import type { Decision } from '../../src/learner/linear.js';
import { Rng } from '../../src/simulator/synth/random.js';
import { petstoreTools } from '../fixtures/tools.js';

test('initial weights are small seeded noise, one per feature of each kind of decision', () => {
  const weights = initialWeights(3);
  assert.deepEqual(weights, initialWeights(3));
  assert.notDeepEqual(weights, initialWeights(4));
  for (const kind of ['tool', 'argument', 'answer'] as const) {
    assert.equal(weights[kind].length, FEATURES[kind].length);
    assert.ok(weights[kind].every((w) => Math.abs(w) < 0.1));
  }
});

test('a softmax over linear scores: greedy takes the argmax, uniform ignores the weights', () => {
  const features = [
    [1, 0],
    [0, 1],
    [0, 0],
  ];
  const p = probabilities([2, 1], features);
  assert.ok(Math.abs(p.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  assert.ok(p[0]! > p[1]! && p[1]! > p[2]!);
  assert.equal(choose([2, 1], features, 'greedy', new Rng(1)), 0);
  const picks = new Set(Array.from({ length: 60 }, (_, i) => choose([50, 0], features, 'uniform', new Rng(i))));
  assert.deepEqual([...picks].sort(), [0, 1, 2]);
});

test('the policy gradient raises what a positive advantage chose and lowers what a negative one did', () => {
  const weights = { ...initialWeights(1), answer: ANSWER_FEATURES.map(() => 0) };
  const features = [ANSWER_FEATURES.map((_, i) => (i === 0 ? 1 : 0)), ANSWER_FEATURES.map((_, i) => (i === 1 ? 1 : 0))];
  const decision: Decision = { kind: 'answer', features, chosen: 0 };
  const before = probabilities(weights.answer, features)[0]!;
  const up = step(weights, policyGradient(weights, [{ decisions: [decision], advantage: 1 }]), 1);
  const down = step(weights, policyGradient(weights, [{ decisions: [decision], advantage: -1 }]), 1);
  assert.ok(probabilities(up.answer, features)[0]! > before);
  assert.ok(probabilities(down.answer, features)[0]! < before);
  // No advantage, or a choice of one, teaches nothing.
  assert.deepEqual(step(weights, policyGradient(weights, [{ decisions: [decision], advantage: 0 }]), 1), weights);
  const single: Decision = { kind: 'answer', features: [features[0]!], chosen: 0 };
  assert.deepEqual(step(weights, policyGradient(weights, [{ decisions: [single], advantage: 1 }]), 1), weights);
});

test('argument candidates: the literals of the task, by their shape and where they sit, then leaving it out', () => {
  const tool = petstoreTools.find((t) => t.id === 'petstore_test__getPetById')!;
  const petId = paramsOf(tool).find((p) => p.name === 'petId')!;
  const text = 'Find the pet with petId 42 for "Rex".';
  const source = { text, clause: { start: 0, end: text.length } };
  const { choices, features } = argumentCandidates(petId, tool, source, new Set(), []);
  const at = (value: unknown) => choices.findIndex((c) => c.value === value);
  type Name = (typeof ARGUMENT_FEATURES)[number];
  const feature = (row: number, name: Name) => features[row]![ARGUMENT_FEATURES.indexOf(name)];
  assert.equal(feature(at(42), 'number'), 1);
  assert.equal(feature(at(42), 'type_fits'), 1, 'an integer for an integer parameter, sent as a number');
  assert.equal(feature(at(42), 'name_before'), 1, 'the text names petId right before it');
  assert.equal(feature(at('Rex'), 'type_fits'), 0);
  assert.equal(choices.at(-1)!.value, undefined);
  assert.equal(feature(choices.length - 1, 'omit'), 1);
});

test('answer candidates: every scalar leaf of a successful body, the asked name marked', () => {
  const body = { id: 7, data: [{ token: 'abc123xyz9', ok: true }] };
  const { values, features } = answerCandidates({ key: 'token' }, [{ slot: 0, body }]);
  assert.deepEqual(values, ['7', 'abc123xyz9', 'true']);
  const keyEqual = ANSWER_FEATURES.indexOf('key_equal');
  assert.deepEqual(
    features.map((f) => f[keyEqual]),
    [0, 1, 0],
  );
});
