/**
 * `toolenv fidelity` on a small fixture library: in process for the numbers, and as the user runs it (the real
 * bin/toolenv).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { runFidelity } from '../../src/fidelity/run.js';
import { LibraryStore } from '../../src/library/store.js';
import type { ApiRecord, Tool } from '../../src/library/tool.js';
import { packageRoot } from '../../src/paths.js';
import { examplesResponder } from '../../src/simulator/examples.js';
import type { Responder } from '../../src/simulator/types.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

const run = promisify(execFile);
const BIN = join(packageRoot, 'bin', 'toolenv');

const githubError = {
  type: 'object',
  required: ['message', 'documentation_url'],
  properties: { message: { type: 'string' }, documentation_url: { type: 'string' } },
};
const problemShape = {
  type: 'object',
  required: ['title', 'status'],
  properties: { title: { type: 'string' }, status: { type: 'integer' } },
};

const api: ApiRecord = {
  api_id: 'fidelity.test',
  title: 'Fidelity fixture',
  provider: 'fidelity.test',
  category: 'test',
  format: 'openapi',
  document: {
    openapi: '3.0.3',
    info: { title: 'Fidelity fixture', version: '1' },
    paths: {
      '/users/{username}': {
        get: {
          parameters: [{ name: 'username', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'ok' },
            '404': { description: 'not found', content: { 'application/json': { schema: githubError } } },
          },
        },
      },
      '/weather/{city}': {
        get: {
          parameters: [{ name: 'city', in: 'path', required: true, schema: { type: 'string' } }],
          responses: {
            '200': { description: 'ok' },
            '400': { description: 'bad', content: { 'application/problem+json': { schema: problemShape } } },
          },
        },
      },
    },
  },
};

const origin = (path: string) =>
  ({ format: 'openapi', api_id: 'fidelity.test', method: 'get', path, operation_id: null, server: null }) as const;

const tools: Tool[] = [
  {
    id: 'fidelity_test__getUser',
    name: 'Get a user',
    description: 'Get a user by username',
    category: 'test',
    parameters: {
      type: 'object',
      required: ['username'],
      properties: { username: { type: 'string', enum: ['torvalds'] } },
    },
    bindings: { username: { in: 'path', name: 'username' } },
    response_schema: { type: 'object', properties: { login: { type: 'string' }, id: { type: 'integer' } } },
    // The spec's one example, whatever user is asked for: GitHub's octocat.
    examples: [{ status: 200, body: { login: 'octocat', id: 1 } }],
    origin: origin('/users/{username}'),
  },
  {
    id: 'fidelity_test__getWeather',
    name: 'Current weather',
    description: 'Current weather in a city',
    category: 'test',
    parameters: { type: 'object', required: ['city'], properties: { city: { type: 'string', enum: ['Oslo'] } } },
    bindings: { city: { in: 'path', name: 'city' } },
    // Schema-valid and still impossible: a humidity of 150 to 200 percent.
    response_schema: {
      type: 'object',
      required: ['humidity'],
      properties: { humidity: { type: 'integer', minimum: 150, maximum: 200 } },
    },
    examples: [],
    origin: origin('/weather/{city}'),
  },
];

/** The spec's example as written, whatever the request: what the examples responder answered before #17. */
const verbatimExamples: Responder = {
  name: 'example',
  respond: (tool) =>
    Promise.resolve(
      tool.examples[0] && { status: tool.examples[0].status, body: structuredClone(tool.examples[0].body) },
    ),
};

