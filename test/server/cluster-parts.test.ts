import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { describe, it } from 'node:test';
import { mergeExpositions } from '../../src/server/cluster/metrics.js';
import { ownerOf } from '../../src/server/cluster/owner.js';
import { injectionSeed } from '../../src/server/cluster/placement.js';

describe('mergeExpositions', () => {
  it('adds the same series across workers, keeps comments once and every family together', () => {
    const a = [
      '# HELP calls_total Calls.',
      '# TYPE calls_total counter',
      'calls_total{source="cache"} 3',
      '# HELP latency_seconds Latency.',
      '# TYPE latency_seconds histogram',
      'latency_seconds_bucket{le="0.1"} 2',
      'latency_seconds_bucket{le="+Inf"} 3',
      'latency_seconds_sum 0.25',
      'latency_seconds_count 3',
      'process_start_time_seconds 1700000100',
      '',
    ].join('\n');
    const b = [
      '# HELP calls_total Calls.',
      '# TYPE calls_total counter',
      'calls_total{source="cache"} 4',
      'calls_total{source="synth"} 1',
      '# HELP latency_seconds Latency.',
      '# TYPE latency_seconds histogram',
      'latency_seconds_bucket{le="0.1"} 1',
      'latency_seconds_bucket{le="+Inf"} 1',
      'latency_seconds_sum 0.5',
      'latency_seconds_count 1',
      'process_start_time_seconds 1700000000',
      '',
    ].join('\n');
    assert.equal(
      mergeExpositions([a, b]),
      [
        '# HELP calls_total Calls.',
        '# TYPE calls_total counter',
        'calls_total{source="cache"} 7',
        'calls_total{source="synth"} 1',
        '# HELP latency_seconds Latency.',
        '# TYPE latency_seconds histogram',
        'latency_seconds_bucket{le="0.1"} 3',
        'latency_seconds_bucket{le="+Inf"} 4',
        'latency_seconds_sum 0.75',
        'latency_seconds_count 4',
        'process_start_time_seconds 1700000000',
        '',
      ].join('\n'),
    );
  });

  it('reads label values with spaces', () => {
    assert.equal(mergeExpositions(['m{route="/a b"} 1\n', 'm{route="/a b"} 2\n']), 'm{route="/a b"} 3\n');
  });
});

describe('ownerOf', () => {
  const request = (url: string, headers: Record<string, string> = {}) => ({ url, headers }) as unknown as IncomingMessage;

  it('reads the worker from the episode a request names', () => {
    assert.equal(ownerOf(request('/v1/episodes/w1-abc/step')), 1);
    assert.equal(ownerOf(request('/v1/episodes/w12-abc')), 12);
    assert.equal(ownerOf(request('/v1/tools/x/call', { 'x-toolenv-episode': 'w3-abc' })), 3);
    assert.equal(ownerOf(request('/apis/petstore/pets/1', { 'x-toolenv-episode': 'w0-abc' })), 0);
    assert.equal(ownerOf(request('/mcp', { 'mcp-session-id': 'w2-abc' })), 2);
    assert.equal(ownerOf(request('/mcp?episode=w4-abc&tools=a')), 4);
  });

  it('names no worker for requests about no episode, or ids no worker made', () => {
    assert.equal(ownerOf(request('/v1/episodes')), undefined);
    assert.equal(ownerOf(request('/v1/tools/x/call')), undefined);
    assert.equal(ownerOf(request('/v1/episodes/3f2c-abc')), undefined);
    assert.equal(ownerOf(request('/mcp')), undefined);
    assert.equal(ownerOf(request('/mcpx', { 'mcp-session-id': 'w2-abc' })), undefined);
  });
});

describe('injectionSeed', () => {
  it('keeps the server seed for worker 0 and gives every other worker a stream of its own', () => {
    assert.equal(injectionSeed(42, 0), 42);
    const seeds = [0, 1, 2, 3].map((index) => injectionSeed(42, index));
    assert.equal(new Set(seeds).size, 4);
    assert.equal(injectionSeed(42, 1), injectionSeed(42, 1));
    assert.notEqual(injectionSeed(42, 1), injectionSeed(43, 1));
    assert.notEqual(injectionSeed(2 ** 40, 1), injectionSeed(0, 1));
  });
});
