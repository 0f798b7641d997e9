import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isStopWord, stem, tokenize, words } from '../../src/retrieval/tokenize.js';

test('words splits camelCase, PascalCase acronyms, snake_case and kebab-case', () => {
  assert.deepEqual(words('getPetById'), ['get', 'pet', 'by', 'id']);
  assert.deepEqual(words('HTTPResponseCode'), ['http', 'response', 'code']);
  assert.deepEqual(words('list_all-users'), ['list', 'all', 'users']);
  assert.deepEqual(words('GET /pets/{petId}'), ['get', 'pets', 'pet', 'id']);
});

test('words keeps letters and digits together and splits at punctuation', () => {
  assert.deepEqual(words('ec2 s3 oauth2, v1.2'), ['ec2', 's3', 'oauth2', 'v1', '2']);
  assert.deepEqual(words('Café Zürich'), ['café', 'zürich']);
});

test('tokenize drops stop words and single letters, and stems', () => {
  assert.deepEqual(tokenize('Returns the list of all pets for a user'), ['return', 'list', 'all', 'pet', 'user']);
  assert.deepEqual(tokenize('x y 2'), ['2']);
  assert.equal(isStopWord('the'), true);
  assert.equal(isStopWord('get'), false);
});

test('stemming conflates inflections and leaves numbers alone', () => {
  assert.equal(stem('forecasts'), stem('forecast'));
  assert.equal(stem('retrieves'), stem('retrieving'));
  assert.equal(stem('2024'), '2024');
  assert.deepEqual(tokenize('createUser'), tokenize('creating users'));
});
