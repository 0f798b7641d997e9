import type { ApiRecord, HttpMethod, Tool } from '../../src/library/tool.js';
import { writeFixtureLibrary } from '../fixtures/tools.js';

/**
 * Operations copied from the default library's GitHub, Bitbucket and Gitea APIs (names, operationIds, paths,
 * first sentences), where BM25 once ranked GitHub's "Get a repository" 61st for "get a github repository": long
 * names repeating the query's words ("Get GitHub Actions permissions for a repository") won over the short name
 * that is the answer, and the API title "GitHub v3 REST API" split into "git hub" never matched "github".
 */
const api = (api_id: string, title: string, category: string): ApiRecord => ({
  api_id,
  title,
  provider: api_id,
  category,
  format: 'openapi',
});

export const gitApis: ApiRecord[] = [
  api('github.com:api.github.com', 'GitHub v3 REST API', 'collaboration'),
  api('bitbucket.org', 'Bitbucket API', 'developer_tools'),
  api('gitea.io', 'Gitea API', 'developer_tools'),
];

const op = (
  apiId: string,
  operationId: string,
  method: HttpMethod,
  path: string,
  name: string,
  description: string,
  category: string,
): Tool => {
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return {
    id: `${apiId.replace(/[^a-z0-9]+/gi, '_')}__${operationId.replace(/[^a-z0-9-]+/gi, '_')}`,
    name,
    description,
    category,
    parameters: {
      type: 'object',
      required: params,
      properties: Object.fromEntries(params.map((p) => [p, { type: 'string' }])),
    },
    examples: [],
    origin: { format: 'openapi', api_id: apiId, method, path, operation_id: operationId, server: 'https://api.test' },
  };
};

const gh = (operationId: string, method: HttpMethod, path: string, name: string, description: string) =>
  op('github.com:api.github.com', operationId, method, path, name, description, 'collaboration');

export const gitTools: Tool[] = [
  gh(
    'repos/get',
    'get',
    '/repos/{owner}/{repo}',
    'Get a repository',
    'Get a repository. The `parent` and `source` objects are present when the repository is a fork.',
  ),
  gh(
    'repos/delete',
    'delete',
    '/repos/{owner}/{repo}',
    'Delete a repository',
    'Deleting a repository requires admin access.',
  ),
  gh(
    'repos/list-for-org',
    'get',
    '/orgs/{org}/repos',
    'List organization repositories',
    'Lists repositories for the specified organization.',
  ),
  gh(
    'issues/create',
    'post',
    '/repos/{owner}/{repo}/issues',
    'Create an issue',
    'Any user with pull access to a repository can create an issue.',
  ),
  gh(
    'issues/list-for-repo',
    'get',
    '/repos/{owner}/{repo}/issues',
    'List repository issues',
    'List issues in a repository. Only open issues will be listed.',
  ),
  gh(
    'users/get-authenticated',
    'get',
    '/user',
    'Get the authenticated user',
    'If the authenticated user is authenticated with an OAuth token with the user scope, then the response lists ' +
      'public and private profile information.',
  ),
  gh(
    'actions/get-github-actions-default-workflow-permissions-repository',
    'get',
    '/repos/{owner}/{repo}/actions/permissions/workflow',
    'Get default workflow permissions for a repository',
    'Gets the default workflow permissions granted to the GITHUB_TOKEN when running workflows in a repository.',
  ),
  gh(
    'actions/get-github-actions-permissions-repository',
    'get',
    '/repos/{owner}/{repo}/actions/permissions',
    'Get GitHub Actions permissions for a repository',
    'Gets the GitHub Actions permissions policy for a repository, including whether GitHub Actions is enabled.',
  ),
  gh(
    'actions/set-github-actions-permissions-repository',
    'put',
    '/repos/{owner}/{repo}/actions/permissions',
    'Set GitHub Actions permissions for a repository',
    'Sets the GitHub Actions permissions policy for enabling GitHub Actions in a repository.',
  ),
  gh(
    'actions/list-selected-repositories-enabled-github-actions-organization',
    'get',
    '/orgs/{org}/actions/permissions/repositories',
    'List selected repositories enabled for GitHub Actions in an organization',
    'Lists the selected repositories that are enabled for GitHub Actions in an organization.',
  ),
  gh(
    'actions/enable-selected-repository-github-actions-organization',
    'put',
    '/orgs/{org}/actions/permissions/repositories/{repository_id}',
    'Enable a selected repository for GitHub Actions in an organization',
    'Adds a repository to the list of selected repositories that are enabled for GitHub Actions in an organization.',
  ),
  gh(
    'actions/disable-selected-repository-github-actions-organization',
    'delete',
    '/orgs/{org}/actions/permissions/repositories/{repository_id}',
    'Disable a selected repository for GitHub Actions in an organization',
    'Removes a repository from the list of selected repositories ' +
      'that are enabled for GitHub Actions in an organization.',
  ),
  gh(
    'activity/list-repos-starred-by-user',
    'get',
    '/users/{username}/starred',
    'List repositories starred by a user',
    'Lists repositories a user has starred.',
  ),
  op(
    'bitbucket.org',
    'get_repositories_workspace_repo_slug',
    'get',
    '/repositories/{workspace}/{repo_slug}',
    'Get a repository',
    'Returns the object describing this repository.',
    'developer_tools',
  ),
  op(
    'bitbucket.org',
    'delete_repositories_workspace_repo_slug',
    'delete',
    '/repositories/{workspace}/{repo_slug}',
    'Delete a repository',
    'Deletes the repository. This is an irreversible operation.',
    'developer_tools',
  ),
  op('gitea.io', 'repoGet', 'get', '/repos/{owner}/{repo}', 'Get a repository', 'Get a repository', 'developer_tools'),
  op(
    'gitea.io',
    'repoDelete',
    'delete',
    '/repos/{owner}/{repo}',
    'Delete a repository',
    'Delete a repository',
    'developer_tools',
  ),
  op(
    'gitea.io',
    'issueCreateIssue',
    'post',
    '/repos/{owner}/{repo}/issues',
    'Create an issue. If using deadline only the date will be taken into account, and time of day ignored.',
    'Create an issue. If using deadline only the date will be taken into account, and time of day ignored.',
    'developer_tools',
  ),
];

/** A library of the operations above, in a fresh temporary directory. */
export function writeGitLibrary(): string {
  return writeFixtureLibrary(gitTools, gitApis);
}
