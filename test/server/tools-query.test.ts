import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { RunningServer } from '../../src/server/serve.js';
import { gitApis, gitTools } from '../retrieval/github-fixture.js';
import { expectProblem, startTestServer } from './helpers.js';

describe('GET /v1/tools?q= ranks its matches', () => {
  let server: RunningServer;
  before(async () => {
    server = await startTestServer({ tools: gitTools, apis: gitApis });
  });
  after(() => server.close());

  const page = async (query: string) =>
    (await (await fetch(`${server.url}/v1/tools?${query}`)).json()) as {
      tools: { id: string; name: string }[];
      next_cursor: string | null;
    };

  it(
    'the name that is the text comes first, ' + 'then names holding it as words, shorter first; descriptions last',
    async () => {
      const { tools } = await page('q=get%20a%20repository');
      assert.deepEqual(
        tools.map((t) => t.id),
        [
          'github_com_api_github_com__repos_get',
          'bitbucket_org__get_repositories_workspace_repo_slug',
          'gitea_io__repoGet',
        ],
      );
      const issue = (await page('q=issue')).tools.map((t) => t.name);
      assert.equal(issue[0], 'Create an issue');
      assert.equal(
        issue.at(-1),
        'List repository issues',
        '"issue" inside the word "issues" ranks after whole-word names',
      );
      const fork = (await page('q=fork')).tools.map((t) => t.name);
      assert.deepEqual(fork, ['Get a repository'], 'a description-only match is still found');
    },
  );

  it(
    'pages through the whole match set once, in ranked order, ' + 'and keeps the filter: nothing is dropped or added',
    async () => {
      const all = (await page('q=repositor&limit=1000')).tools.map((t) => t.id);
      const expected = gitTools
        .filter((t) => `${t.id} ${t.name} ${t.description}`.toLowerCase().includes('repositor'))
        .map((t) => t.id);
      assert.deepEqual([...all].sort(), [...expected].sort());
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const next = await page(`q=repositor&limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        paged.push(...next.tools.map((t) => t.id));
        cursor = next.next_cursor;
      } while (cursor !== null);
      assert.deepEqual(paged, all);
      const names = all.map((id) => gitTools.find((t) => t.id === id)!.name);
      assert.ok(names.indexOf('List organization repositories') < names.indexOf('Create an issue'), names.join(' | '));
    },
  );

  it("a library-order page's cursor reads as a page of the ranking; one not of digits is refused", async () => {
    const plain = await page('limit=1');
    const ranked = await fetch(`${server.url}/v1/tools?q=repositor&cursor=${plain.next_cursor}`);
    assert.equal(ranked.status, 200);
    const problem = await expectProblem(await fetch(`${server.url}/v1/tools?q=repository&cursor=r1`), 400);
    assert.match(String(problem.detail), /invalid cursor/);
  });
});
