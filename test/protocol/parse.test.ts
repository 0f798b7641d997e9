import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkMessage } from '../../src/protocol/check.js';
import { parseMessage } from '../../src/protocol/parse.js';
import { newRunState, type RunState } from '../../src/protocol/state.js';
import type { Protocol } from '../../src/wire/episodes.js';

/** A run state in which search has surfaced these tools and these calls have results. */
function stateWith(tools: string[], results: Record<string, boolean> = {}): RunState {
  const state = newRunState();
  for (const id of tools) {
    state.surfaced.push(id);
    state.hits.set(id, { id, name: id, description: '', category: 'test', score: 1 });
  }
  for (const [id, ok] of Object.entries(results)) {
    state.results.set(id, { id, tool: tools[0]!, turn: 1, arguments: {}, status: ok ? 200 : 500, body: { id: 7 }, ok });
  }
  return state;
}

const problemsOf = (
  text: string,
  agent: Protocol = 'paraact',
  state: RunState = stateWith(['geo', 'weather', 'mail']),
) => checkMessage(parseMessage(text), agent, state).problems;

test('a well-formed exploration turn: think, plan with slots, parallel searches in every accepted form', () => {
  const message = parseMessage(
    [
      '<think>Two capabilities are missing.</think>',
      '<plan>{"phase": "exploration", "slots": ["look up weather", {"capability": "convert money", "query": ' +
        '"currency exchange"}]}</plan>',
      '<search_tool>look up weather</search_tool>',
      '<search_tool>{"query": "currency exchange", "k": 5}</search_tool>',
      '<search_tool>["send an email", {"query": "geocode"}]</search_tool>',
    ].join('\n'),
  );
  assert.deepEqual(message.problems, []);
  assert.equal(message.think, 'Two capabilities are missing.');
  assert.deepEqual(message.plan, {
    phase: 'exploration',
    slots: [
      { capability: 'look up weather', query: 'look up weather' },
      { capability: 'convert money', query: 'currency exchange' },
    ],
  });
  assert.deepEqual(message.searches, [
    { query: 'look up weather' },
    { query: 'currency exchange', k: 5 },
    { query: 'send an email' },
    { query: 'geocode' },
  ]);
  assert.deepEqual(checkMessage(message, 'paraact', newRunState()).problems, []);
});

test('a well-formed execution turn: the plan becomes a DAG with layers; calls may be named by id', () => {
  const text = `<think>c2 needs c1's coordinates.</think>
<plan>{"phase": "execution", "tools": ["geo", "weather"], "calls": [
  {"id": "c1", "tool": "geo", "arguments": {"city": "Paris"}},
  {"id": "c2", "tool": "weather", "arguments": {"lat": {"$ref": "c1.body.lat"}}, "depends_on": ["c1"]},
  {"id": "c3", "tool": "geo", "arguments": {"city": "Rome"}}
], "layers": [["c1", "c3"], ["c2"]]}</plan>
<tool_call>{"id": "c1"}</tool_call>
<tool_call>{"id": "c3"}</tool_call>`;
  const message = parseMessage(text);
  assert.deepEqual(message.problems, []);
  assert.deepEqual(message.calls, [{ id: 'c1' }, { id: 'c3' }]);
  const checked = checkMessage(message, 'paraact', stateWith(['geo', 'weather']));
  assert.deepEqual(checked.problems, []);
  assert.deepEqual(checked.plan?.layers, [['c1', 'c3'], ['c2']]);
  assert.deepEqual(checked.plan?.deps.get('c2'), ['c1']);
});

