import assert from 'node:assert/strict';
import { test } from 'node:test';
import { heuristicPolicy } from '../../src/agent/heuristic/policy.js';
import { fieldPath, linkPath } from '../../src/agent/heuristic/links.js';
import { planSlots } from '../../src/agent/heuristic/plan.js';
import { askedFields, fieldValue, reportSlot, withoutAsked } from '../../src/agent/heuristic/report.js';
import { querySlots } from '../../src/agent/heuristic/slots.js';
import { fillFromText, schemaDefault } from '../../src/agent/heuristic/values.js';
import { checkMessage } from '../../src/protocol/check.js';
import { parseMessage } from '../../src/protocol/parse.js';
import { newRunState, type CallOutcome, type RunState } from '../../src/protocol/state.js';
import type { AgentName } from '../../src/agent/types.js';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { petstoreTools } from '../fixtures/tools.js';

const tool = (
  id: string,
  name: string,
  description: string,
  properties: Record<string, unknown>,
  required: string[] = [],
  response_schema?: unknown,
): Tool => ({
  id,
  name,
  description,
  category: 'test',
  parameters: { type: 'object', properties: properties as Record<string, JsonSchema>, required },
  ...(response_schema ? { response_schema: response_schema as JsonSchema } : {}),
  examples: [],
  origin: { format: 'openai', name: id },
});

const pet = (id: string) => petstoreTools.find((t) => t.id === id)!;

test(
  'capability slots: clauses at sentence ends and connectives, ' +
    'never inside quotes; thin fragments rejoin their clause',
  () => {
    const texts = (q: string) => querySlots(q).map((s) => s.text);
    assert.deepEqual(
      texts('Add a pet named "Rex", then find the pet by its id, and get the weather forecast for Paris.'),
      ['Add a pet named "Rex"', 'find the pet by its id', 'get the weather forecast for Paris'],
    );
    assert.deepEqual(
      texts(
        'Send an email to bob@example.com with subject "Fish and chips, ' +
          'then more" and body "Hi". Also convert 3.5 USD to EUR',
      ),
      [
        'Send an email to bob@example.com with subject "Fish and chips, then more" and body "Hi"',
        'convert 3.5 USD to EUR',
      ],
    );
    assert.deepEqual(texts('What is the weather in Paris, London and Berlin?'), [
      'What is the weather in Paris, London and Berlin',
    ]);
    assert.deepEqual(texts('Please list my emails; additionally translate "hola" into English'), [
      'Please list my emails',
      'translate "hola" into English',
    ]);
    const [slot] = querySlots('Please find the pet named "Rex" for bob@example.com');
    assert.equal(slot!.query, 'find the pet named for', 'the search drops quoted values, emails and filler');
    assert.deepEqual(texts('hello'), ['hello']);
    assert.equal(querySlots(Array.from({ length: 12 }, (_, i) => `get report number ${i}`).join(' and ')).length, 8);
  },
);

test(
  'arguments from the text: quoted values, emails, dates, enums, numbers, ' +
    'codes and proper nouns by type, format and the words next to them',
  () => {
    const mail = tool(
      'send',
      'send mail',
      'Send an email',
      {
        to: { type: 'string', format: 'email' },
        subject: { type: 'string' },
        body: { type: 'string' },
        cc: { type: 'string' },
      },
      ['to'],
    );
    assert.deepEqual(fillFromText(mail, 'Email bob@example.com with subject "Lunch" and body "See you at noon"'), {
      arguments: { to: 'bob@example.com', subject: 'Lunch', body: 'See you at noon' },
      missing: [],
    });
    const events = tool('events', 'list events', 'List events', {
      start_date: { type: 'string', format: 'date' },
      status: { type: 'string', enum: ['open', 'closed', 'archived'] },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      days: { type: 'integer' },
      city: { type: 'string' },
      verbose: { type: 'boolean' },
    });
    assert.deepEqual(
      fillFromText(events, 'List the closed events in Berlin since 2024-05-01, limit 20, for the next 3 days')
        .arguments,
      {
        start_date: '2024-05-01',
        status: 'closed',
        limit: 20,
        days: 3,
        city: 'Berlin',
      },
    );
    // A number out of a parameter's range does not go there; an optional parameter never takes a value nothing ties to
    // it.
    assert.deepEqual(fillFromText(events, 'show 900 events').arguments, {});
    const quote = tool(
      'quote',
      'stock quote',
      'Latest price',
      { symbol: { type: 'string' }, currency: { type: 'string' } },
      ['symbol'],
    );
    assert.deepEqual(fillFromText(quote, 'get the price of AAPL in currency EUR').arguments, {
      symbol: 'AAPL',
      currency: 'EUR',
    });
    const order = tool('order', 'get order', 'Get an order', { order_id: { type: 'string' } }, ['order_id']);
    assert.deepEqual(fillFromText(order, 'look up order ORD-1234 please'), {
      arguments: { order_id: 'ORD-1234' },
      missing: [],
    });
    const search = tool('news', 'search news', 'Search news', { q: { type: 'string' }, page: { type: 'integer' } }, [
      'q',
    ]);
    assert.deepEqual(fillFromText(search, 'news about electric cars'), {
      arguments: { q: 'news about electric cars' },
      missing: [],
    });
    // Values elsewhere in the task fill this call only when the text names the parameter next to them.
    const weather = tool('w', 'weather', 'Weather', { city: { type: 'string' }, units: { type: 'string' } }, ['city']);
    assert.deepEqual(
      fillFromText(weather, 'get the weather', 'Book a table at "Chez Paul" and get the weather for city Lyon')
        .arguments,
      { city: 'Lyon' },
    );
    assert.deepEqual(fillFromText(weather, 'get the weather', 'Book a table at "Chez Paul"'), {
      arguments: {},
      missing: ['city'],
    });
  },
);

