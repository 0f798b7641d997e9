import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkMessage } from '../../src/protocol/check.js';
import { foldStep, prepareDispatch, type Dispatch } from '../../src/protocol/dispatch.js';
import { parseMessage } from '../../src/protocol/parse.js';
import { renderObservation } from '../../src/protocol/render.js';
import { newRunState, type RunState } from '../../src/protocol/state.js';
import type { Observation, Protocol, StepResult, ToolCallAction } from '../../src/wire/episodes.js';
import type { InjectedErrorKind } from '../../src/simulator/types.js';

const TOOLS = ['geo', 'weather', 'mail', 'news'];

function freshState(): RunState {
  const state = newRunState();
  for (const id of TOOLS) {
    state.surfaced.push(id);
    state.hits.set(id, { id, name: id, description: '', category: 'test', score: 1 });
  }
  return state;
}

/** One turn through the client's pieces: parse, check, dispatch, and (when given) the step's answers folded in. */
type Answer = (action: ToolCallAction) => {
  status: number;
  body: unknown;
  error?: InjectedErrorKind;
  headers?: Record<string, string>;
};

function turn(state: RunState, text: string, agent: Protocol = 'paraact', answer?: Answer) {
  state.turn++;
  const message = parseMessage(text);
  const checked = checkMessage(message, agent, state);
  assert.deepEqual(checked.problems, [], text);
  const dispatch = prepareDispatch(message, checked, state, { agent, k: 3, maxCallsPerTurn: 3 });
  let result: StepResult | undefined;
  if (answer && dispatch.actions.length > 0) {
    result = {
      step: state.turn,
      done: false,
      observations: dispatch.actions.map((a) => {
        const call = a as ToolCallAction;
        return {
          type: 'tool_call',
          id: call.id,
          tool: call.tool,
          source: 'synth',
          ...answer(call),
        } satisfies Observation;
      }),
    };
    foldStep(state, dispatch, result);
  } else {
    state.notRun.push(...dispatch.notRun);
  }
  return { dispatch, result, text: renderObservation(state, dispatch, result, new Set()) };
}

const sent = (dispatch: Dispatch) => dispatch.actions.map((a) => (a as ToolCallAction).id);
const ok = () => ({ status: 200, body: { id: 7, lat: 1.5, name: 'x' } });

const WIDE = `<plan>${JSON.stringify({
  phase: 'execution',
  tools: ['geo', 'weather', 'mail'],
  calls: [
    { id: 'g1', tool: 'geo', arguments: { city: 'Paris' } },
    { id: 'g2', tool: 'geo', arguments: { city: 'Rome' } },
    { id: 'g3', tool: 'geo', arguments: { city: 'Oslo' } },
    { id: 'g4', tool: 'geo', arguments: { city: 'Lima' } },
    { id: 'g5', tool: 'geo', arguments: { city: 'Kyiv' } },
    { id: 'w', tool: 'weather', arguments: { lat: { $ref: 'g1.body.lat' }, where: 'near {{g2.body.name}}' } },
    { id: 'm', tool: 'mail', arguments: { text: '{{w.body.name}}' }, depends_on: ['g5'] },
  ],
})}</plan>`;

test('a plan alone runs its first Kahn layer, at most 3 calls per turn; the rest of a wide layer is deferred', () => {
  const state = freshState();
  const first = turn(state, WIDE, 'paraact', ok);
  assert.deepEqual(state.plan?.layers, [['g1', 'g2', 'g3', 'g4', 'g5'], ['w'], ['m']]);
  assert.deepEqual(sent(first.dispatch), ['g1', 'g2', 'g3']);
  assert.deepEqual(
    first.dispatch.notRun.map((n) => [n.id, n.kind]),
    [
      ['g4', 'deferred'],
      ['g5', 'deferred'],
    ],
  );
  assert.match(first.text, /g4 \(geo\): at most 3 calls per turn; call it next turn/);
  assert.match(
    first.text,
    /Plan: done: g1, g2, g3; to run: g4 \(ready\), g5 \(ready\), w \(ready\), m \(after g5, w\)\./,
  );

  // The next turn names the rest of the layer and a call whose upstream is not done: it waits.
  const second = turn(
    state,
    '<tool_call>{"id": "g4"}</tool_call><tool_call>{"id": "g5"}</tool_call><tool_call>{"id": "m"}</tool_call>',
    'paraact',
    ok,
  );
  assert.deepEqual(sent(second.dispatch), ['g4', 'g5']);
  assert.deepEqual(
    second.dispatch.notRun.map((n) => [n.id, n.kind, n.reason]),
    [['m', 'waiting', "needs g5's result, and g5 is sent in this same turn; call it next turn"]],
  );

  // Upstream outputs are bound into the dependent's arguments: a typed value and a string template.
  const third = turn(state, '<tool_call>{"id": "w"}</tool_call>', 'paraact', ok);
  assert.deepEqual((third.dispatch.actions[0] as ToolCallAction).arguments, { lat: 1.5, where: 'near x' });
});