test(
  'model noise is tolerated: code fences, trailing commas, stray text, ' +
    'arrays or sequences in one tag, a missing closing tag at the end',
  () => {
    const message = parseMessage(`Sure! Here is my next step.
<THINK>  thinking  </THINK>
some text outside tags
<tool_call>
\`\`\`json
{"id": "c1", "tool": "geo", "arguments": {"city": "Paris",},}
\`\`\`
</tool_call>
<tool_call>[{"tool": "weather"}, {"name": "mail", "arguments": "{\\"to\\": \\"a@b.c\\"}"}]</tool_call>
<tool_call>{"tool": "geo", "arguments": {"city": "Oslo"}}
{"tool": "geo", "arguments": {"city": "Rome"}}`);
    assert.deepEqual(message.problems, []);
    assert.equal(message.think, 'thinking');
    assert.deepEqual(message.calls, [
      { id: 'c1', tool: 'geo', arguments: { city: 'Paris' } },
      { tool: 'weather' },
      { tool: 'mail', arguments: { to: 'a@b.c' } },
      { tool: 'geo', arguments: { city: 'Oslo' } },
      { tool: 'geo', arguments: { city: 'Rome' } },
    ]);
    assert.deepEqual(checkMessage(message, 'parallel', stateWith(['geo', 'weather', 'mail'])).problems, []);

    // An unclosed block ends where the next one opens; the plan's phase is inferred from its members.
    const unclosed = parseMessage('<think>I forgot to close this <plan>{"calls": [{"id": "a", "tool": "geo"}]}</plan>');
    assert.deepEqual(unclosed.problems, []);
    assert.equal(unclosed.think, 'I forgot to close this');
    assert.equal(unclosed.plan?.phase, 'execution');
    assert.equal(parseMessage('<answer>Paris is sunny').answer, 'Paris is sunny');
  },
);

test('raw line breaks and tabs inside JSON strings (long text arguments) are read as the text they write', () => {
  const message = parseMessage(
    '<tool_call>{"tool": "mail", "arguments": {"to": "a@b.c", "body": "Dear Bob,\n\n\tsee you at noon.\r\n' +
      'Alice\u0007"}}</tool_call>\n<tool_call>{"name": "mail", "arguments": "{\\"body\\": \\"line 1\n' +
      'line 2\\"}"}</tool_call>',
  );
  assert.deepEqual(message.problems, []);
  assert.deepEqual(message.calls, [
    { tool: 'mail', arguments: { to: 'a@b.c', body: 'Dear Bob,\n\n\tsee you at noon.\r\nAlice\u0007' } },
    { tool: 'mail', arguments: { body: 'line 1\nline 2' } },
  ]);
  // Only inside strings: outside them JSON's own rules still hold.
  assert.ok(
    problemsOf('<tool_call>{"tool": "geo",\u0007 "arguments": {}}</tool_call>').some((p) =>
      /<tool_call>: not JSON/.test(p),
    ),
  );
});

test('malformed blocks are rejected with a reason naming the block', () => {
  const cases: [string, RegExp][] = [
    ['<tool_call>{tool: "geo"}</tool_call>', /<tool_call>: not JSON: .*position 1/],
    ['<tool_call>{"tool": "geo"</tool_call>', /<tool_call>: not JSON: 1 bracket is never closed/],
    ['<tool_call>{"tool": "geo", "args": {}}</tool_call>', /<tool_call>: has an unknown member "args"/],
    ['<tool_call>{"arguments": {}}</tool_call>', /<tool_call>: is missing "tool"/],
    ['<tool_call>{"tool": "geo", "arguments": "{oops"}</tool_call>', /"arguments" is a string that is not JSON/],
    ['<tool_call>{"id": "1st", "tool": "geo"}</tool_call>', /<tool_call>: id must be a short id/],
    ['<tool_call></tool_call>', /<tool_call>: empty/],
    ['<search_tool></search_tool>', /<search_tool>: empty/],
    ['<search_tool>{"query": "x", "k": 50}</search_tool>', /<search_tool>: k must be <= 10/],
    [
      '<plan>{"phase": "exploration", "slots": []}</plan><search_tool>x</search_tool>',
      /<plan>: slots must NOT have fewer than 1 items/,
    ],
    ['<plan>{"phase": "execution", "calls": [{"id": "c1"}]}</plan>', /<plan>: calls.0 is missing "tool"/],
    ['<plan>{"phase": "launch"}</plan>', /<plan>: phase must be equal to one of the allowed values/],
    ['<plan>{"a": 1}{"b": 2}</plan>', /<plan>: holds 2 JSON values/],
    ['<plan>[1]</plan>', /<plan>: must be a JSON object/],
    [
      '<plan>{"phase":"exploration","slots":["a"]}</plan><plan>{"phase":"exploration","slots":["b"]}</plan>',
      /more than one <plan>/,
    ],
    ['<answer>  </answer>', /<answer> is empty/],
    ['<answer>a</answer><answer>b</answer>', /more than one <answer>/],
  ];
  for (const [text, reason] of cases) {
    const problems = problemsOf(text, 'paraact');
    assert.ok(
      problems.some((p) => reason.test(p)),
      `${text}\n→ ${JSON.stringify(problems)}`,
    );
  }
});

