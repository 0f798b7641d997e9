import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { buildGraph } from '../../src/graph/build.js';
import type { Tool } from '../../src/library/tool.js';
import { ToolSearch } from '../../src/retrieval/searcher.js';
import type { RunningServer } from '../../src/server/serve.js';
import { petstoreApi, petstoreTools, writeFixtureLibrary } from '../fixtures/tools.js';
import { startTestServer } from './helpers.js';

/**
 * A seeded fuzz of every route of a real server on loopback: each request is generated from the server's own
 * /openapi.json (every path and method it documents, /mcp and /openenv included), its parts bent at random (ids,
 * bodies, headers, methods, targets). Asserted for every answer: no 5xx unless injected (`x-toolenv-error`) or
 * forced (`Prefer: code=5xx`); every error a problem+json (MCP's JSON-RPC errors aside); every 429 with
 * Retry-After; every answer within REQUEST_BOUND_MS; and /healthz answering throughout. TOOLENV_FUZZ_SEED varies
 * the run, TOOLENV_FUZZ_REQUESTS its length; a failure prints the seed and the request that broke.
 */
const SEED = Number(process.env.TOOLENV_FUZZ_SEED ?? 19);
const REQUESTS = Number(process.env.TOOLENV_FUZZ_REQUESTS ?? 1500);
const CONCURRENCY = 4;
/** Generous on two shared cores: the stalls this suite keeps fixed took 8 s to minutes. */
const REQUEST_BOUND_MS = 3000;

/** A tool with a spec pattern that backtracks cubically, and a documented 429 answered without Retry-After. */
const adversarial: Tool = {
  id: 'fuzz_test__PostRole',
  name: 'Adds a User Role',
  description: 'Adds a user role; the name is alpha-numeric strings separated by a period',
  category: 'ecommerce',
  parameters: {
    type: 'object',
    required: ['Name'],
    properties: {
      Name: { type: 'string', pattern: '^[0-9a-zA-Z]*?[a-zA-Z]+[0-9a-zA-Z]*$' },
      Host: { type: 'string', pattern: '^[a-z0-9]+[a-z0-9-\\.]+[a-z0-9]+$' },
      Tag: { type: 'string', pattern: '^(?!\\s)(.*)(\\S)$' },
    },
  },
  bindings: {
    Name: { in: 'body', name: 'Name' },
    Host: { in: 'body', name: 'Host' },
    Tag: { in: 'body', name: 'Tag' },
  },
  response_schema: { type: 'integer' },
  examples: [{ name: 'slow_down', status: 429, body: { message: 'slow down' } }],
  origin: {
    format: 'openapi',
    api_id: 'petstore.test',
    method: 'post',
    path: '/roles',
    operation_id: 'PostRole',
    server: 'https://petstore.test/v1',
  },
};

/** mulberry32: small, fast, and the same sequence on every platform. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

interface FuzzRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent as raw bytes on a socket of its own (node's client refuses what the request holds). */
  raw?: string;
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) as the bytes a careless client would send. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

const TOOL_IDS = [...petstoreTools.map((tool) => tool.id), adversarial.id];

