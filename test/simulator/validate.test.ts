import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Tool } from '../../src/library/tool.js';
import { LibraryStore } from '../../src/library/store.js';
import { NearestIds } from '../../src/simulator/nearest.js';
import { PROBLEM_TYPE_BASE, problem } from '../../src/simulator/problem.js';
import { Rules, type ArgumentError, type ToolSource } from '../../src/simulator/validate.js';
import { petstoreTools, writeFixtureLibrary } from '../fixtures/tools.js';

const strictTool: Tool = {
  id: 'shop_search',
  name: 'search',
  description: 'Search the shop',
  category: 'ecommerce',
  parameters: {
    type: 'object',
    required: ['query', 'filter'],
    additionalProperties: false,
    properties: {
      query: { type: 'string', minLength: 2 },
      status: { type: 'string', enum: ['available', 'pending', 'sold'] },
      filter: {
        type: 'object',
        required: ['price/max'],
        properties: { 'price/max': { type: 'number' }, tags: { type: 'array', items: { type: 'string' } } },
      },
      when: { type: 'string', format: 'date' },
    },
  },
  examples: [],
  origin: { format: 'openai', name: 'shop.search' },
};

const brokenTool: Tool = {
  id: 'broken_schema',
  name: 'broken',
  description: 'A tool whose parameter schema ajv rejects',
  category: 'misc',
  parameters: { type: 'object', required: ['a'], properties: { a: { type: 'integr' }, b: { $ref: '#/nowhere' } } },
  examples: [],
  origin: { format: 'openai', name: 'broken' },
};

function memoryStore(tools: Tool[]): ToolSource {
  const byId = new Map(tools.map((t) => [t.id, t]));
  const ids = tools.map((t) => t.id);
  return { get: (id) => byId.get(id), ids: () => ids };
}

function errorsOf(rules: Rules, toolId: string, args: unknown): ArgumentError[] {
  const outcome = rules.check(toolId, args);
  assert.equal(outcome.ok, false, `expected ${JSON.stringify(args)} to be rejected`);
  if (outcome.ok) return [];
  assert.equal(outcome.problem.status, 400);
  assert.equal(outcome.problem.title, 'Invalid arguments');
  assert.equal(outcome.problem.type, `${PROBLEM_TYPE_BASE}invalid-arguments`);
  return outcome.problem.errors as ArgumentError[];
}

test('problem bodies carry a type URI derived from the title, and the reason phrase by default', () => {
  assert.deepEqual(problem(404, 'Unknown tool', 'no tool x', { tool: 'x' }), {
    type: 'https://toolenv.dev/problems/unknown-tool',
    title: 'Unknown tool',
    status: 404,
    detail: 'no tool x',
    tool: 'x',
  });
  assert.deepEqual(problem(503), {
    type: 'https://toolenv.dev/problems/service-unavailable',
    title: 'Service Unavailable',
    status: 503,
  });
  assert.equal(
    problem(400, 'x', 'y', { status: 999, title: 'z' }).status,
    400,
    'extra members cannot override the standard ones',
  );
});

test('an unknown tool is a 404 problem naming the nearest ids, only those close to the asked id', () => {
  const store = LibraryStore.open(writeFixtureLibrary());
  const rules = new Rules(store);
  for (const [asked, nearest] of [
    ['getPetById', ['petstore_test__getPetById']],
    ['petstore_test__get_pet_by_id', ['petstore_test__getPetById']],
    ['GETPETBYID', ['petstore_test__getPetById']],
    ['petstore_test__getPetByld', ['petstore_test__getPetById']],
    ['weather', ['weather_forecast']],
    ['petstore_test__deletePets', ['petstore_test__deletePet', 'petstore_test__listPets']],
    ['!!!', []],
    ['no_such_tool_xyz', []],
  ] as const) {
    const outcome = rules.check(asked, {});
    assert.ok(!outcome.ok);
    assert.equal(outcome.problem.status, 404);
    assert.equal(outcome.problem.type, 'https://toolenv.dev/problems/unknown-tool');
    assert.equal(outcome.problem.tool, asked);
    assert.deepEqual(outcome.problem.suggestions, nearest, `nearest to ${asked}`);
    if (nearest.length > 0) assert.match(outcome.problem.detail!, new RegExp(`did you mean "${nearest[0]}"`));
    else assert.equal(outcome.problem.detail, `no tool with id ${JSON.stringify(asked)}`);
  }
  store.close();
});

test('suggestions rank by the words of the ids, typos included, and a nonsense id gets none', () => {
  // Real ids of the default library, among filler that makes `get`, `com` and `list` as common as they are there.
  const real = [
    'dodo_ac__get_nh_tools',
    'dodo_ac__get_nh_tools_tool',
    'math_tools__get_numbers_pi',
    'clicksend_com__Send_an_SMS',
    'clicksend_com__Get_SMS_Campaign',
    'clicksend_com__Get_list_of_SMS_Campaigns',
    'stripe_com__PostCustomers',
    'stripe_com__GetCustomersCustomer',
    'github_com_api_github_com__issues_create',
    'github_com_api_github_com__issues_list',
    'xkcd_com__getComicById',
  ];
  const filler = Array.from({ length: 200 }, (_, i) => `api${i}_example_com__${i % 2 ? 'get' : 'list'}Things${i}`);
  const tools = [...real, ...filler].map((id) => ({ ...petstoreTools[4]!, id }));
  const store = LibraryStore.open(writeFixtureLibrary(tools, []));
  const rules = new Rules(store);
  const suggestions = (asked: string) => {
    const outcome = rules.check(asked, {});
    assert.ok(!outcome.ok && outcome.problem.status === 404);
    return outcome.problem.suggestions as string[];
  };
  assert.equal(suggestions('clicksend_com__Get_list_of_SMS_Campaign')[0], 'clicksend_com__Get_list_of_SMS_Campaigns');
  assert.equal(suggestions('stripe_com__PostCustomer')[0], 'stripe_com__PostCustomers');
  assert.equal(suggestions('stripe_com__GetCustomresCustomer')[0], 'stripe_com__GetCustomersCustomer', 'a typo');
  assert.equal(suggestions('github_create_issue')[0], 'github_com_api_github_com__issues_create', 'words reordered');
  assert.equal(suggestions('clicksend_send_sms')[0], 'clicksend_com__Send_an_SMS');
  for (const nonsense of ['no_such_tool_xyz', 'foo_bar_baz', 'qwertyuiop', 'x']) {
    assert.deepEqual(suggestions(nonsense), [], nonsense);
  }
  store.close();
});