test(
  'fidelity: a contradicting example is inconsistent, an impossible humidity implausible, error bodies checked ' +
    'against the declared schema',
  async () => {
    const store = LibraryStore.open(writeFixtureLibrary(tools, [api]));
    try {
      const report = await runFidelity({ store, responders: [verbatimExamples, synthResponder], seed: 1 });
      assert.deepEqual(report.tools, {
        library: 2,
        sampled: 2,
        valid_requests: 2,
        no_valid_request: 0,
        unanswered: 0,
        with_response_schema: 2,
      });
      assert.equal(report.by_source.example.answers, 1);
      assert.equal(report.by_source.synth.answers, 1);
      assert.deepEqual(report.by_source.example.request_consistency, {
        answers_checkable: 1,
        checks: 1,
        consistent: 0,
        rate: 0,
      });
      assert.deepEqual(report.inconsistent, [
        {
          tool: 'fidelity_test__getUser',
          rule: 'synonym',
          request: 'username',
          field: '/login',
          expected: 'torvalds',
          got: 'octocat',
        },
      ]);
      assert.deepEqual(report.by_source.synth.schema_validity, { checked: 1, valid: 1, uncompiled: 0, rate: 1 });
      assert.deepEqual(report.plausibility_checks.humidity, { applicable: 1, passed: 0, rate: 0 });
      assert.equal(report.implausible[0]!.tool, 'fidelity_test__getWeather');
      assert.equal(report.implausible[0]!.check, 'humidity');
      assert.deepEqual(report.by_source.model.plausibility, { applicable: 0, passed: 0, rate: null });
      assert.equal(report.by_source.real.answers, 0);

      // On /v1 the forced 404 is a ToolEnv problem, not GitHub's {message, documentation_url}; the forced and refused
      // 400s match the declared problem shape.
      const { by_source: forcedBySource, ...forced } = report.errors.v1.forced;
      // GitHub's two fields are missing from the problem; the problem shape's two are there.
      assert.deepEqual(forced, {
        calls: 2,
        reason_carried: 2,
        declared: 2,
        with_schema: 2,
        conforming: 1,
        schema_fields: 4,
        fields_present: 2,
        rate: 0.5,
        fields_rate: 0.5,
        reason_rate: 1,
      });
      assert.equal(forcedBySource.rule.calls, 2);
      const { by_source: _refusalBySource, ...refusal } = report.errors.v1.refusal;
      assert.deepEqual(refusal, {
        calls: 2,
        reason_carried: 2,
        declared: 1,
        with_schema: 1,
        conforming: 1,
        schema_fields: 2,
        fields_present: 2,
        rate: 1,
        fields_rate: 1,
        reason_rate: 1,
      });
      assert.deepEqual(
        { ...report.errors, v1: undefined, rest: undefined },
        { operations: 2, declaring_4xx: 2, declaring_error_schema: 2, v1: undefined, rest: undefined },
      );
      assert.deepEqual(report.errors.v1.overall, {
        calls: 4,
        reason_carried: 4,
        declared: 3,
        with_schema: 3,
        conforming: 2,
        schema_fields: 6,
        fields_present: 4,
        rate: 0.6667,
        fields_rate: 0.6667,
        reason_rate: 1,
      });
      // These records predate error_responses (read from the document here): the REST surface answers the same
      // problems.
      assert.deepEqual(report.errors.rest, report.errors.v1);

      // Every count and score again; only the wall times differ.
      const again = await runFidelity({ store, responders: [verbatimExamples, synthResponder], seed: 1 });
      assert.deepEqual({ ...again, latency: undefined }, { ...report, latency: undefined });
      assert.equal(report.latency.example.calls, 1);
      assert.equal(report.latency.model.calls, 0);
      assert.equal(report.model, undefined);
      assert.equal(report.same_calls, undefined);
      // The examples responder answers the example for the user asked for.
      const conformed = await runFidelity({ store, responders: [examplesResponder, synthResponder], seed: 1 });
      assert.deepEqual(conformed.by_source.example.request_consistency, {
        answers_checkable: 1,
        checks: 1,
        consistent: 1,
        rate: 1,
      });
      assert.deepEqual(conformed.inconsistent, []);
      // Without the examples responder the synthesizer answers the user, echoing the username it was asked for.
      const synthOnly = await runFidelity({ store, responders: [synthResponder], seed: 1 });
      assert.equal(synthOnly.by_source.example.answers, 0);
      assert.equal(synthOnly.by_source.synth.answers, 2);
    } finally {
      store.close();
    }
  },
);

test(
  'fidelity: where tool records keep their error responses, ' + 'the REST surface answers the declared shapes',
  async () => {
    const declared = tools.map(
      (tool): Tool => ({
        ...tool,
        error_responses: tool.id === 'fidelity_test__getUser' ? { '404': githubError } : { '400': problemShape },
      }),
    );
    const store = LibraryStore.open(writeFixtureLibrary(declared, [api]));
    try {
      const { errors } = await runFidelity({ store, responders: [examplesResponder, synthResponder], seed: 1 });
      assert.equal(errors.v1.forced.fields_rate, 0.5);
      const { by_source: _forcedBySource, ...forced } = errors.rest.forced;
      // The problem shape's `title` gets the problem's title, not its detail: one of the two forced bodies says why
      // only in its status.
      assert.deepEqual(forced, {
        calls: 2,
        reason_carried: 1,
        declared: 2,
        with_schema: 2,
        conforming: 2,
        schema_fields: 4,
        fields_present: 4,
        rate: 1,
        fields_rate: 1,
        reason_rate: 0.5,
      });
      // The refusal leaves out the user's path segment: on the REST surface that names no user, GitHub's declared 404.
      assert.deepEqual(errors.rest.overall, {
        calls: 4,
        reason_carried: 2,
        declared: 4,
        with_schema: 4,
        conforming: 4,
        schema_fields: 8,
        fields_present: 8,
        rate: 1,
        fields_rate: 1,
        reason_rate: 0.5,
      });
    } finally {
      store.close();
    }
  },
);

test(
  'fidelity CLI: --json ends with the summary object, the ' + 'text report has the tables, bad flags exit 2',
  async () => {
    const library = writeFixtureLibrary(tools, [api]);
    const env = { ...process.env, TOOLENV_DEBUG: '' };
    const json = await run(
      process.execPath,
      [BIN, 'fidelity', '--library', library, '--sample', '5', '--seed', '3', '--json'],
      { env },
    );
    const summary = JSON.parse(json.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    assert.deepEqual(Object.keys(summary), [
      'library',
      'wall_s',
      'seed',
      'responders',
      'tools',
      'overall',
      'by_source',
      'latency',
      'consistency_rules',
      'plausibility_checks',
      'errors',
      'inconsistent',
      'implausible',
    ]);
    assert.deepEqual(summary.responders, ['example', 'synth']);
    assert.deepEqual(Object.keys(summary.by_source as object), ['example', 'synth', 'model', 'real']);

    const text = await run(process.execPath, [BIN, 'fidelity', '--library', library, '--responder', 'synth'], { env });
    assert.match(text.stdout, /^\| request consistency \|/m);
    assert.match(text.stdout, /^\| humidity \| 1 \| 0 \| 0\.0% \|$/m);

    await assert.rejects(
      run(process.execPath, [BIN, 'fidelity', '--library', library, '--sample', '0'], { env }),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 2);
        assert.match(error.stderr, /^toolenv: --sample must be an integer between 1 and 1000000, got "0"\n$/);
        return true;
      },
    );
  },
);
