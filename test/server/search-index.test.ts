import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { expectProblem, postJson, searchWhenBuilt, startTestServer } from './helpers.js';

/** Milliseconds /healthz takes while `during` runs: the event loop must stay free for it. */
async function healthDuring(url: string, during: Promise<unknown>): Promise<number> {
  let worst = 0;
  let done = false;
  void during.finally(() => (done = true));
  while (!done) {
    const started = performance.now();
    assert.equal((await fetch(`${url}/healthz`)).status, 200);
    worst = Math.max(worst, performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return worst;
}

describe('searches whose index is not built', () => {
  let server: RunningServer;
  before(async () => (server = await startTestServer()));
  after(() => server.close());

  it(
    'a USE search is refused at once with the command that builds its vectors, ' + 'not built inside the request',
    async () => {
      // Every search reads the lexical catalog: its build comes first.
      assert.equal((await searchWhenBuilt(server.url, { query: 'weather' })).status, 200);
      const started = performance.now();
      const asked = postJson(`${server.url}/v1/search`, { query: 'weather', retriever: 'use' });
      const worstHealth = await healthDuring(server.url, asked);
      const body = await expectProblem(await asked, 409);
      // Before, the request built the whole USE index: no answer in 60 s on the default library.
      assert.ok(performance.now() - started < 10_000);
      assert.ok(worstHealth < 1000, `/healthz took ${worstHealth} ms`);
      assert.match(String(body.command), /^toolenv search index --library \S+ --retriever use$/);
      assert.ok(String(body.detail).includes(String(body.command)), String(body.detail));
    },
  );

  it('the bm25 index is built in a worker thread: 503 with Retry-After meanwhile, then answers', async () => {
    const fresh = await startTestServer();
    try {
      const first = await postJson(`${fresh.url}/v1/search`, { query: 'find a pet by its id' });
      const problem = await expectProblem(first, 503);
      assert.equal(first.headers.get('retry-after'), '2');
      assert.equal(problem.retriever, 'bm25');
      const answered = await searchWhenBuilt(fresh.url, { query: 'find a pet by its id' });
      assert.equal(answered.status, 200);
      assert.equal(
        ((await answered.json()) as { results: { id: string }[] }).results[0]!.id,
        'petstore_test__getPetById',
      );
    } finally {
      await fresh.close();
    }
  });

  it("an episode's search waits for the build instead of failing its step", async () => {
    const fresh = await startTestServer();
    try {
      const created = (await (await postJson(`${fresh.url}/v1/episodes`, {})).json()) as { id: string };
      const stepped = await postJson(`${fresh.url}/v1/episodes/${created.id}/step`, {
        actions: [{ type: 'search_tool', query: 'delete a pet' }],
      });
      assert.equal(stepped.status, 200);
      const text = await stepped.text();
      assert.match(text, /petstore_test__deletePet/);
    } finally {
      await fresh.close();
    }
  });
});
