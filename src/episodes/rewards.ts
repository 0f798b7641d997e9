import type { AnswerJudge } from '../rl/judge.js';
import type { SubgraphSource } from '../rl/phase.js';
import type { Rewards } from '../rl/rewards.js';
import { unknownEpisode } from './errors.js';
import type { EpisodeStore } from './store.js';
import type { ParsedRewardRequest } from '../wire/episodes.js';

/** What scoring an episode needs beyond it: the served library's dependency graph, and the judge a request gets. */
export interface RewardContext {
  /** G_dep of the served library, undefined when none was built (L2 and L3 are then not scored). */
  graph(): SubgraphSource | undefined;
  /** The judge for a request: the one it names, the server's (`serve --judge`), or none (`"judge": false`). */
  judge(requested: ParsedRewardRequest['judge']): Promise<AnswerJudge | undefined>;
}

/**
 * The scoring functions, loaded by the first rewards asked for: they (and the rendering they measure with) are no
 * part of a start.
 */
let loaded: Promise<typeof import('../rl/rewards.js')> | undefined;
const scoring = () => (loaded ??= import('../rl/rewards.js'));

/**
 * An episode's rewards (`GET|POST /v1/episodes/{id}/rewards`), live or finished, from what the server recorded of
 * it. A finished episode is judged at most once per judge (the outcome is kept on the episode), so it always
 * scores the same. Throws EpisodeError 404 for an unknown episode.
 */
export async function episodeRewards(
  episodes: EpisodeStore,
  id: string,
  request: ParsedRewardRequest,
  context: RewardContext,
): Promise<Rewards> {
  const episode = episodes.episode(id);
  const trajectory = episodes.get(id);
  if (!episode || !trajectory) throw unknownEpisode(id, episodes.ttlMs);
  const { answerOutcome, scoreTrajectory } = await scoring();
  const outcome = await answerOutcome(trajectory, {
    verdicts: request.verdicts,
    judge: await context.judge(request.judge),
    memo: episode.judged,
  });
  return scoreTrajectory(trajectory, outcome, context.graph());
}