test('protocol rules are checked against the run: tools, phases, actions per turn, references', () => {
  const cases: [string, Protocol, RegExp][] = [
    ['Just some prose.', 'paraact', /no action: write <search_tool>/],
    ['<think>only thinking</think>', 'react', /no action/],
    [
      '<search_tool>x</search_tool><tool_call>{"tool": "geo"}</tool_call>',
      'paraact',
      /explores \(<search_tool>\) or executes \(<tool_call>\), not both/,
    ],
    [
      '<tool_call>{"tool": "geo"}</tool_call><answer>done</answer>',
      'paraact',
      /an <answer> ends the run: send it alone/,
    ],
    [
      '<tool_call>{"tool": "nope"}</tool_call>',
      'paraact',
      /unknown tool "nope": not among the tools search returned \(geo, weather, mail\); search for it first/,
    ],
    [
      '<search_tool>a</search_tool><search_tool>b</search_tool>',
      'react',
      /ReAct takes one action per turn; this message has 2/,
    ],
    [
      '<plan>{"phase":"exploration","slots":["a"]}</plan><search_tool>a</search_tool>',
      'react',
      /<plan> is not part of the ReAct protocol/,
    ],
    [
      '<plan>{"phase":"exploration","slots":["a"]}</plan><search_tool>a</search_tool>',
      'parallel',
      /<plan> is not part of the Parallel protocol/,
    ],
    [
      '<plan>{"phase":"exploration","slots":["a"]}</plan><tool_call>{"tool": "geo"}</tool_call>',
      'paraact',
      /exploration plan is followed by <search_tool> actions/,
    ],
    [
      `<search_tool>${JSON.stringify(Array.from({ length: 9 }, (_, i) => `q${i}`))}</search_tool>`,
      'parallel',
      /9 searches in one turn; at most 8/,
    ],
    [
      '<tool_call>{"id": "c9"}</tool_call>',
      'paraact',
      /c9 is not a call of the current plan; give its "tool" and "arguments"/,
    ],
    [
      '<tool_call>{"id": "c1", "tool": "geo"}</tool_call><tool_call>{"id": "c1", "tool": "mail"}</tool_call>',
      'parallel',
      /c1 appears twice in this turn/,
    ],
    [
      '<tool_call>{"tool": "geo", "arguments": {"x": {"$ref": "c7.body.id"}}}</tool_call>',
      'paraact',
      /dangling reference c7\.body\.id: no call c7/,
    ],
    [
      '<tool_call>{"tool": "geo", "arguments": {"x": {"$ref": "c7.id"}}}</tool_call>',
      'paraact',
      /paths start at body, status or headers \(did you mean c7\.body\.id…\?\)/,
    ],
    [
      '<tool_call>{"tool": "geo", "arguments": {"x": {"$ref": "c1.body.id", "y": 1}}}</tool_call>',
      'paraact',
      /a reference is an object with "\$ref" alone/,
    ],
    [
      '<tool_call>{"tool": "geo", "arguments": {"x": "id {{c1.body..id}}"}}</tool_call>',
      'paraact',
      /cannot read the path at "\.\.id"/,
    ],
  ];
  for (const [text, agent, reason] of cases) {
    const problems = problemsOf(text, agent);
    assert.ok(
      problems.some((p) => reason.test(p)),
      `${agent}: ${text}\n→ ${JSON.stringify(problems)}`,
    );
  }
  assert.match(
    problemsOf('<tool_call>{"tool": "geo"}</tool_call>', 'paraact', newRunState())[0]!,
    /no search has returned tools yet; search first/,
  );
  // A reference to an earlier call's result, and, for Parallel only, to a call of the same turn.
  assert.deepEqual(
    problemsOf(
      '<tool_call>{"tool": "geo", "arguments": {"x": {"$ref": "c1.body.id"}}}</tool_call>',
      'react',
      stateWith(['geo'], { c1: true }),
    ),
    [],
  );
  const sameTurn =
    '<tool_call>{"id": "a", "tool": "geo"}</tool_call><tool_call>{"tool": "geo", "arguments": {"x": ' +
    '"{{a.body.id}}"}}</tool_call>';
  assert.deepEqual(problemsOf(sameTurn, 'parallel'), []);
  assert.match(problemsOf(sameTurn, 'paraact').join('\n'), /dangling reference a\.body\.id/);
});

