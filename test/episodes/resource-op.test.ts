import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resourceOp } from '../../src/episodes/resource-op.js';
import { petstoreTools } from '../fixtures/tools.js';
import { notesTools } from './fixture.js';

const tool = (id: string) => [...petstoreTools, ...notesTools].find((t) => t.id === id)!;
const op = (id: string, args: Record<string, unknown>) => {
  const found = resourceOp(tool(id), args);
  return (
    found && {
      kind: found.kind,
      collection: found.collection.key.split('\u0000')[1],
      ...('id' in found ? { id: found.id } : {}),
    }
  );
};

test('reads what a call does to a resource from its method, path template and bindings', () => {
  assert.deepEqual(op('petstore_test__addPet', { name: 'Rex' }), { kind: 'create', collection: '/pets' });
  assert.deepEqual(op('petstore_test__listPets', { limit: 2 }), { kind: 'list', collection: '/pets' });
  assert.deepEqual(op('petstore_test__getPetById', { petId: 7 }), { kind: 'read', collection: '/pets', id: '7' });
  assert.deepEqual(op('petstore_test__deletePet', { petId: 7 }), { kind: 'delete', collection: '/pets', id: '7' });
  assert.deepEqual(op('notes_test__updateNote', { noteId: 'a', title: 'x' }), {
    kind: 'update',
    collection: '/notes',
    id: 'a',
  });
  assert.deepEqual(op('notes_test__addComment', { noteId: 'a b/c', text: 'x' }), {
    kind: 'create',
    collection: '/notes/a%20b%2Fc/comments',
  });
  const update = resourceOp(tool('notes_test__replaceNote'), { noteId: 'a', title: 'x', tag: 'home' });
  assert.deepEqual(update && 'body' in update && update.body, { title: 'x', tag: 'home' });
  const list = resourceOp(tool('notes_test__listNotes'), { tag: 'work', limit: 3 });
  assert.deepEqual(list?.kind === 'list' && list.filters, { tag: 'work', limit: 3 });
  assert.equal(resourceOp(tool('notes_test__createNote'), {})?.collection.noun, 'note');
});

test('non-REST tools and calls missing a path parameter are not resource operations', () => {
  assert.equal(op('weather_forecast', { city: 'Oslo' }), undefined);
  assert.equal(op('petstore_test__getPetById', {}), undefined);
  assert.equal(op('notes_test__listComments', { noteId: { nested: true } }), undefined);
});
