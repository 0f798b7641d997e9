import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import type { ApiRecord, Tool } from '../../src/library/tool.js';
import { startServer, type RunningServer, type ServeOptions } from '../../src/server/serve.js';
import type { Responder } from '../../src/simulator/types.js';
import { tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

/** Answers every call with the tool id and the arguments it received, so tests can see what the server rebuilt. */
export const echoResponder: Responder = {
  name: 'synth',
  async respond(tool, args) {
    return { status: tool.response_status ?? 200, body: { tool: tool.id, args } };
  },
};

/** A real server on 127.0.0.1 with a free port, the fixture library (or the given one) and a fresh cache file. */
export async function startTestServer(
  options: Partial<ServeOptions> & { tools?: Tool[]; apis?: ApiRecord[] } = {},
): Promise<RunningServer> {
  const { tools, apis, ...rest } = options;
  const library = rest.library ?? (tools || apis ? writeFixtureLibrary(tools, apis) : writeFixtureLibrary());
  return startServer({
    library,
    cache: join(tempDir('toolenv-cache-'), 'responses.db'),
    responders: [echoResponder],
    errorRate: 0,
    port: 0,
    log: () => {},
    ...rest,
  });
}

/** Asserts an RFC 7807 answer with this status and returns its body. */
export async function expectProblem(response: Response, status: number): Promise<Record<string, unknown>> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  assert.equal(response.headers.get('content-type'), 'application/problem+json');
  const body = JSON.parse(text) as Record<string, unknown>;
  assert.equal(body.status, status);
  assert.equal(typeof body.title, 'string');
  assert.match(String(body.type), /^https:\/\//);
  return body;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request whose path goes on the wire exactly as written (fetch would normalize `..` and re-encode). */
export function rawRequest(
  url: string,
  path: string,
  init: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, path, method: init.method ?? 'GET', headers: init.headers },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Sends bytes on a fresh socket and returns everything the server wrote back before closing. */
export function rawSocket(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
  });
}

/**
 * A `POST /v1/search` answered once its index is there: the first search of a library without one starts the
 * build and is answered 503 with Retry-After, as are those during it.
 */
export async function searchWhenBuilt(url: string, body: unknown, timeoutMs = 30_000): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await postJson(`${url}/v1/search`, body);
    if (response.status !== 503 || Date.now() > deadline) return response;
    assert.ok(response.headers.get('retry-after'), 'a 503 while the index builds says when to retry');
    await response.body?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