test('schema defaults fill what the text leaves empty, but never invent an identifier', () => {
  const t = tool('t', 't', 't', {
    a: { type: 'string', default: 'x' },
    b: { type: 'string', examples: ['ex'] },
    c: { type: 'string', enum: ['first', 'second'] },
    d: { type: 'integer', minimum: 5 },
    e: { type: 'integer' },
    userId: { type: 'integer' },
    order_key: { type: 'string' },
    flag: { type: 'boolean' },
    free: { type: 'string' },
  });
  const value = (name: string) => schemaDefault(t, name)?.value;
  assert.deepEqual(['a', 'b', 'c', 'd', 'e', 'flag'].map(value), ['x', 'ex', 'first', 5, 1, false]);
  assert.equal(schemaDefault(t, 'userId'), undefined);
  assert.equal(schemaDefault(t, 'order_key'), undefined);
  assert.equal(schemaDefault(t, 'free'), undefined);
});

test(
  'upstream links: the dependency graph key first (petId ← a pet id), ' + 'then a response field of the same name',
  () => {
    assert.equal(linkPath(pet('petstore_test__getPetById'), 'petId', pet('petstore_test__addPet')), 'body.id');
    assert.equal(linkPath(pet('petstore_test__getPetById'), 'petId', pet('petstore_test__listPets')), 'body[0].id');
    const geo = tool('geo', 'geocode', 'Geocode', { address: { type: 'string' } }, ['address'], {
      type: 'object',
      properties: {
        results: {
          type: 'array',
          items: { type: 'object', properties: { lat: { type: 'number' }, lon: { type: 'number' } } },
        },
      },
    });
    const forecast = tool('fc', 'forecast', 'Forecast', { lat: { type: 'number' }, lon: { type: 'number' } }, [
      'lat',
      'lon',
    ]);
    assert.equal(linkPath(forecast, 'lat', geo), 'body.results[0].lat');
    assert.equal(linkPath(forecast, 'lat', pet('petstore_test__addPet')), undefined);
    assert.equal(fieldPath('data[].items[].user_id'), '.data[0].items[0].user_id');
    assert.equal(fieldPath('[].weird key'), '[0]["weird key"]');
  },
);

/** A state where one search per slot returned these tools (records included), and these calls happened. */
function stateAfter(searches: [string, Tool[]][], calls: Partial<CallOutcome>[] = []): RunState {
  const state = newRunState();
  searches.forEach(([query, tools], i) => {
    state.searches.push({
      id: `s${i + 1}`,
      turn: 1,
      query,
      k: 3,
      results: tools.map((t, rank) => ({
        id: t.id,
        name: t.name,
        description: t.description,
        category: t.category,
        score: 10 - rank,
      })),
    });
    for (const t of tools) {
      if (!state.tools.has(t.id)) state.surfaced.push(t.id);
      state.tools.set(t.id, t);
      state.hits.set(t.id, { id: t.id, name: t.name, description: t.description, category: t.category, score: 1 });
    }
  });
  for (const call of calls) {
    const outcome = { turn: 2, arguments: {}, body: {}, ok: false, ...call } as CallOutcome;
    state.calls.push(outcome);
    state.results.set(outcome.id, outcome);
  }
  return state;
}

const QUERY = 'Add a pet named "Rex", then find the pet by its id';
const addPet = pet('petstore_test__addPet');
const getPet = pet('petstore_test__getPetById');
const altAdd = tool(
  'pets2_add',
  'Create pet',
  'Create a new pet record in the second store',
  { name: { type: 'string' } },
  ['name'],
  { type: 'object', properties: { id: { type: 'integer' } } },
);
const deletePet = pet('petstore_test__deletePet');

