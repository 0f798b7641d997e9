import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { requestErrors } from '../../src/wire/request-errors.js';
import { MAX_ACTIONS, MAX_STEPS, MAX_TURN_TEXT } from '../../src/episodes/limits.js';
import { MAX_K } from '../../src/protocol/protocol.js';
import { schemaFile } from '../../src/wire/schemas.js';

/** Each error as `path message`, for one assertion per request. */
const errors = (...args: Parameters<typeof requestErrors>) =>
  requestErrors(...args).map((e) => `${e.path} ${e.message}`);

describe('request bodies are checked against schemas/, and each wrong member reads as one sentence', () => {
  it('bounds, kinds and enums say what was expected and what came', () => {
    assert.deepEqual(errors('EpisodeConfig', { max_steps: 0, k: 'x', protocol: 'xml', error_rate: 2 }), [
      '/error_rate must be a number from 0 to 1, got 2',
      '/max_steps must be an integer from 1 to 1000, got 0',
      '/protocol must be one of paraact, react, parallel, chat, got "xml"',
      '/k must be an integer from 1 to 10, got "x"',
    ]);
  });

  it('an unknown member names the known ones, and members that failed their own check are not called unknown', () => {
    const [seed, unknown, ...rest] = errors('EpisodeConfig', { extra: 1, seed: 1.5 });
    assert.deepEqual(rest, []);
    assert.match(seed!, /^\/seed must be an integer/);
    assert.match(unknown!, /^\/extra is not a known member \(known: seed, error_rate, task, tools, .*, reward\)$/);
  });

  it('a member that applies only beside another value says so (the rule is in the schema, as if/then)', () => {
    assert.deepEqual(errors('EpisodeConfig', { tool_parser: 'hermes', native_tools: false }), [
      '/tool_parser applies to protocol "chat" only',
      '/native_tools applies to protocol "chat" only',
    ]);
    assert.deepEqual(errors('EpisodeConfig', { protocol: 'chat', tool_parser: 'hermes', native_tools: false }), []);
  });

  it('a oneOf reads as the branch the value fits, else as its branches in words', () => {
    const task = (answer: unknown) => ({ task: { id: 't', query: 'q', answer } });
    assert.deepEqual(errors('EpisodeConfig', task(['Paris', ' '])), ['/task/answer/1 must not be blank']);
    assert.deepEqual(errors('EpisodeConfig', task(3)), [
      '/task/answer must be a non-blank string or a non-empty array of strings, got 3',
    ]);
    assert.deepEqual(
      errors('TurnRequest', {}),
      ['needs one of "text", "message"'].map((m) => ` ${m}`),
    );
    assert.deepEqual(errors('TurnRequest', { text: 'a', message: {} }), [' takes one of "text", "message", not more']);
  });

  it('actions are told apart by their type (the discriminator), so only the meant shape is reported', () => {
    assert.deepEqual(
      errors('StepRequest', {
        actions: [{ type: 'fly' }, { type: 'search_tool', query: ' ', k: 0 }, 'x', { type: 'tool_call', tool: 't' }],
      }),
      [
        '/actions/0/type must be one of search_tool, tool_call, got "fly"',
        '/actions/1/query must not be blank',
        '/actions/1/k must be an integer from 1 to 100, got 0',
        '/actions/2 must be an object, got "x"',
      ],
    );
  });

  it('a case-insensitive verdict pattern reads as its words', () => {
    assert.deepEqual(errors('VerdictsInput', { quality: 'maybe', faithfulness: 'yes', utility: 'No' }), [
      '/quality must be one of YES, PARTIAL, NO (in any case), got "maybe"',
    ]);
  });

  it('the limits the code enforces are the ones the schemas state', () => {
    const config = schemaFile('trajectory').$defs.EpisodeConfigFields!.properties as Record<
      string,
      { maximum?: number }
    >;
    assert.equal(MAX_STEPS, config.max_steps!.maximum);
    assert.equal(MAX_K, config.k!.maximum);
    assert.equal(
      errors('StepRequest', { actions: Array(MAX_ACTIONS + 1).fill({ type: 'search_tool', query: 'q' }) })[0],
      `/actions must hold 1 to ${MAX_ACTIONS} items, got ${MAX_ACTIONS + 1}`,
    );
    assert.deepEqual(errors('TurnRequest', { text: 'x'.repeat(MAX_TURN_TEXT) }), []);
  });
});
