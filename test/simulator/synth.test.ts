import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { JsonSchema, Tool } from '../../src/library/tool.js';
import { createAjv } from '../../src/library/ajv.js';
import { synthesize, synthesizeChecked, synthResponder } from '../../src/simulator/synth/index.js';
import { callSeed } from '../../src/simulator/synth/random.js';
import { petstoreTools } from '../fixtures/tools.js';

const ajv = createAjv();
const byId = (id: string) => petstoreTools.find((tool) => tool.id === id)!;
const listPets = byId('petstore_test__listPets');
const addPet = byId('petstore_test__addPet');
const getPet = byId('petstore_test__getPetById');
const deletePet = byId('petstore_test__deletePet');
const weather = byId('weather_forecast');

function toolWith(response_schema: JsonSchema | undefined, extra: Partial<Tool> = {}): Tool {
  return {
    id: 'shape_test',
    name: 'shape test',
    description: 'a test tool',
    category: 'test',
    parameters: { type: 'object', properties: {} },
    response_schema,
    examples: [],
    origin: { format: 'openai', name: 'shape_test' },
    ...extra,
  };
}

const obj = (value: unknown) => value as Record<string, unknown>;

test('the same tool, arguments and seed give the same body; argument order does not matter', () => {
  const a = synthesize(listPets, { limit: 4, offset: 2 }, 7);
  const b = synthesize(listPets, { offset: 2, limit: 4 }, 7);
  assert.deepEqual(a, b);
  assert.equal(callSeed('t', { a: 1, b: 2 }, 3), callSeed('t', { b: 2, a: 1 }, 3));
});

test('a different seed, argument or tool gives a different body', () => {
  const base = JSON.stringify(synthesize(listPets, { limit: 4 }, 1).body);
  let differentSeeds = 0;
  for (let seed = 2; seed < 12; seed++)
    if (JSON.stringify(synthesize(listPets, { limit: 4 }, seed).body) !== base) differentSeeds++;
  assert.equal(differentSeeds, 10);
  assert.notEqual(JSON.stringify(synthesize(listPets, { limit: 4, q: 'x' }, 1).body), base);
  assert.notEqual(JSON.stringify(synthesize({ ...listPets, id: 'other_tool' }, { limit: 4 }, 1).body), base);
});

test('concurrent responder calls do not disturb each other', async () => {
  const calls = Array.from({ length: 40 }, (_, i) => ({
    tool: petstoreTools[i % petstoreTools.length]!,
    args: { petId: i, limit: (i % 5) + 1, city: 'Oslo', name: `n${i}` },
  }));
  const sequential = calls.map(({ tool, args }) => synthesize(tool, args, 3));
  const concurrent = await Promise.all(calls.map(({ tool, args }) => synthResponder.respond(tool, args, { seed: 3 })));
  assert.deepEqual(concurrent, sequential);
  assert.equal(synthResponder.name, 'synth');
});

test('the status is the tool response_status (default 200); 204 has a null body', () => {
  assert.equal(synthesize(listPets, {}, 0).status, 200);
  assert.equal(synthesize(addPet, { name: 'Rex' }, 0).status, 201);
  assert.deepEqual(synthesize(deletePet, { petId: 3 }, 0), { status: 204, body: null });
  assert.deepEqual(synthesize(toolWith({ type: 'object' }, { response_status: 204 }), {}, 0), {
    status: 204,
    body: null,
  });
});

test('bodies satisfy the petstore response schemas', () => {
  for (const tool of [listPets, addPet, getPet]) {
    const validate = ajv.compile(tool.response_schema as object);
    for (let seed = 0; seed < 50; seed++) {
      const body = synthesize(tool, { petId: seed + 1, name: 'Rex', limit: (seed % 7) + 1 }, seed).body;
      assert.ok(validate(body), `${tool.id} seed ${seed}: ${JSON.stringify(validate.errors)}`);
    }
  }
});

