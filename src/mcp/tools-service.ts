import { createRequire } from 'node:module';
import type { CallToolResult, ListToolsResult } from '@modelcontextprotocol/sdk/types.js';
import { EpisodeError } from '../episodes/errors.js';
import type { EpisodeStore } from '../episodes/store.js';
import type { Action } from '../wire/episodes.js';
import type { LibraryStore } from '../library/store.js';
import { problem } from '../simulator/problem.js';
import { metaAction } from './meta-tools.js';
import { observationResult, problemResult } from './results.js';
import type { Listing } from './session-params.js';
import { listPage, metaTools, offers } from './tool-list.js';

const VERSION = (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;

/** Who answers, in both eras: the initialize result's `serverInfo`, a 2026 result's `_meta`. */
export const SERVER_INFO = { name: 'toolenv', title: 'ToolEnv', version: VERSION };

export interface ToolsDeps {
  store: LibraryStore;
  episodes: EpisodeStore;
}

/** What a session or a stateless request is served: its tool listing, and the episode its calls are recorded in. */
export interface Served {
  episode: string;
  listing: Listing;
}

/** A tool call's outcome: a result to send (and whether it grew a working-set listing), or a name not listed. */
export type CallOutcome =
  | { kind: 'result'; result: CallToolResult; grewWorkingSet: boolean }
  | { kind: 'unknown-tool' };

/** One page of `tools/list`; a listing without an episode has no working set to read. */
export function listTools(
  deps: ToolsDeps,
  listing: Listing,
  episode: string | undefined,
  cursor: string | undefined,
): ListToolsResult {
  return listPage(listing, cursor, deps.store, () => workingSet(deps, episode));
}

/**
 * Runs `tools/call` as one step of the episode. Bad meta-tool input and every refusal of the episode store (gone,
 * done, tool outside it) are tool errors the model reads; a name the listing does not offer is for each era to answer.
 */
export async function callTool(
  deps: ToolsDeps,
  { episode, listing }: Served,
  name: string,
  input: Record<string, unknown> | undefined,
): Promise<CallOutcome> {
  const meta = { episode };
  let action: Action;
  if (metaTools(listing).includes(name)) {
    const parsed = metaAction(name, input);
    if (!parsed.ok) return { kind: 'result', result: problemResult(parsed.problem, meta), grewWorkingSet: false };
    action = parsed.action;
  } else if (offers(listing, name, deps.store, () => workingSet(deps, episode))) {
    action = { type: 'tool_call', tool: name, arguments: input ?? {} };
  } else {
    return { kind: 'unknown-tool' };
  }

  const known = listing.kind === 'working-set' ? workingSet(deps, episode).length : 0;
  try {
    const result = await deps.episodes.step(episode, { actions: [action] });
    const grewWorkingSet = listing.kind === 'working-set' && workingSet(deps, episode).length > known;
    return {
      kind: 'result',
      result: observationResult(result.observations[0]!, { ...meta, step: result.step }),
      grewWorkingSet,
    };
  } catch (error) {
    if (!(error instanceof EpisodeError)) throw error;
    return {
      kind: 'result',
      result: problemResult(
        problem(error.status, error.title, error.message, error.errors ? { errors: error.errors } : {}),
        meta,
      ),
      grewWorkingSet: false,
    };
  }
}

/**
 * What a client is told about the server: what it simulates, how to use the listing, and `recording`, where its
 * calls are recorded. `announced`: whether a working set's growth is announced by tools/list_changed.
 */
export function instructions(listing: Listing, recording: string, announced: boolean): string {
  return (
    'ToolEnv serves simulated versions of real APIs: every call is answered with the HTTP status and JSON body the ' +
    'API would give; a failed call is a tool error whose body is an RFC 7807 problem saying what to fix. ' +
    `${listingHint(listing, announced)} ${recording}`
  );
}

function listingHint(listing: Listing, announced: boolean): string {
  switch (listing.kind) {
    case 'meta':
      return (
        'Find tools with search_tool (a plain-words description of what you need), ' +
        'then call one with call_tool {tool, arguments}.'
      );
    case 'tools':
      return 'The listed tools are library tools; call them directly.';
    case 'category':
      return (
        `The listed tools are the library's ${JSON.stringify(listing.category)} ` +
        'tools (follow nextCursor for more pages); call them directly.'
      );
    case 'working-set':
      return (
        'Find tools with search_tool; every tool it finds joins the tool list ' +
        `(${announced ? 'a tools/list_changed notification says when' : 'list the tools again after a search'}) and ` +
        'is called directly.'
      );
  }
}

function workingSet(deps: ToolsDeps, episode: string | undefined): readonly string[] {
  return episode === undefined ? [] : (deps.episodes.summary(episode)?.working_set ?? []);
}
