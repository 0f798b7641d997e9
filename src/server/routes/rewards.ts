import { Hono } from 'hono';
import { unknownGroup, type GroupStore } from '../../episodes/groups.js';
import { episodeRewards, type RewardContext } from '../../episodes/rewards.js';
import type { EpisodeStore } from '../../episodes/store.js';
import { parseAdvantages, parseRewardRequest } from '../../episodes/validate.js';
import { ADVANTAGE_MODES, groupAdvantages, type AdvantageMode } from '../../rl/advantages.js';
import { DEFAULT_COEFFICIENTS } from '../../wire/rewards.js';
import { readJsonBody } from '../json-body.js';
import { httpProblem } from '../../http/problem-response.js';

/**
 * The trainer's side of episodes (paper §3.3, Appendix C): an episode's hierarchical rewards
 * (`GET|POST /v1/episodes/{id}/rewards`), groups of rollouts of one task under one seed (`POST /v1/groups`,
 * `GET|DELETE /v1/groups/{id}`), their decoupled advantages (`GET /v1/groups/{id}/advantages`), and the same math
 * for groups a trainer keeps itself (`POST /v1/advantages`).
 */
export function rewardRoutes(episodes: EpisodeStore, groups: GroupStore, context: RewardContext): Hono {
  const app = new Hono();

  app.get('/v1/episodes/:id/rewards', async (c) =>
    c.json(await episodeRewards(episodes, c.req.param('id'), {}, context)),
  );

  app.post('/v1/episodes/:id/rewards', async (c) => {
    const request = parseRewardRequest(await readJsonBody(c));
    return c.json(await episodeRewards(episodes, c.req.param('id'), request, context));
  });

  app.post('/v1/groups', async (c) => {
    const group = groups.create(await readJsonBody(c));
    return c.json(group, 201, { location: `/v1/groups/${group.id}` });
  });

  app.get('/v1/groups/:id', (c) => {
    const group = groups.get(c.req.param('id'));
    if (!group) throw unknownGroup(c.req.param('id'));
    return c.json(group);
  });

  app.delete('/v1/groups/:id', (c) => {
    const id = c.req.param('id');
    const group = groups.get(id);
    if (!group || !groups.delete(id)) throw unknownGroup(id);
    return c.json({ ...group, episodes: group.episodes.map((e) => ({ ...e, done: true })) });
  });

  app.get('/v1/groups/:id/advantages', async (c) => {
    const mode = c.req.query('mode') ?? 'decoupled';
    if (!ADVANTAGE_MODES.includes(mode as AdvantageMode)) {
      throw httpProblem(400, `mode must be one of ${ADVANTAGE_MODES.join(', ')}, got ${JSON.stringify(mode)}`, {
        title: 'Invalid query parameter',
      });
    }
    const id = c.req.param('id');
    const members = groups.members(id);
    const rewards = await Promise.all(members.map((member) => episodeRewards(episodes, member, {}, context)));
    const advantages = groupAdvantages(rewards, rewards[0]!.coefficients, mode as AdvantageMode);
    return c.json({
      id,
      mode,
      episodes: members.map((member, i) => {
        const { r_step, r_phase, r_traj, flagged } = rewards[i]!;
        return { id: member, r_step, r_phase, r_traj, ...advantages[i]!, ...(flagged ? { flagged } : {}) };
      }),
    });
  });

  app.post('/v1/advantages', async (c) => {
    const { groups: given, mode, lambdas } = parseAdvantages(await readJsonBody(c));
    const weights = { ...DEFAULT_COEFFICIENTS, ...lambdas };
    return c.json({ mode, groups: given.map((group) => groupAdvantages(group, weights, mode)) });
  });

  return app;
}
