import { EpisodeError } from '../episodes/errors.js';
import type { EpisodeStore } from '../episodes/store.js';
import type { CallControls, CallResult } from '../simulator/types.js';

/**
 * A tool call made inside an episode (`x-toolenv-episode` on `POST /v1/tools/{id}/call` or the REST surface),
 * answered like any call plus `x-toolenv-step` (the step it was recorded as) and `x-toolenv-state` (what world
 * state did, when anything).
 */
export async function episodeCallResult(
  episodes: EpisodeStore | undefined,
  episodeId: string,
  toolId: string,
  args: unknown,
  controls: CallControls,
): Promise<CallResult> {
  if (!episodes) throw new EpisodeError(404, `no episode ${JSON.stringify(episodeId)}: this server keeps no episodes`);
  const result = await episodes.call(episodeId, toolId, args, controls);
  const headers: Record<string, string> = { ...result.headers, 'x-toolenv-step': String(result.step) };
  if (result.state) headers['x-toolenv-state'] = result.state;
  return { status: result.status, body: result.body, source: result.source, headers, error: result.error };
}