function generator(random: () => number, routes: [string, string][]) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number) => random() < p;
  const hostile = [
    `${'a'.repeat(3000)}\u0000`,
    `${'a'.repeat(3000)}!`,
    ' '.repeat(5000),
    '\u0000',
    'ünïcödé ☃ 𝄞',
    '\ud800',
    '../../etc/passwd',
    '%00',
    '<script>',
    'a'.repeat(70_000),
  ];
  const scalar = (): unknown =>
    pick<() => unknown>([
      () => pick(hostile),
      () => Math.floor(random() * 1e6) - 5e5,
      () => random() * 1e300,
      () => pick([true, false, null]),
      () => 'x',
      () => 7,
    ])();
  const nested = (depth: number): unknown => {
    let value: unknown = scalar();
    for (let i = 0; i < depth; i++) value = chance(0.5) ? [value] : { a: value };
    return value;
  };
  const argumentsValue = (): unknown =>
    pick<() => unknown>([
      () => ({ Name: pick(hostile), Host: pick(hostile), Tag: pick(hostile) }),
      () => ({ Name: 'role.admin', Tag: 'fine tag' }),
      () => ({ petId: pick([7, -1, 1e20, '7', 'seven', null]) }),
      () => ({ name: pick(hostile), status: 'sold', tags: [{ id: 1, name: pick(hostile) }] }),
      () => ({ limit: pick([1, 0, 1000, 'many']) }),
      () => nested(Math.floor(random() * 100)),
      () => pick([[], 'args', 3, null]),
    ])();
  const jsonBody = (path: string): unknown =>
    pick<() => unknown>([
      () => ({ arguments: argumentsValue() }),
      () => ({
        calls: Array.from({ length: Math.floor(random() * 4) }, () => ({
          tool: pick(TOOL_IDS),
          arguments: argumentsValue(),
        })),
      }),
      () => ({
        query: pick(hostile),
        k: pick([1, 3, 0, 5000, -1, 2.5]),
        retriever: pick(['bm25', 'use', 'hybrid', 'dense', 'nope', 3]),
      }),
      () => ({ queries: [pick(hostile), 'find a pet'], category: pick(['ecommerce', 'nope']) }),
      () => ({
        seed: Math.floor(random() * 100),
        tools: chance(0.5) ? TOOL_IDS.slice(0, 2) : pick(hostile),
        max_steps: pick([1, 5, -1, 'x']),
      }),
      () => ({
        actions: [
          {
            type: pick(['tool_call', 'search_tool', 'nope']),
            tool: pick(TOOL_IDS),
            query: 'pet',
            arguments: argumentsValue(),
          },
        ],
      }),
      () => ({
        message: pick([
          '<tool_call>{"tool": "petstore_test__listPets", "arguments": {}}</tool_call>',
          pick(hostile),
          '<answer>done</answer>',
        ]),
      }),
      () => ({ ids: TOOL_IDS.slice(0, 3), hops: pick([1, 2, 99]) }),
      () => ({ n: pick([2, 0, 100000]), seed: 1 }),
      () => ({ rewards: [1, 2, 'x'], groups: [[1, 2]] }),
      () => ({
        jsonrpc: '2.0',
        id: 1,
        method: pick(['initialize', 'tools/list', 'tools/call', 'nope']),
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
      }),
      () => ({ seed: 3, task: pick([{ query: 'list pets', tools: TOOL_IDS }, pick(hostile)]) }),
      () => ({ action: { message: pick(hostile) } }),
      () => nested(Math.floor(random() * 120)),
      () => (path.includes('subgraph') ? { ids: [pick(hostile)] } : pick(hostile)),
    ])();
  const pathValue = () =>
    pick([
      ...TOOL_IDS,
      'w0-nope',
      'nope',
      encode(pick(hostile).slice(0, 200)),
      '%ZZ',
      '..',
      '.',
      'a%2Fb',
      'x'.repeat(2000),
    ]);
  const target = (template: string): string => {
    let path = template
      .replace('{api_id}', pick(['petstore.test', 'nope', '%00']))
      .replace('{path}', pick(['pets', 'pets/7', 'pets/seven', 'roles', 'nope/deeper', '']));
    path = path.replace(/\{[^}]+\}/g, pathValue);
    if (chance(0.2)) {
      const query = pick([
        '__code=503',
        '__code=429',
        '__example=slow_down',
        '__dynamic=yes',
        'limit=5',
        'q=pet',
        'x=%ZZ',
        `q=${encode(pick(hostile).slice(0, 500))}`,
      ]);
      path += `?${query}`;
    }
    if (chance(0.03)) path = pick(['/v1//tools', '/v1/tools/../healthz', '/%2e%2e/v1', '/v1/tools\\x', '//x', '/nope']);
    return path;
  };
  const headers = (): Record<string, string> => {
    const set: Record<string, string> = {};
    if (chance(0.85))
      set['content-type'] = pick([
        'application/json',
        'application/json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'application/json; charset=utf-16',
      ]);
    if (chance(0.15))
      set.prefer = pick([
        'code=503',
        'code=429',
        'code=500',
        'code=abc',
        'example=slow_down',
        'dynamic=true',
        'code=200',
        ' '.repeat(8000),
        'a=b;'.repeat(1000),
      ]);
    if (chance(0.1)) set.accept = pick(['application/json, text/event-stream', 'text/event-stream', '*/*', 'nope']);
    if (chance(0.1)) set['x-toolenv-episode'] = pick(['w0-nope', 'nope', 'x'.repeat(500)]);
    if (chance(0.05)) set['mcp-session-id'] = pick(['nope', 'w0-x']);
    if (chance(0.05)) set.origin = pick(['https://evil.example', 'null']);
    if (chance(0.05)) set.host = pick(['evil.example', 'a@b', 'localhost:1', '[::1]']);
    if (chance(0.05)) set['x-huge'] = 'h'.repeat(Math.floor(random() * 12_000));
    if (chance(0.03)) set['content-encoding'] = 'gzip';
    return set;
  };
  const rawRequest = (): FuzzRequest => {
    const [, template] = pick(routes);
    const raw = pick([
      `GET ${template} HTTP/1.1\r\nConnection: close\r\n\r\n`,
      `POST /v1/tools/${pick(TOOL_IDS)}/call HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
        'Content-Length: 5\r\nConnection: close\r\n\r\n{"a":',
      'POST /v1/calls HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: ' +
        'chunked\r\nConnection: close\r\n\r\n4\r\n{"ca\r\nZZ\r\n',
      `GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Nul: a\u0000b\r\nConnection: close\r\n\r\n`,
      `GARBAGE\r\n\r\n`,
      `GET /healthz HTTP/1.0\r\n\r\n`,
      'POST /v1/episodes HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n' +
        'Connection: close\r\n\r\n{}',
    ]);
    return { method: 'RAW', path: template, headers: {}, raw };
  };
  return (): FuzzRequest => {
    if (chance(0.04)) return rawRequest();
    const [documented, template] = pick(routes);
    const method = chance(0.08)
      ? pick(['PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'BREW', 'M-SEARCH', 'GET', 'POST'])
      : documented;
    const path = target(template);
    let body: string | undefined;
    if (method !== 'GET' && method !== 'HEAD' && chance(0.9)) {
      body = chance(0.12)
        ? pick([
            '{',
            '{"arguments": }',
            '[1,2',
            '\u0000',
            'null',
            '"str"',
            '{"a":1}{"b":2}',
            '\ufeff{}',
            '{"__proto__": {"x": 1}}',
            ' ',
          ])
        : JSON.stringify(jsonBody(template));
    }
    return { method, path, headers: headers(), body };
  };
}

function send(url: string, fuzz: FuzzRequest): Promise<Answer> {
  const { hostname, port } = new URL(url);
  const started = performance.now();
  if (fuzz.raw !== undefined) {
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => socket.write(fuzz.raw!, 'latin1'));
      let text = '';
      socket.setEncoding('latin1');
      socket.setTimeout(REQUEST_BOUND_MS * 2, () => socket.destroy(new Error('no answer and no close')));
      socket.on('data', (chunk: string) => (text += chunk));
      socket.on('close', () => {
        const [head = '', ...rest] = text.split('\r\n\r\n');
        const lines = head.split('\r\n');
        const headers: Record<string, string> = {};
        for (const line of lines.slice(1))
          headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
        resolve({
          status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!)?.[1] ?? 0),
          headers,
          body: rest.join('\r\n\r\n'),
          ms: performance.now() - started,
        });
      });
      socket.on('error', reject);
    });
  }
  return new Promise((resolve, reject) => {
    const asked = request(
      {
        host: hostname,
        port,
        method: fuzz.method,
        path: fuzz.path,
        headers: fuzz.headers,
        agent: false,
        timeout: REQUEST_BOUND_MS * 2,
      },
      (answer) => {
        let text = '';
        answer.setEncoding('utf8');
        answer.on('data', (chunk: string) => (text += chunk));
        answer.on('end', () =>
          resolve({ status: answer.statusCode!, headers: answer.headers, body: text, ms: performance.now() - started }),
        );
        answer.on('error', reject);
      },
    );
    asked.on('timeout', () => asked.destroy(new Error('no answer within the bound')));
    asked.on('error', reject);
    asked.end(fuzz.body);
  });
}

/** What is wrong with an answer, or undefined. */
function verdict(fuzz: FuzzRequest, answer: Answer): string | undefined {
  if (answer.ms > REQUEST_BOUND_MS) return `took ${Math.round(answer.ms)} ms`;
  const { status, headers } = answer;
  // Node's parser closes some garbage without a word (a second Content-Length, a bare line): nothing to judge.
  if (status === 0) return fuzz.raw === undefined ? 'no status' : undefined;
  const forced = /code=5\d\d|__code=5\d\d/.test(`${fuzz.headers.prefer ?? ''} ${fuzz.path}`);
  if (status >= 500 && headers['x-toolenv-error'] === undefined && !forced)
    return `${status} neither injected nor forced: ${answer.body.slice(0, 300)}`;
  if (status === 429 && headers['retry-after'] === undefined) return '429 without Retry-After';
  if (status >= 400 && fuzz.method !== 'HEAD') {
    const type = String(headers['content-type'] ?? '');
    const mcp =
      fuzz.path.startsWith('/mcp') &&
      /^application\/json|^text\/event-stream/.test(type) &&
      /"jsonrpc"/.test(answer.body);
    // A simulated API's own error answer (a spec example) is its body, not the server's problem.
    const simulated = headers['x-toolenv-source'] === 'example';
    if (!mcp && !simulated) {
      if (type !== 'application/problem+json')
        return `${status} is ${type || 'untyped'}, not a problem: ${answer.body.slice(0, 200)}`;
      try {
        const body = JSON.parse(answer.body) as { status?: unknown; title?: unknown };
        if (body.status !== status || typeof body.title !== 'string')
          return `${status} problem body is malformed: ${answer.body.slice(0, 200)}`;
      } catch {
        return `${status} problem body is not JSON: ${answer.body.slice(0, 200)}`;
      }
    }
  }
  if (headers['access-control-allow-origin'] !== undefined) return 'CORS header sent';
  return undefined;
}

describe(`fuzz of every route (seed ${SEED}, ${REQUESTS} requests)`, () => {
  let server: RunningServer;
  let routes: [string, string][];

  before(async () => {
    // Injection on (x-toolenv-error marks those answers); a small episode cap so that 429s happen.
    // Graph and index built beforehand: their routes answer rather than refuse (search-index.test.ts covers that).
    const library = writeFixtureLibrary([...petstoreTools, adversarial], [petstoreApi]);
    await buildGraph(library);
    await ToolSearch.open(library).index('bm25');
    server = await startTestServer({ library, errorRate: 0.05, maxEpisodes: 20, mcp: { maxSessions: 3 } });
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    routes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.keys(operations)
        .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
        .map((method): [string, string] => [method.toUpperCase(), path]),
    );
  });
  after(() => server.close());

  it(
    'answers every request within the bound, with no unasked 5xx, ' +
      'every error a problem, /healthz answering throughout',
    async () => {
      assert.ok(
        routes.some(([, path]) => path === '/mcp') &&
          routes.some(([, path]) => path.startsWith('/openenv')) &&
          routes.length > 30,
        `${routes.length} routes`,
      );
      const next = generator(prng(SEED), routes);
      const planned = Array.from({ length: REQUESTS }, next);
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      let done = false;
      let worstHealth = 0;
      const health = (async () => {
        while (!done) {
          const started = performance.now();
          const answer = await fetch(`${server.url}/healthz`);
          await answer.text();
          if (answer.status !== 200) failures.push(`/healthz answered ${answer.status}`);
          worstHealth = Math.max(worstHealth, performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      })();
      let index = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (index < planned.length) {
            const at = index++;
            const fuzz = planned[at]!;
            let wrong: string | undefined;
            try {
              const answer = await send(server.url, fuzz);
              statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
              wrong = verdict(fuzz, answer);
            } catch (error) {
              // The server may close a connection on garbage or an oversized body; it must not leave one hanging.
              if (/no answer/.test((error as Error).message)) wrong = (error as Error).message;
              else if (!['ECONNRESET', 'EPIPE'].includes((error as NodeJS.ErrnoException).code ?? ''))
                wrong = `client error ${(error as Error).message}`;
            }
            if (wrong)
              failures.push(
                `#${at} ${fuzz.method} ${fuzz.path.slice(0, 200)} ${JSON.stringify(fuzz.headers).slice(0, 200)} ` +
                  `${(fuzz.raw ?? fuzz.body ?? '').slice(0, 200)}: ${wrong}`,
              );
          }
        }),
      );
      done = true;
      await health;
      assert.deepEqual(failures.slice(0, 20), [], `seed ${SEED}: ${failures.length} of ${REQUESTS} requests failed`);
      assert.ok(worstHealth < REQUEST_BOUND_MS, `/healthz took ${Math.round(worstHealth)} ms`);
      // The run reached the server's answers broadly, not only its refusals.
      assert.ok((statuses.get(200) ?? 0) > REQUESTS / 20, JSON.stringify([...statuses]));
      assert.ok([...statuses.keys()].filter((status) => status >= 400).length >= 5, JSON.stringify([...statuses]));
    },
  );
});