test('the requested id comes back as the record id, string ids coerced to the field type', () => {
  assert.equal(obj(synthesize(getPet, { petId: 42 }, 1).body).id, 42);
  assert.equal(obj(synthesize(getPet, { petId: '42' }, 1).body).id, 42);
  // A value the field's schema rejects is not echoed.
  assert.notEqual(obj(synthesize(getPet, { petId: 'abc' }, 1).body).id, 'abc');
  const userTool = toolWith(
    {
      type: 'object',
      properties: { id: { type: 'string' }, userId: { type: 'integer' }, email: { type: 'string', format: 'email' } },
    },
    { id: 'get_user', name: 'get user' },
  );
  for (let seed = 0; seed < 10; seed++) {
    const body = obj(synthesize(userTool, { userId: 7, email: 'ada@example.com' }, seed).body);
    assert.equal(body.id, '7');
    if ('userId' in body) assert.equal(body.userId, 7);
    if ('email' in body) assert.equal(body.email, 'ada@example.com');
  }
  assert.notEqual(obj(synthesize(userTool, { email: 'not an email' }, 1).body).email, 'not an email');
});

test('request values flow into same-named fields, also in list items, but ids do not repeat across items', () => {
  const created = obj(synthesize(addPet, { name: 'Rex', status: 'pending' }, 5).body);
  assert.equal(created.name, 'Rex');
  assert.equal(created.status, 'pending');
  const byStatus = toolWith(
    {
      type: 'object',
      properties: {
        data: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'status', 'city'],
            properties: { id: { type: 'integer' }, status: { type: 'string' }, city: { type: 'string' } },
          },
        },
      },
      required: ['data'],
    },
    { id: 'search_pets', name: 'search pets' },
  );
  const items = obj(synthesize(byStatus, { status: 'available', city: 'Lyon', id: 9 }, 2).body).data as Record<
    string,
    unknown
  >[];
  assert.ok(items.length >= 1);
  for (const item of items) {
    assert.equal(item.status, 'available');
    assert.equal(item.city, 'Lyon');
  }
  assert.ok(items.every((item) => item.id !== 9) || items.length === 1);
  // An enum the value is not in keeps its own values.
  assert.notEqual(obj(synthesize(addPet, { name: 'Rex', status: 'weird' }, 5).body).status, 'weird');
});

test('list lengths follow limit-like arguments within the schema bounds', () => {
  assert.equal((synthesize(listPets, { limit: 3 }, 1).body as unknown[]).length, 3);
  assert.equal((synthesize(listPets, { per_page: 1 }, 1).body as unknown[]).length, 1);
  assert.equal((synthesize(listPets, { pageSize: '2' }, 1).body as unknown[]).length, 2);
  assert.equal((synthesize(listPets, { limit: 500 }, 1).body as unknown[]).length, 10);
  const bounded = toolWith({ type: 'array', items: { type: 'integer' }, maxItems: 2 });
  assert.equal((synthesize(bounded, { limit: 8 }, 1).body as unknown[]).length, 2);
  for (let seed = 0; seed < 30; seed++) {
    const length = (synthesize(listPets, {}, seed).body as unknown[]).length;
    assert.ok(length >= 1 && length <= 5, `length ${length}`);
  }
});

