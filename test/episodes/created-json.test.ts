import assert from 'node:assert/strict';
import { test } from 'node:test';
import { STOP_SEQUENCES, systemPrompt } from '../../src/protocol/prompts.js';
import { createdEpisodeJson } from '../../src/episodes/created-json.js';
import type { CreatedEpisode } from '../../src/wire/episodes.js';

function created(overrides: Partial<CreatedEpisode> & { system?: string; query?: string }): CreatedEpisode {
  const { system, query, ...rest } = overrides;
  const limits = { protocol: 'paraact' as const, k: 5, max_calls_per_turn: 3, max_turns: 15 };
  const content = system ?? systemPrompt('paraact', { maxTurns: 15, maxCallsPerTurn: 3, k: 5 });
  return {
    id: 'ep-1',
    seed: 7,
    error_rate: 0.1,
    max_steps: 50,
    ...limits,
    created_at: '2026-12-01T00:00:00.000Z',
    done: false,
    working_set: [],
    counts: { turns: 0, steps: 0, actions: 0, searches: 0, calls: 0, failed_calls: 0, injected_errors: 0 },
    ...rest,
    // The store's order: the summary, then the messages and stop sequences.
    messages: [
      { role: 'system', content },
      ...(query === undefined ? [] : [{ role: 'user' as const, content: query }]),
    ],
    stop: [...STOP_SEQUENCES],
  };
}

test(
  'a new episode is written exactly as JSON.stringify writes it, ' + 'the second time from the kept system message too',
  () => {
    for (const episode of [
      created({}),
      created({ id: 'ep-2', query: 'Find "the" pet\n\u0007 and é' }),
      created({ id: 'ep-3', task: { id: 't1', query: 'q' }, tools: ['a', 'b'], group: 'g' }),
      created({ protocol: 'react', system: systemPrompt('react', { maxTurns: 15, maxCallsPerTurn: 3, k: 5 }) }),
    ]) {
      assert.equal(createdEpisodeJson(episode), JSON.stringify(episode));
      assert.equal(createdEpisodeJson(episode), JSON.stringify(episode), 'answered again');
    }
  },
);

test('a system message that differs under the same protocol and limits is written anew, not from the kept one', () => {
  const first = created({ system: 'You are "one".' });
  const second = created({ system: 'You are "two".' });
  assert.equal(createdEpisodeJson(first), JSON.stringify(first));
  assert.equal(createdEpisodeJson(second), JSON.stringify(second));
});