test(
  'the plan: one call per slot, a reference where a required input ' +
    'comes from another slot, destructive tools never chosen to find',
  () => {
    const state = stateAfter([
      ['Add a pet named', [addPet, deletePet, altAdd]],
      ['find the pet by its id', [getPet, deletePet]],
    ]);
    const plans = planSlots(QUERY, state);
    assert.deepEqual(
      plans.map((p) => [p.status, p.call?.id, p.call?.tool.id]),
      [
        ['call', 'c1', 'petstore_test__addPet'],
        ['call', 'c2', 'petstore_test__getPetById'],
      ],
    );
    assert.deepEqual(plans[0]!.call!.arguments, { name: 'Rex' });
    assert.deepEqual(plans[1]!.call!.arguments, { petId: { $ref: 'c1.body.id' } });
    assert.deepEqual(plans[1]!.call!.producers, ['c1']);
  },
);

test(
  'recovery: an injected rate limit is retried once under the same id; ' +
    'a second failure or an auth failure moves to the next tool',
  () => {
    const searches: [string, Tool[]][] = [
      ['Add a pet named', [addPet, altAdd]],
      ['find the pet by its id', [getPet]],
    ];
    const slot0 = (calls: Partial<CallOutcome>[]) => planSlots(QUERY, stateAfter(searches, calls))[0]!;
    assert.equal(slot0([{ id: 'c1', tool: addPet.id, status: 429, injected: 'rate_limit' }]).call!.id, 'c1');
    const twice = slot0([
      { id: 'c1', tool: addPet.id, status: 429, injected: 'rate_limit' },
      { id: 'c1', tool: addPet.id, status: 503, injected: 'network' },
    ]);
    assert.deepEqual([twice.status, twice.call!.id, twice.call!.tool.id], ['call', 'c1_2', 'pets2_add']);
    const auth = slot0([{ id: 'c1', tool: addPet.id, status: 401, injected: 'auth' }]);
    assert.equal(auth.call!.id, 'c1_2');
    // The consumer now reads from the replacement.
    const plans = planSlots(QUERY, stateAfter(searches, [{ id: 'c1', tool: addPet.id, status: 400 }]));
    assert.deepEqual(plans[1]!.call!.arguments, { petId: { $ref: 'c1_2.body.id' } });

    // Every candidate failed: search again wider, then give the slot up, and its consumers with it.
    const failedBoth: Partial<CallOutcome>[] = [
      { id: 'c1', tool: addPet.id, status: 400 },
      { id: 'c1_2', tool: altAdd.id, status: 404 },
    ];
    assert.equal(planSlots(QUERY, stateAfter(searches, failedBoth))[0]!.status, 'research');
    const widened = stateAfter(searches, failedBoth);
    widened.searches.push({ id: 's3', turn: 3, query: 'Add a pet named', k: 9, results: [] });
    const [gaveUp, consumer] = planSlots(QUERY, widened);
    assert.equal(gaveUp!.status, 'abandoned');
    assert.match(gaveUp!.reason!, /every tool found for it failed \(petstore_test__addPet, pets2_add\)/);
    assert.equal(consumer!.status, 'abandoned');
    assert.match(consumer!.reason!, /needs the output of c1_2/);
  },
);

test(
  'the heuristic speaks each protocol: its messages pass the client checks, ' +
    'ParaAct searching all slots at once and ReAct one',
  async () => {
    const policy = heuristicPolicy();
    const task = { id: 't', query: QUERY };
    const first = async (agent: AgentName, state: RunState) =>
      (await policy.next([], { agent, task, turn: 1, state })).text;
    for (const agent of ['paraact', 'react', 'parallel'] as const) {
      const text = await first(agent, newRunState());
      assert.deepEqual(checkMessage(parseMessage(text), agent, newRunState()).problems, [], `${agent}: ${text}`);
      assert.equal(parseMessage(text).searches.length, agent === 'react' ? 1 : 2, agent);
    }
    const state = stateAfter([
      ['Add a pet named', [addPet]],
      ['find the pet by its id', [getPet]],
    ]);
    const execution = await first('paraact', state);
    assert.deepEqual(checkMessage(parseMessage(execution), 'paraact', state).problems, []);
    assert.deepEqual(parseMessage(execution).plan, {
      phase: 'execution',
      tools: ['petstore_test__addPet', 'petstore_test__getPetById'],
      calls: [
        { id: 'c1', tool: 'petstore_test__addPet', arguments: { name: 'Rex' }, depends_on: [] },
        {
          id: 'c2',
          tool: 'petstore_test__getPetById',
          arguments: { petId: { $ref: 'c1.body.id' } },
          depends_on: ['c1'],
        },
      ],
      layers: [['c1'], ['c2']],
    });
    assert.deepEqual(parseMessage(execution).calls, [{ id: 'c1' }]);
    // On the last turn it answers with what it has.
    const last = await policy.next([], { agent: 'paraact', task, turn: 15, maxTurns: 15, state });
    assert.match(parseMessage(last.text).answer!, /not done within the turn limit/);
    assert.deepEqual(last.usage, { prompt: 0, completion: Math.ceil(last.text.length / 4) });
  },
);