test('every standard format is generated in that format', () => {
  const formats = [
    'date',
    'date-time',
    'time',
    'email',
    'uri',
    'url',
    'uuid',
    'ipv4',
    'ipv6',
    'hostname',
    'duration',
    'uri-reference',
    'uri-template',
    'json-pointer',
    'relative-json-pointer',
    'regex',
    'byte',
    'iso-date-time',
    'iso-time',
  ];
  const schema = {
    type: 'object',
    required: formats,
    properties: Object.fromEntries(formats.map((format) => [`field_${format}`, { type: 'string', format }])),
  };
  schema.required = formats.map((format) => `field_${format}`);
  const validate = ajv.compile(schema);
  for (let seed = 0; seed < 40; seed++) {
    const body = obj(synthesize(toolWith(schema), {}, seed).body);
    assert.ok(validate(body), JSON.stringify(validate.errors));
    assert.match(body.field_uuid as string, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.match(body['field_date-time'] as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  }
});

test('values follow field names in camelCase, snake_case and kebab-case, and a record person is consistent', () => {
  const names = [
    'userId',
    'created_at',
    'avatar-url',
    'email',
    'first_name',
    'lastName',
    'phone_number',
    'country_code',
    'currency',
    'price',
    'latitude',
    'longitude',
    'is_active',
    'city',
    'ip_address',
    'color',
    'language',
    'version',
    'status',
    'total_count',
    'website',
    'zip_code',
    'description',
    'title',
    'username',
  ];
  const stringy = new Set([
    'created_at',
    'avatar-url',
    'email',
    'first_name',
    'lastName',
    'phone_number',
    'country_code',
    'currency',
    'city',
    'ip_address',
    'color',
    'language',
    'version',
    'status',
    'website',
    'zip_code',
    'description',
    'title',
    'username',
  ]);
  const schema = {
    type: 'object',
    required: names,
    properties: Object.fromEntries(
      names.map((name) => [
        name,
        stringy.has(name)
          ? { type: 'string' }
          : name === 'is_active'
            ? { type: 'boolean' }
            : name.endsWith('Id') || name === 'total_count'
              ? { type: 'integer' }
              : { type: 'number' },
      ]),
    ),
  };
  for (let seed = 0; seed < 25; seed++) {
    const body = obj(synthesize(toolWith(schema, { id: 'get_user', name: 'get user' }), {}, seed).body);
    assert.match(body.created_at as string, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.match(body['avatar-url'] as string, /^https:\/\//);
    assert.match(body.website as string, /^https?:\/\//);
    assert.match(body.email as string, /^[a-z0-9._]+@[a-z0-9.-]+\.[a-z]+$/);
    assert.ok(
      (body.email as string).includes((body.first_name as string).toLowerCase().replace(/[^a-z0-9]/g, '')),
      `${body.email} / ${body.first_name}`,
    );
    assert.match(body.country_code as string, /^[A-Z]{2}$/);
    assert.match(body.currency as string, /^[A-Z]{3}$/);
    assert.match(body.ip_address as string, /^\d+\.\d+\.\d+\.\d+$/);
    assert.match(body.color as string, /^#[0-9a-f]{6}$/);
    assert.match(body.version as string, /^\d+\.\d+\.\d+$/);
    assert.match(body.phone_number as string, /^\+\d{7,15}$/);
    assert.ok(Math.abs(body.latitude as number) <= 90 && Math.abs(body.longitude as number) <= 180);
    assert.ok(
      (body.price as number) >= 0 &&
        Math.abs(Math.round((body.price as number) * 100) - (body.price as number) * 100) < 1e-6,
      String(body.price),
    );
    assert.ok(Number.isInteger(body.userId) && (body.userId as number) > 0);
    assert.equal(typeof body.is_active, 'boolean');
    assert.ok((body.title as string).length > 0 && (body.description as string).length > 0);
  }
});

test('a nested name object describes the same person as its holder; an owner object another one', () => {
  const person = {
    type: 'object',
    required: ['firstName', 'lastName'],
    properties: { firstName: { type: 'string' }, lastName: { type: 'string' } },
  };
  const schema = {
    type: 'array',
    minItems: 3,
    items: {
      type: 'object',
      required: ['email', 'name', 'owner'],
      properties: {
        email: { type: 'string', format: 'email' },
        name: person,
        owner: { type: 'object', required: ['email'], properties: { email: { type: 'string' } } },
      },
    },
  };
  for (let seed = 0; seed < 10; seed++) {
    const users = synthesize(toolWith(schema), {}, seed).body as {
      email: string;
      name: { firstName: string; lastName: string };
      owner: { email: string };
    }[];
    for (const user of users) {
      const first = user.name.firstName.toLowerCase().replace(/[^a-z0-9]/g, '');
      assert.ok(user.email.startsWith(first), `${user.email} / ${user.name.firstName}`);
    }
    assert.notEqual(users[0]!.owner.email, users[0]!.email);
    assert.notEqual(users[0]!.email, users[1]!.email);
  }
});

test('a tool without a response schema gets a shape from its name and description', () => {
  const forecast = obj(synthesize(weather, { city: 'Paris', days: 4 }, 1).body);
  assert.equal(forecast.city, 'Paris');
  const days = forecast.forecast as Record<string, unknown>[];
  assert.equal(days.length, 4);
  for (const day of days) {
    assert.match(day.date as string, /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(typeof day.temp_max, 'number');
  }
  const current = obj(
    synthesize(
      toolWith(undefined, { id: 'current_weather', name: 'current_weather', description: 'Current weather in a city' }),
      { city: 'Rome' },
      1,
    ).body,
  );
  assert.equal(typeof current.temperature, 'number');
  assert.equal(current.city, 'Rome');

  const list = obj(
    synthesize(
      toolWith(undefined, { id: 'list_users', name: 'list_users', description: 'List the users of a team' }),
      { team: 'core', limit: 2 },
      1,
    ).body,
  );
  const users = list.users as Record<string, unknown>[];
  assert.equal(users.length, 2);
  for (const user of users) {
    assert.ok(Number.isInteger(user.id) || typeof user.id === 'string');
    assert.match(user.name as string, /^\S+ \S+/);
    assert.equal(user.team, 'core');
  }

  const created = obj(
    synthesize(
      toolWith(undefined, { id: 'create_note', name: 'create_note', description: 'Create a note' }),
      { title: 'Groceries', body: 'milk' },
      1,
    ).body,
  );
  assert.equal(created.title, 'Groceries');
  assert.equal(created.body, 'milk');
  assert.ok(created.id !== undefined && typeof created.created_at === 'string');

  const deleted = obj(
    synthesize(
      toolWith(undefined, { id: 'delete_note', name: 'delete_note', description: 'Delete a note' }),
      { note_id: 'n-1' },
      1,
    ).body,
  );
  assert.equal(deleted.status, 'deleted');
  assert.equal(deleted.id, 'n-1');

  const again = synthesize(weather, { city: 'Paris', days: 4 }, 1);
  assert.deepEqual(again.body, forecast);
});

test('a schema that admits nothing gets a best effort, flagged; an empty schema answers a plausible object', () => {
  assert.deepEqual(synthesizeChecked(toolWith(false), {}, 0), { status: 200, body: null, satisfied: false });
  const enumless = synthesizeChecked(toolWith({ type: 'string', enum: [] }), {}, 0);
  assert.equal(typeof enumless.body, 'string');
  assert.equal(enumless.satisfied, false);
  // two closed objects that each require a key the other forbids: the body keeps both shapes
  const closed = synthesizeChecked(
    toolWith({
      allOf: [
        { type: 'object', required: ['a'], properties: { a: { type: 'integer' } }, additionalProperties: false },
        { type: 'object', required: ['b'], properties: { b: { type: 'string' } }, additionalProperties: false },
      ],
    }),
    {},
    0,
  );
  assert.equal(closed.satisfied, false);
  assert.equal(typeof (closed.body as { a: unknown }).a, 'number');
  assert.equal(typeof (closed.body as { b: unknown }).b, 'string');
  assert.equal(synthesizeChecked(listPets, { limit: 2 }, 0).satisfied, true);
  for (const schema of [{}, true] as JsonSchema[]) {
    const body = synthesize(toolWith(schema), {}, 0).body;
    assert.ok(body !== null && typeof body === 'object' && Object.keys(body).length > 0, JSON.stringify(body));
  }
});

test('very deep schemas finish with bounded size', () => {
  let schema: JsonSchema = { type: 'string' };
  for (let i = 0; i < 60; i++)
    schema = {
      type: 'object',
      required: ['child', 'list'],
      properties: {
        child: schema,
        list: {
          type: 'array',
          items: {
            type: 'object',
            properties: { name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
          },
        },
      },
    };
  const validate = ajv.compile(schema as object);
  const body = synthesize(toolWith(schema), {}, 0).body;
  assert.ok(validate(body), JSON.stringify(validate.errors?.slice(0, 2)));
  assert.ok(JSON.stringify(body).length < 2_000_000);
});
