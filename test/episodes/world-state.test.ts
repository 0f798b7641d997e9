import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idField } from '../../src/episodes/resource-body.js';
import { resourceOp } from '../../src/episodes/resource-op.js';
import { WorldState } from '../../src/episodes/world.js';
import type { CallResult } from '../../src/simulator/types.js';
import { petstoreTools } from '../fixtures/tools.js';
import { notesTools } from './fixture.js';

const tool = (id: string) => [...petstoreTools, ...notesTools].find((t) => t.id === id)!;
const answer = (status: number, body: unknown): CallResult => ({ status, body, source: 'synth', headers: {} });
const apply = (world: WorldState, id: string, args: Record<string, unknown>, result: CallResult) =>
  world.apply(resourceOp(tool(id), args)!, result);

test('a world remembers resources only within its byte budget; a forgotten one falls through to the simulator', () => {
  const world = new WorldState(() => 'noteId', 120);
  const add = (n: number) =>
    apply(
      world,
      'notes_test__createNote',
      { title: `note-${n}` },
      answer(201, { id: `n${n}`, title: `note-${n}`, tag: 'work' }),
    );
  assert.equal(add(1).state, 'created');
  assert.equal(add(2).state, 'created');
  assert.equal(add(3).state, undefined);
  const read = (n: number) =>
    apply(world, 'notes_test__getNote', { noteId: `n${n}` }, answer(200, { id: `n${n}`, title: 'simulated' }));
  assert.equal(read(1).state, 'read');
  assert.equal(read(3).state, undefined);
  assert.equal((read(3).result.body as { title: string }).title, 'simulated');

  // Growing a remembered resource past the budget forgets it rather than keep a stale copy.
  const update = apply(
    world,
    'notes_test__updateNote',
    { noteId: 'n2', title: 'y'.repeat(200) },
    answer(200, { id: 'n2' }),
  );
  assert.equal(update.state, undefined);
  assert.equal(read(2).state, undefined);
  assert.equal(add(4).state, 'created');
});

test(
  'reads keep the response wrapper, lists merge into the array member, ' +
    'numeric id clashes get one past the largest',
  () => {
    const world = new WorldState(() => undefined, 1 << 20);
    const created = apply(
      world,
      'petstore_test__addPet',
      { name: 'Rex' },
      answer(201, { data: { id: 5, name: 'Other' } }),
    );
    assert.deepEqual(created.result.body, { data: { id: 5, name: 'Rex' } });
    assert.equal(created.result.source, 'state');
    const clash = apply(world, 'petstore_test__addPet', { name: 'Tom' }, answer(201, { id: 5, name: 'Tom' }));
    assert.deepEqual(clash.result.body, { id: 6, name: 'Tom' });
    const read = apply(
      world,
      'petstore_test__getPetById',
      { petId: 5 },
      answer(200, { data: { id: 5, name: 'x' }, meta: { v: 1 } }),
    );
    assert.deepEqual(read.result.body, { data: { id: 5, name: 'Rex' }, meta: { v: 1 } });
    const list = apply(
      world,
      'petstore_test__listPets',
      {},
      answer(200, {
        pets: [
          { id: 6, name: 'stale' },
          { id: 99, name: 'other' },
        ],
        next: null,
      }),
    );
    assert.deepEqual(list.result.body, {
      pets: [
        { id: 6, name: 'Tom' },
        { id: 99, name: 'other' },
        { id: 5, name: 'Rex' },
      ],
      next: null,
    });
    const failed = apply(world, 'petstore_test__deletePet', { petId: 5 }, answer(500, { error: 'x' }));
    assert.equal(failed.state, undefined);
    assert.equal(apply(world, 'petstore_test__getPetById', { petId: 5 }, answer(200, {})).state, 'read');
  },
);

test('reads remember nothing; deletions count against the budget, and past it are not remembered', () => {
  const world = new WorldState(() => 'noteId', 64);
  for (let n = 0; n < 50; n++) {
    apply(world, 'notes_test__listComments', { noteId: `n${n}` }, answer(200, []));
    apply(world, 'notes_test__getNote', { noteId: `n${n}` }, answer(200, { id: `n${n}` }));
  }
  assert.equal(world.bytes, 0);
  const states = Array.from(
    { length: 50 },
    (_, n) => apply(world, 'notes_test__deleteNote', { noteId: `d${n}` }, answer(204, undefined)).state,
  );
  const kept = states.filter((state) => state === 'deleted').length;
  assert.ok(kept > 0 && kept < 50 && states.slice(kept).every((state) => state === undefined), JSON.stringify(states));
  assert.ok(world.bytes <= 64, String(world.bytes));
  const read = (n: number) => apply(world, 'notes_test__getNote', { noteId: `d${n}` }, answer(200, { id: `d${n}` }));
  assert.equal(read(0).state, 'missing');
  assert.equal(read(49).state, undefined);
});

test("a collection keyed by its noun's name (`pool_name`) knows a created resource by its `name`", () => {
  assert.equal(idField({ name: 'gpu', slots: 4 }, 'pool', 'pool_name'), 'name');
  assert.equal(idField({ name: 'Rex' }, 'pet', 'petId'), undefined, 'a name is no id elsewhere');
});
