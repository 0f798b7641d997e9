import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { createAjv } from '../../src/library/ajv.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import { synthesize } from '../../src/simulator/synth/index.js';
import type { Arguments } from '../../src/simulator/types.js';
import {
  createIssue,
  createIssueSynth,
  currentWeather,
  getCustomer,
  getIssue,
  getRepo,
  getUser,
  getUserSynth,
  listEvents,
  searchRepos,
} from '../fixtures/realism.js';

const ajv = createAjv();
type Json = Record<string, unknown>;
const SEEDS = Array.from({ length: 30 }, (_, i) => i + 1);

function assertValid(tool: Tool, body: unknown): void {
  const validate = ajv.compile(tool.response_schema as Exclude<JsonSchema, boolean>);
  assert.ok(validate(body), `${tool.id}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(body)}`);
}

async function example(tool: Tool, args: Arguments): Promise<Json> {
  const answer = await examplesResponder.respond(tool, args, { seed: 1 });
  assert.ok(answer);
  assertValid(tool, answer.body);
  return answer.body as Json;
}

function synth(tool: Tool, args: Arguments, seed: number): Json {
  const { body } = synthesize(tool, args, seed);
  assertValid(tool, body);
  return body as Json;
}

test(
  'the GitHub user example answers the user asked for, its ' + 'links too, and keeps the rest of its content',
  async () => {
    const body = await example(getUser, { username: 'torvalds' });
    assert.equal(body.login, 'torvalds');
    assert.equal(body.html_url, 'https://github.com/torvalds');
    assert.equal(body.repos_url, 'https://api.github.com/users/torvalds/repos');
    assert.equal(body.name, 'The Octocat');
    assert.equal(body.followers, 20);
    assert.equal((getUser.examples[0]!.body as Json).login, 'octocat', 'the tool record is untouched');
    assert.equal((await example(getUser, { username: 'octocat' })).login, 'octocat');
  },
);

test('a named example is answered as the spec wrote it', async () => {
  const tool: Tool = { ...getUser, examples: [{ name: 'octo', status: 200, body: getUser.examples[0]!.body }] };
  const answer = await examplesResponder.respond(tool, { username: 'torvalds' }, { seed: 1, exampleName: 'octo' });
  assert.equal((answer!.body as Json).login, 'octocat');
});

test('a synthesized user has the requested login, for every seed', () => {
  for (const seed of SEEDS) assert.equal(synth(getUserSynth, { username: 'torvalds' }, seed).login, 'torvalds');
});

test('a created issue echoes its title, body and labels, from the example and from the synthesizer', async () => {
  const args = {
    owner: 'octo-org',
    repo: 'widgets',
    title: 'Crash on start',
    body: 'It crashes',
    labels: ['crash', 'p1'],
  };
  const fromExample = await example(createIssue, args);
  assert.equal(fromExample.title, 'Crash on start');
  assert.equal(fromExample.body, 'It crashes');
  assert.deepEqual(fromExample.labels, ['crash', 'p1']);
  assert.equal(fromExample.number, 1347, 'what the request does not name stays as the example has it');
  for (const seed of SEEDS) {
    const body = synth(createIssueSynth, args, seed);
    assert.equal(body.title, 'Crash on start');
    assert.equal(body.body, 'It crashes');
    assert.deepEqual(body.labels, ['crash', 'p1']);
  }
});

test('an example change the response schema rejects is taken back', async () => {
  const strict = structuredClone(getUser);
  (strict.response_schema as { properties: Json }).properties.login = { type: 'string', pattern: '^[a-z]+$' };
  const body = await example(strict, { username: 'Tor_Valds' });
  assert.equal(body.login, 'octocat');
  assert.equal(body.html_url, 'https://github.com/octocat');
});

test(
  'an issue read by number has that number; a repository read by ' + 'owner and name has its full_name and owner.login',
  () => {
    for (const seed of SEEDS) {
      assert.equal(synth(getIssue, { owner: 'octo-org', repo: 'widgets', issue_number: 42 }, seed).number, 42);
      const repo = synth(getRepo, { owner: 'octo-org', repo: 'widgets' }, seed);
      assert.equal(repo.full_name, 'octo-org/widgets');
      assert.equal(repo.name, 'widgets');
      assert.equal((repo.owner as Json).login, 'octo-org');
    }
  },
);