test('nearest ids stay right over a library-sized id list', () => {
  const ids: string[] = [];
  const verbs = ['get', 'list', 'create', 'update', 'delete', 'search'];
  const nouns = ['user', 'order', 'invoice', 'pet', 'repo', 'issue', 'comment', 'file', 'team', 'project'];
  for (let api = 0; ids.length < 50_011; api++) {
    for (const verb of verbs)
      for (const noun of nouns) ids.push(`api${api}_example_com__${verb}${noun[0]!.toUpperCase()}${noun.slice(1)}ById`);
  }
  ids.length = 50_011;
  const index = new NearestIds(ids);
  assert.equal(index.find('api77_example_com__getInvoiceByld')[0], 'api77_example_com__getInvoiceById');
  assert.equal(index.find('API512_EXAMPLE_COM__DELETE_ISSUE_BY_ID')[0], 'api512_example_com__deleteIssueById');
  assert.equal(index.find('api3_example_com__createTeam', 1)[0], 'api3_example_com__createTeamById');
  assert.deepEqual(index.find(''), []);
});

test('arguments must be a JSON object; no arguments at all counts as {}', () => {
  const rules = new Rules(memoryStore(petstoreTools));
  for (const [args, kind] of [
    [null, 'null'],
    [[1], 'an array'],
    ['petId=1', 'a string'],
    [7, 'a number'],
  ] as const) {
    const outcome = rules.check('petstore_test__listPets', args);
    assert.ok(!outcome.ok);
    assert.equal(outcome.problem.status, 400);
    assert.equal(outcome.problem.detail, `arguments must be a JSON object, got ${kind}`);
    assert.deepEqual(outcome.problem.errors, [{ path: '', message: 'must be object' }]);
  }
  assert.deepEqual(rules.check('petstore_test__listPets', undefined), { ok: true, tool: petstoreTools[0], args: {} });
});

test('schema violations are reported with JSON Pointer paths and messages an agent can act on', () => {
  const rules = new Rules(memoryStore([...petstoreTools, strictTool]));
  assert.deepEqual(errorsOf(rules, 'petstore_test__getPetById', {}), [{ path: '/petId', message: 'is required' }]);
  assert.deepEqual(errorsOf(rules, 'petstore_test__getPetById', { petId: 'seven' }), [
    { path: '/petId', message: 'must be integer' },
  ]);
  assert.deepEqual(errorsOf(rules, 'petstore_test__listPets', { limit: 0 }), [
    { path: '/limit', message: 'must be >= 1' },
  ]);

  const errors = errorsOf(rules, 'shop_search', {
    query: 'x',
    status: 'lost',
    filter: { tags: [1] },
    when: 'yesterday',
  });
  assert.deepEqual(
    new Set(errors.map((e) => `${e.path} ${e.message}`)),
    new Set([
      '/query must NOT have fewer than 2 characters',
      '/status must be one of "available", "pending", "sold"',
      '/filter/price~1max is required',
      '/filter/tags/0 must be string',
      '/when must match format "date"',
    ]),
  );
  const outcome = rules.check('shop_search', { status: 'lost' });
  assert.ok(!outcome.ok);
  assert.match(outcome.problem.detail!, /\/query is required/);
  assert.match(outcome.problem.detail!, /\/status must be one of "available", "pending", "sold"/);
  assert.equal(outcome.problem.tool, 'shop_search');

  assert.ok(rules.check('shop_search', { query: 'dog', filter: { 'price/max': 10 }, when: '2024-05-01' }).ok);
});

test('a schema ajv cannot compile leaves the tool callable, checks only required, and is counted', () => {
  const failures: string[] = [];
  const rules = new Rules(memoryStore([brokenTool]), { onCompileFailure: (id) => failures.push(id) });
  assert.deepEqual(errorsOf(rules, 'broken_schema', {}), [{ path: '/a', message: 'is required' }]);
  assert.ok(rules.check('broken_schema', { a: 'not an integer, but unchecked' }).ok);
  assert.deepEqual(failures, ['broken_schema'], 'compiled (and failed) once, then remembered');
});

test('validators are compiled lazily into a bounded LRU and still validate after eviction', () => {
  const rules = new Rules(memoryStore([...petstoreTools, strictTool]), { maxValidators: 2 });
  assert.equal(rules.compiled, 0);
  for (const tool of [...petstoreTools, strictTool]) rules.check(tool.id, {});
  assert.equal(rules.compiled, 2);
  assert.deepEqual(errorsOf(rules, 'petstore_test__getPetById', { petId: 1.5 }), [
    { path: '/petId', message: 'must be integer' },
  ]);
  assert.ok(rules.check('petstore_test__getPetById', { petId: 1 }).ok);
});
