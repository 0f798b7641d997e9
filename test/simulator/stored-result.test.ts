import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { storedResult, untouchedBodyText } from '../../src/simulator/stored-result.js';

describe('storedResult', () => {
  const text = '{"id":42,"tags":["a"]}';

  it('offers the stored text until the body is read, then parses it once', () => {
    const result = storedResult(200, text, {});
    assert.equal(untouchedBodyText(result), text);
    const body = result.body as { id: number };
    assert.deepEqual(body, { id: 42, tags: ['a'] });
    assert.equal(result.body, body, 'parsed once, the same object after');
    assert.equal(
      untouchedBodyText(result),
      undefined,
      'a read body may have been changed: the text is no longer offered',
    );
  });

  it('stops offering the text once the body is replaced', () => {
    const result = storedResult(200, text, {});
    result.body = { id: 7 };
    assert.equal(untouchedBodyText(result), undefined);
    assert.deepEqual(result.body, { id: 7 });
  });

  it('copies carry the parsed body and never the text', () => {
    const result = storedResult(200, text, {});
    const copy = { ...result, body: { changed: true } };
    assert.equal(untouchedBodyText(copy), undefined);
    const { status: _status, ...rest } = storedResult(200, text, {});
    assert.equal(untouchedBodyText(rest), undefined);
    assert.deepEqual(rest.body, { id: 42, tags: ['a'] });
    assert.equal(untouchedBodyText(Object.assign({}, storedResult(200, text, {}))), undefined);
    assert.deepEqual(structuredClone(storedResult(200, text, { 'retry-after': '1' })), {
      status: 200,
      source: 'cache',
      headers: { 'retry-after': '1' },
      body: { id: 42, tags: ['a'] },
    });
  });

  it('reads as a plain result: the same own keys in order, prototype and JSON', () => {
    const result = storedResult(200, text, {});
    assert.deepEqual(Object.keys(result), ['status', 'source', 'headers', 'body']);
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
    assert.equal(
      JSON.stringify(result),
      JSON.stringify({ status: 200, source: 'cache', headers: {}, body: { id: 42, tags: ['a'] } }),
    );
  });

  it('offers nothing for results that were not stored', () => {
    assert.equal(untouchedBodyText({ status: 200, body: { id: 1 }, source: 'synth', headers: {} }), undefined);
  });
});