test('temperatures lie in range for the scale their names state, humidity and percentages in [0, 100]', () => {
  const within = (value: unknown, min: number, max: number, name: string) => {
    const n = typeof value === 'string' ? Number(value) : (value as number);
    assert.ok(Number.isFinite(n) && n >= min && n <= max, `${name} = ${JSON.stringify(value)}`);
  };
  for (const seed of SEEDS) {
    const body = synth(currentWeather, { city: 'Oslo' }, seed);
    assert.equal(body.city, 'Oslo');
    if (body.TempF !== undefined) within(body.TempF, 0, 110, 'TempF');
    if (body.temp_f !== undefined) within(body.temp_f, 0, 110, 'temp_f');
    if (body.TempC !== undefined) within(body.TempC, -20, 40, 'TempC');
    if (body.temp_c !== undefined) within(body.temp_c, -20, 40, 'temp_c');
    if (body.temp_kelvin !== undefined) within(body.temp_kelvin, 250, 320, 'temp_kelvin');
    if (body.feels_like !== undefined) within(body.feels_like, -20, 40, 'feels_like');
    for (const key of ['humidity', 'relative_humidity', 'rh', 'cloud_cover_percent'])
      if (body[key] !== undefined) within(body[key], 0, 100, key);
    if (body.lat !== undefined) within(body.lat, -90, 90, 'lat');
    if (body.lon !== undefined) within(body.lon, -180, 180, 'lon');
    // Interzoid's weather answers every reading as a string: numbers, a compass point, a sky.
    if (body.WindMPH !== undefined) within(body.WindMPH, 0, 30, 'WindMPH');
    if (body.VisibilityMiles !== undefined) within(body.VisibilityMiles, 1, 10, 'VisibilityMiles');
    if (body.WindDir !== undefined) assert.match(String(body.WindDir), /^[NESW]{1,3}$/);
    if (body.Weather !== undefined)
      assert.match(
        String(body.Weather),
        /^(?:Clear|Sunny|(?:Partly|Mostly) Cloudy|Overcast|(?:Light )?Rain|Showers|Thunderstorms|Snow|Fog|Haze|Windy)$/,
      );
    if (body.weather_id !== undefined) assert.equal(typeof body.weather_id, 'number');
  }
});

const BRAND_PREFIX: Record<string, RegExp> = {
  Visa: /^4/,
  Mastercard: /^5[1-5]|^2[2-7]/,
  'American Express': /^3[47]/,
  Discover: /^6/,
};

test(
  'a customer read by id is not deleted; its card has four last ' + 'digits and a real brand, country and currency',
  () => {
    for (const seed of SEEDS) {
      const body = synth(getCustomer, { customer: 'cus_123' }, seed);
      assert.equal(body.id, 'cus_123');
      assert.notEqual(body.deleted, true, `seed ${seed}: ${JSON.stringify(body)}`);
      const source = body.default_source as Json | undefined;
      if (!source) continue;
      assert.match(String(source.last4), /^\d{4}$/);
      assert.ok(Object.keys(BRAND_PREFIX).includes(String(source.brand)), `brand ${String(source.brand)}`);
      if (source.exp_month !== undefined)
        assert.ok((source.exp_month as number) >= 1 && (source.exp_month as number) <= 12);
      if (source.exp_year !== undefined) assert.ok((source.exp_year as number) >= 2026);
      if (source.currency !== undefined)
        assert.ok(
          Intl.supportedValuesOf('currency').includes(String(source.currency)),
          `currency ${String(source.currency)}`,
        );
    }
  },
);

test('a card number, its brand and its last4 agree', () => {
  const tool: Tool = {
    ...getCustomer,
    id: 'cards',
    response_schema: {
      type: 'object',
      required: ['brand', 'number', 'last4'],
      properties: { brand: { type: 'string' }, number: { type: 'string' }, last4: { type: 'string' } },
    },
    origin: {
      format: 'openapi',
      api_id: 'realism.test',
      method: 'get',
      path: '/v1/cards/{card}',
      operation_id: 'cards',
      server: null,
    },
  };
  for (const seed of SEEDS) {
    const body = synth({ ...tool, parameters: { type: 'object', properties: {} }, bindings: {} }, {}, seed);
    const card = body as { brand: string; number: string; last4: string };
    assert.equal(card.number.slice(-4), card.last4);
    assert.match(card.number, BRAND_PREFIX[card.brand]!);
  }
});