test('execution plans are rejected for unknown tools, dangling edges and references, cycles and bad layers', () => {
  const plan = (calls: unknown[], extra: Record<string, unknown> = {}) =>
    `<plan>${JSON.stringify({ phase: 'execution', calls, ...extra })}</plan>`;
  const cases: [string, RegExp][] = [
    [plan([{ id: 'c1', tool: 'ghost' }]), /<plan>: tools: unknown tool "ghost"/],
    [plan([{ id: 'c1', tool: 'geo' }], { tools: ['weather'] }), /c1 calls geo, which is not in "tools"/],
    [
      plan([
        { id: 'c1', tool: 'geo' },
        { id: 'c1', tool: 'weather' },
      ]),
      /call id c1 is used twice/,
    ],
    [
      plan([{ id: 'c1', tool: 'geo', depends_on: ['c0'] }]),
      /c1 depends on c0, which is neither a call of this plan nor an earlier call \(dangling dependency\)/,
    ],
    [plan([{ id: 'c1', tool: 'geo', arguments: { a: { $ref: 'zz.body' } } }]), /dangling reference zz\.body/],
    [
      plan([
        { id: 'c1', tool: 'geo', depends_on: ['c3'] },
        { id: 'c2', tool: 'weather', depends_on: ['c1'] },
        { id: 'c3', tool: 'mail', arguments: { body: '{{c2.body.text}}' } },
      ]),
      /the dependencies form a cycle: c1 → c2 → c3 → c1/,
    ],
    [
      plan([{ id: 'c1', tool: 'geo', arguments: { a: { $ref: 'c1.body.id' } } }]),
      /the dependencies form a cycle: c1 → c1/,
    ],
    [
      plan(
        [
          { id: 'c1', tool: 'geo' },
          { id: 'c2', tool: 'weather', depends_on: ['c1'] },
        ],
        { layers: [['c1', 'c2']] },
      ),
      /c2 \(layer 1\) depends on c1, which runs in the same layer/,
    ],
    [
      plan(
        [
          { id: 'c1', tool: 'geo' },
          { id: 'c2', tool: 'weather' },
        ],
        { layers: [['c1']] },
      ),
      /layers: c2 is in no layer/,
    ],
    [
      plan([{ id: 'c1', tool: 'geo' }], { layers: [['c1'], ['c1']] }),
      /layers: c1 appears in layer 1 and again in layer 2/,
    ],
    [
      plan([{ id: 'c1', tool: 'geo' }], { layers: [['c1', 'x9']] }),
      /layers: layer 1 names x9, which is not a call of the plan/,
    ],
    [
      `${plan([{ id: 'c1', tool: 'geo' }])}<tool_call>{"id": "c1", "tool": "mail"}</tool_call>`,
      /c1 is planned as geo, not mail; a different call needs a new id/,
    ],
  ];
  for (const [text, reason] of cases) {
    const problems = problemsOf(text, 'paraact');
    assert.ok(
      problems.some((p) => reason.test(p)),
      `${text}\n→ ${JSON.stringify(problems)}`,
    );
  }
  // A dependency on a call of an earlier turn is an edge to a known result, not a dangling one.
  assert.deepEqual(
    problemsOf(
      plan([{ id: 'c5', tool: 'geo', arguments: { a: { $ref: 'c1.body.id' } }, depends_on: ['c1'] }]),
      'paraact',
      stateWith(['geo'], { c1: true }),
    ),
    [],
  );
});
