import { test } from 'node:test';
import assert from 'node:assert/strict';
import { indexTerms } from '../../src/retrieval/tokenize.js';
import { ToolSearch } from '../../src/retrieval/searcher.js';
import { writeGitLibrary } from './github-fixture.js';

test(
  'a query naming an operation and its API finds that ' + 'operation first (GitHub\'s "Get a repository" was 61st)',
  () => {
    const search = ToolSearch.open(writeGitLibrary());
    const cases: [string, string][] = [
      ['get a github repository', 'github_com_api_github_com__repos_get'],
      ['delete a github repository', 'github_com_api_github_com__repos_delete'],
      ['create a github issue', 'github_com_api_github_com__issues_create'],
      ['list the issues of a github repository', 'github_com_api_github_com__issues_list-for-repo'],
      ['get the authenticated github user', 'github_com_api_github_com__users_get-authenticated'],
      ['get a bitbucket repository', 'bitbucket_org__get_repositories_workspace_repo_slug'],
      ['delete a repository on gitea', 'gitea_io__repoDelete'],
    ];
    const results = search.searchBm25(
      cases.map(([q]) => q),
      { k: 3 },
    );
    cases.forEach(([query, id], i) =>
      assert.equal(results[i]![0]?.id, id, `${query} → ${results[i]!.map((r) => r.id).join(', ')}`),
    );
  },
);

test('a longer name that repeats the query words does not outrank the name the query says', () => {
  const search = ToolSearch.open(writeGitLibrary());
  const [results] = search.searchBm25(['get github actions permissions for a repository'], { k: 3 });
  assert.equal(results![0]!.id, 'github_com_api_github_com__actions_get-github-actions-permissions-repository');
  const [repo] = search.searchBm25(['github repository'], { k: 5 });
  assert.ok(
    repo!.slice(0, 3).some((r) => r.id === 'github_com_api_github_com__repos_get'),
    repo!.map((r) => r.id).join(', '),
  );
});

test('brand names written in camelCase are found as one word, and still by their parts', () => {
  assert.deepEqual(indexTerms('GitHub v3 REST API'), ['git', 'hub', 'github', 'v3', 'rest', 'api']);
  assert.ok(indexTerms('YouTube PayPal LinkedIn').includes('youtub'));
  // Identifiers are not names: lowerCamel runs and long PascalCase ones stay split only.
  assert.deepEqual(indexTerms('getPetById'), ['get', 'pet', 'id']);
  assert.ok(!indexTerms('ListRepositoryIssuesForOrganization').includes('listrepositoryissuesfororganization'));
});