test('a free-text search shows in every listed name; counts match their lists and totals are at least the page', () => {
  for (const seed of SEEDS) {
    const body = synth(searchRepos, { q: 'weather', per_page: 5 }, seed);
    const items = body.items as Json[];
    assert.equal(items.length, 5);
    assert.ok((body.total_count as number) >= items.length);
    for (const item of items) {
      assert.match(String(item.name), /weather/i);
      if (item.topics_count !== undefined && item.topics !== undefined)
        assert.equal(item.topics_count, (item.topics as unknown[]).length);
      if (item.created_at !== undefined && item.updated_at !== undefined)
        assert.ok(Date.parse(String(item.created_at)) <= Date.parse(String(item.updated_at)));
    }
  }
});

test(
  'a page count equals its list; a numeric-string count too; ' + 'created ≤ updated and start ≤ end in every item',
  () => {
    for (const seed of SEEDS) {
      const body = synth(listEvents, {}, seed);
      const events = body.events as Json[] | undefined;
      if (events && body.count !== undefined) assert.equal(body.count, events.length);
      for (const event of events ?? []) {
        const attendees = event.attendees as unknown[] | undefined;
        if (attendees && event.attendees_count !== undefined) assert.equal(event.attendees_count, attendees.length);
        if (attendees && event.num_attendees !== undefined) assert.equal(event.num_attendees, String(attendees.length));
        if (event.start_time !== undefined && event.end_time !== undefined)
          assert.ok(Date.parse(String(event.start_time)) <= Date.parse(String(event.end_time)), JSON.stringify(event));
        if (event.created !== undefined && event.updated !== undefined)
          assert.ok((event.created as number) <= (event.updated as number));
      }
    }
  },
);

test('the same call and seed give the same body', async () => {
  const args = { q: 'weather', per_page: 3 };
  assert.deepEqual(synthesize(searchRepos, args, 9), synthesize(searchRepos, args, 9));
  assert.deepEqual(
    await examplesResponder.respond(getUser, { username: 'torvalds' }, { seed: 2 }),
    await examplesResponder.respond(getUser, { username: 'torvalds' }, { seed: 2 }),
  );
});

test(
  'an example page of search results shows the search in each result; a customer example read by id is not ' +
    'deleted',
  async () => {
    const page: Tool = {
      ...searchRepos,
      examples: [
        {
          status: 200,
          body: {
            total_count: 2,
            incomplete_results: false,
            items: [
              { id: 1, name: 'Hello-World', description: 'My first repository on GitHub.' },
              { id: 2, name: 'Spoon-Knife', description: 'This repo is for demonstration purposes only.' },
            ],
          },
        },
      ],
    };
    const body = await example(page, { q: 'weather', per_page: 2 });
    const items = body.items as Json[];
    assert.deepEqual(
      items.map((item) => item.name),
      ['weather-Hello-World', 'weather-Spoon-Knife'],
    );
    assert.deepEqual(
      items.map((item) => item.id),
      [1, 2],
      'listed results keep their own ids',
    );
    const deleted: Tool = {
      ...getCustomer,
      examples: [{ status: 200, body: { id: 'cus_9', object: 'customer', deleted: true, email: 'jenny@example.com' } }],
    };
    const customer = await example(deleted, { customer: 'cus_123' });
    assert.equal(customer.id, 'cus_123');
    assert.equal(customer.deleted, false);
    assert.equal(customer.email, 'jenny@example.com');
  },
);

test('a filter expression is no search text: names stay as they were', () => {
  const tool: Tool = {
    ...searchRepos,
    id: 'filtered',
    parameters: { type: 'object', properties: { filter: { type: 'string' } } },
    bindings: { filter: { in: 'query', name: 'filter' } },
  };
  for (const seed of SEEDS.slice(0, 5))
    for (const item of synth(tool, { filter: "name eq 'x'" }, seed).items as Json[])
      assert.doesNotMatch(String(item.name), /eq 'x'/);
});
