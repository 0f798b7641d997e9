/**
 * The REST surface answers in the documented media type (Accept choosing, 406 when it admits none), declares its
 * statuses or says it does not, enforces required bodies, admits null where the schema does and reads int64 exactly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { synthResponder } from '../../src/simulator/synth/responder.js';
import { importMediaDocument } from '../fixtures/media-document.js';
import { expectProblem, postJson, startTestServer } from './helpers.js';

describe('REST surface: media types, statuses, bodies', () => {
  let server: RunningServer;
  let api: string;
  before(async () => {
    const batch = await importMediaDocument();
    server = await startTestServer({ tools: batch.tools, apis: batch.apis, responders: [synthResponder] });
    api = `${server.url}/apis/media.example`;
  });
  after(() => server.close());

  it('a +json media type is answered as JSON under that type', async () => {
    const response = await fetch(`${api}/articles/a1`);
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('content-type'), 'application/vnd.api+json');
    const body = (await response.json()) as { data: { id: unknown } };
    assert.equal(typeof body.data.id, 'number');
  });

  it('JSON by default where JSON is documented; CSV when Accept asks for it, rows from the item schema', async () => {
    const json = await fetch(`${api}/reports`);
    assert.equal(json.headers.get('content-type'), 'application/json');
    const rows = (await json.json()) as Record<string, unknown>[];
    const csv = await fetch(`${api}/reports`, { headers: { accept: 'text/csv' } });
    assert.equal(csv.status, 200);
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    const lines = (await csv.text()).trimEnd().split('\r\n');
    assert.equal(lines.length, rows.length + 1);
    assert.deepEqual(lines[0]!.split(','), Object.keys(rows[0]!));
    assert.equal(lines[1]!.split(',')[0], String(rows[0]!.id));
  });

  it('Accept admitting no documented type: 406 where declared, else disregarded for the documented type', async () => {
    const csv = await fetch(`${api}/exports`);
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.match((await csv.text()).split('\r\n')[0]!, /\bid\b.*\bname\b|\bname\b.*\bid\b/);
    // /exports declares no 406: RFC 9110 lets the server disregard Accept, and the document allows no 406.
    const disregarded = await fetch(`${api}/exports`, { headers: { accept: 'application/json' } });
    assert.equal(disregarded.status, 200);
    assert.equal(disregarded.headers.get('content-type'), 'text/csv; charset=utf-8');
    const refused = await fetch(`${api}/reports`, { headers: { accept: 'image/png' } });
    const problem = await expectProblem(refused, 406);
    assert.deepEqual(problem.available, ['text/csv', 'application/json']);
    assert.equal(refused.headers.get('x-toolenv-undeclared-status'), null);
    assert.equal((await fetch(`${api}/exports`, { headers: { accept: 'text/*' } })).status, 200);
    // A 406 under a declared default error is written in that error's shape and type.
    const shaped = await fetch(`${api}/articles/a1`, { headers: { accept: 'text/html' } });
    assert.equal(shaped.status, 406);
    assert.equal(shaped.headers.get('content-type'), 'application/json');
    assert.equal(shaped.headers.get('x-toolenv-problem'), 'https://toolenv.dev/problems/not-acceptable');
    assert.match(String(((await shaped.json()) as { message: string }).message), /admits none/);
    // A JSON variant (Octokit's) is answered by the documented JSON type.
    const variant = await fetch(`${api}/reports`, { headers: { accept: 'application/vnd.github.v3+json' } });
    assert.equal(variant.headers.get('content-type'), 'application/json');
  });

  it('XML follows the schema: root from its xml name, attributes, wrapped arrays', async () => {
    const json = (await (await fetch(`${api}/pets/7`)).json()) as { id: number; name: string; tags?: string[] };
    const response = await fetch(`${api}/pets/7`, { headers: { accept: 'application/xml' } });
    assert.equal(response.headers.get('content-type'), 'application/xml');
    const text = await response.text();
    assert.match(text, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<pet id="\d+">/);
    assert.ok(text.includes(`<name>${json.name}</name>`), text);
    if (json.tags && json.tags.length > 0) assert.ok(text.includes(`<tags><tag>${json.tags[0]}</tag>`), text);
  });

  it('binary types are bytes: a PNG with its signature, octets of a stated length', async () => {
    const png = await fetch(`${api}/photos/p1`);
    assert.equal(png.headers.get('content-type'), 'image/png');
    const bytes = new Uint8Array(await png.arrayBuffer());
    assert.deepEqual([...bytes.slice(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const file = await fetch(`${api}/files/f1`);
    assert.equal(file.headers.get('content-type'), 'application/octet-stream');
    const octets = await file.arrayBuffer();
    assert.equal(Number(file.headers.get('content-length')), octets.byteLength);
    assert.ok(octets.byteLength > 0);
  });

  it('text/plain answers text', async () => {
    const response = await fetch(`${api}/notes`);
    assert.equal(response.headers.get('content-type'), 'text/plain; charset=utf-8');
    const text = await response.text();
    assert.ok(!text.startsWith('"'), text);
  });

  it('a missing required request body is refused with the declared 400, not answered 201', async () => {
    const response = await fetch(`${api}/things`, { method: 'POST' });
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('x-toolenv-undeclared-status'), null);
    assert.equal(response.headers.get('x-toolenv-problem'), 'https://toolenv.dev/problems/invalid-arguments');
    assert.match(String(((await response.json()) as { message: string }).message), /request body/);
    assert.equal((await postJson(`${api}/things`, { name: 'x' })).status, 201);
  });

  it('a null body is accepted where the schema has no type, refused where it is an object', async () => {
    const accepted = await fetch(`${api}/notes/n1`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: 'null',
    });
    assert.equal(accepted.status, 200, await accepted.text());
    const refused = await fetch(`${api}/things`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'null',
    });
    assert.equal(refused.status, 400);
  });

  it('integers past int64 (int32 where the format says) are refused exactly, int64 extremes accepted', async () => {
    for (const value of ['9223372036854775807', '-9223372036854775808']) {
      const body = `{"value": ${value}}`;
      const response = await fetch(`${api}/counters`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      assert.equal(response.status, 200, `${value}: ${await response.text()}`);
      assert.equal((await fetch(`${api}/counters?at=${value}`)).status, 200, value);
    }
    for (const value of ['9223372036854775808', '-9223372036854775809', '123456789012345678901234']) {
      const response = await fetch(`${api}/counters`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: `{"value": ${value}}`,
      });
      assert.equal(response.status, 400, value);
      assert.match(String(((await response.json()) as { message: string }).message), /\/value must be integer/);
      assert.equal((await fetch(`${api}/counters?at=${value}`)).status, 400, value);
    }
    assert.equal((await fetch(`${api}/counters?at=1&page=2147483647`)).status, 200);
    assert.equal((await fetch(`${api}/counters?at=1&page=2147483648`)).status, 400);
  });

  it('a refusal where the operation declares no 4xx is a 400 that says so, counted in /metrics', async () => {
    const response = await fetch(`${api}/search`);
    await expectProblem(response, 400);
    assert.equal(response.headers.get('x-toolenv-undeclared-status'), '400');
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /^toolenv_rest_undeclared_status_total\{status="400"\} [1-9]\d*$/m);
  });
});