test('a failed upstream call skips its dependents, which run once it is retried and succeeds', () => {
  const state = freshState();
  const plan = `<plan>${JSON.stringify({
    phase: 'execution',
    calls: [
      { id: 'a', tool: 'geo', arguments: {} },
      { id: 'b', tool: 'weather', arguments: { lat: { $ref: 'a.body.lat' } } },
      { id: 'c', tool: 'mail', arguments: {}, depends_on: ['b'] },
      { id: 'd', tool: 'news', arguments: {} },
    ],
  })}</plan>`;
  const first = turn(state, plan, 'paraact', (call) =>
    call.id === 'a'
      ? { status: 429, body: { title: 'Too Many Requests' }, error: 'rate_limit', headers: { 'retry-after': '1' } }
      : ok(),
  );
  assert.deepEqual(sent(first.dispatch), ['a', 'd']);
  assert.equal(state.results.get('a')?.ok, false);
  assert.equal(state.results.get('a')?.error, '429 rate_limit, injected');
  assert.match(first.text, /"id":"a","tool":"geo","status":429,"error":"rate_limit \(injected\)","retry_after":"1"/);
  assert.match(first.text, /failed: a/);

  const skipped = turn(state, '<tool_call>{"id": "b"}</tool_call>', 'paraact', ok);
  assert.deepEqual(sent(skipped.dispatch), []);
  assert.deepEqual(
    skipped.dispatch.notRun.map((n) => [n.id, n.kind]),
    [['b', 'skipped']],
  );
  assert.match(skipped.text, /b \(weather\): upstream a failed \(429 rate_limit, injected\); retry a first/);
  assert.equal(state.plan?.nodes.get('b')?.status, 'skipped');
  const downstream = turn(state, '<tool_call>{"id": "c"}</tool_call>', 'paraact', ok);
  assert.match(downstream.dispatch.notRun[0]!.reason, /upstream b was skipped; retry b first/);

  turn(state, '<tool_call>{"id": "a"}</tool_call>', 'paraact', ok);
  assert.equal(state.plan?.nodes.get('a')?.status, 'done');
  const retried = turn(state, '<tool_call>{"id": "b"}</tool_call>', 'paraact', () => ({
    status: 200,
    body: { ok: true },
  }));
  assert.deepEqual(sent(retried.dispatch), ['b']);
  assert.deepEqual((retried.dispatch.actions[0] as ToolCallAction).arguments, { lat: 1.5 });
});

test('a reference that does not resolve against the upstream result is reported and blocks its dependents', () => {
  const state = freshState();
  const plan = `<plan>${JSON.stringify({
    phase: 'execution',
    calls: [
      { id: 'a', tool: 'geo', arguments: {} },
      { id: 'b', tool: 'weather', arguments: { id: { $ref: 'a.body.items[0].id' } } },
      { id: 'c', tool: 'mail', arguments: {}, depends_on: ['b'] },
    ],
  })}</plan>`;
  turn(state, plan, 'paraact', () => ({ status: 200, body: { items: [] } }));
  const bound = turn(state, '<tool_call>{"id": "b"}</tool_call>', 'paraact', ok);
  assert.deepEqual(sent(bound.dispatch), []);
  assert.equal(bound.dispatch.notRun[0]!.kind, 'unbound');
  assert.match(bound.text, /b \(weather\): cannot bind a\.body\.items\[0\]\.id: a\.body\.items has 0 items, no \[0\]/);
  const after = turn(state, '<tool_call>{"id": "c"}</tool_call>', 'paraact', ok);
  assert.match(after.dispatch.notRun[0]!.reason, /upstream b failed; retry b first/);
});

test(
  'Parallel is dependency-blind: ' + 'every call goes out at once and references to same-turn calls stay unresolved',
  () => {
    const state = freshState();
    const text = [
      '<tool_call>{"id": "a", "tool": "geo", "arguments": {"city": "Paris"}}</tool_call>',
      '<tool_call>{"id": "b", "tool": "weather", "arguments": {"lat": {"$ref": "a.body.lat"}}}</tool_call>',
    ].join('');
    const first = turn(state, text, 'parallel', (call) =>
      call.id === 'b'
        ? { status: 400, body: { detail: 'invalid arguments', errors: [{ path: '/lat', message: 'must be number' }] } }
        : ok(),
    );
    assert.deepEqual(sent(first.dispatch), ['a', 'b']);
    assert.deepEqual((first.dispatch.actions[1] as ToolCallAction).arguments, { lat: { $ref: 'a.body.lat' } });
    assert.equal(state.results.get('b')?.unresolved, true);
    assert.equal(state.results.get('b')?.error, '400: invalid arguments; /lat must be number');
    assert.match(first.text, /Sent with unresolved references: b\./);
    // Sent again once `a` has a result, the same reference resolves.
    const again = turn(
      state,
      '<tool_call>{"id": "b", "tool": "weather", "arguments": {"lat": {"$ref": "a.body.lat"}}}</tool_call>',
      'parallel',
      ok,
    );
    assert.deepEqual((again.dispatch.actions[0] as ToolCallAction).arguments, { lat: 1.5 });
  },
);

test('ad hoc calls get fresh ids; ReAct and ParaAct refuse to run a call whose input is sent in the same turn', () => {
  const state = freshState();
  state.results.set('c1', { id: 'c1', tool: 'geo', turn: 0, arguments: {}, status: 200, body: {}, ok: true });
  const first = turn(
    state,
    '<tool_call>{"tool": "geo"}</tool_call><tool_call>{"tool": "news"}</tool_call>',
    'paraact',
    ok,
  );
  assert.deepEqual(sent(first.dispatch), ['c2', 'c3']);
  const plan = `<plan>${JSON.stringify({
    phase: 'execution',
    calls: [
      { id: 'x', tool: 'geo' },
      { id: 'y', tool: 'mail', arguments: { v: { $ref: 'x.body.id' } } },
    ],
  })}</plan>`;
  const both = turn(
    state,
    `${plan}<tool_call>{"id": "x"}</tool_call><tool_call>{"id": "y"}</tool_call>`,
    'paraact',
    ok,
  );
  assert.deepEqual(sent(both.dispatch), ['x']);
  assert.match(both.dispatch.notRun[0]!.reason, /needs x's result, and x is sent in this same turn; call it next turn/);
});