test(
  'a call missing a required identifier that nothing provides is not sent: ' + 'the slot is given up with the reason',
  async () => {
    const state = stateAfter([['find the pet by its id', [getPet]]]);
    const [alone] = planSlots('find the pet by its id', state);
    assert.equal(alone!.status, 'abandoned');
    assert.equal(alone!.reason, 'nothing in the task or in other results gives petId');
    const reply = await heuristicPolicy().next([], {
      agent: 'paraact',
      task: { id: 't', query: 'find the pet by its id' },
      turn: 2,
      state,
    });
    assert.match(
      parseMessage(reply.text).answer!,
      /find the pet by its id: not done, nothing in the task or in other results gives petId\./,
    );
    // Given in the task, the id is used as it is.
    const [given] = planSlots('find the pet with id 42', stateAfter([['find the pet with id 42', [getPet]]]));
    assert.deepEqual([given!.status, given!.call!.arguments], ['call', { petId: 42 }]);
  },
);

test(
  'a synthesized task as the heuristic reads it: a parameter written ' +
    'as one word claims its value, the fields it asks for give no argument',
  () => {
    // `with accountId "…"` names the parameter in one word; `name` would otherwise take the quoted value by its hint.
    const create = tool(
      'create',
      'Creates a new PowerForm',
      'Creates a new PowerForm',
      { accountId: { type: 'string' }, name: { type: 'string' }, quotaUser: { type: 'string' } },
      ['accountId'],
    );
    const query = 'Creates a new PowerForm with accountId "4af5c240-d441". Tell me the "name" in the result.';
    assert.deepEqual(fillFromText(create, withoutAsked(query)).arguments, { accountId: '4af5c240-d441' });
    // A value the clause gave one parameter is not given a second one from the rest of the task.
    const headers = tool(
      'h',
      'Describe snapshot',
      'Describe',
      { 'X-Amz-Target': { type: 'string' }, 'X-Amz-Date': { type: 'string' } },
      ['X-Amz-Target'],
    );
    const text = 'Describe snapshot with X-Amz-Target "Kinesis.Describe"';
    assert.deepEqual(fillFromText(headers, text, `${text}. Tell me the "id" in the result.`).arguments, {
      'X-Amz-Target': 'Kinesis.Describe',
    });
    // A parameter name followed by its value is an argument of the clause before, not a capability of its own.
    assert.deepEqual(
      querySlots(
        'List history with id4n "duster" and organizationId "Heller - Ritchie". Tell me the "type" in the result.',
      ).map((s) => s.text),
      ['List history with id4n "duster" and organizationId "Heller - Ritchie". Tell me the "type" in the result'],
    );
  },
);

test('the answer reports the fields the task asks for, read from the body by path or by name, else the body', () => {
  assert.deepEqual(
    askedFields('1. Get a pet. 2. Get its owner. Tell me the "name" from step 1 and the "owner.id" from step 2.'),
    [
      { key: 'name', step: 0 },
      { key: 'owner.id', step: 1 },
    ],
  );
  assert.deepEqual(askedFields('Get the weather in Paris'), []);
  const body = { data: [{ id: 'inv_1', lines: { total: 1200 } }], metadata: { id: 94443 } };
  assert.deepEqual(fieldValue(body, 'data.id'), { value: 'inv_1' });
  assert.deepEqual(
    fieldValue(body, 'total'),
    { value: 1200 },
    'a name the top level lacks is found below, arrays at their first item',
  );
  assert.equal(fieldValue(body, 'missing'), undefined);
  assert.equal(reportSlot(body, [{ key: 'total' }], 0), 'the "total" is 1200');
  assert.equal(
    reportSlot(body, [{ key: 'total', step: 1 }], 0),
    'the "total" is 1200',
    'another step’s field, when the slot’s own are not there',
  );
  assert.match(reportSlot(body, [{ key: 'nowhere' }], 0), /^returned \{"data"/);
});
