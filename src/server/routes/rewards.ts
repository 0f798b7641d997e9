import { Hono } from 'hono';
import { unknownGroup, type GroupStore } from '../../episodes/groups.js';
import { episodeRewards, type RewardContext } from '../../episodes/rewards.js';
import type { EpisodeStore } from '../../episodes/store.js';
import { parseAdvantages, parseRewardRequest } from '../../episodes/validate.js';
import { ADVANTAGE_MODES, groupAdvantages, type AdvantageMode } from '../../rl/advantages.js';
import { DEFAULT_COEFFICIENTS } from '../../wire/rewards.js';
import { readJsonBody } from '../json-body.js';
import { httpProblem } from '../../http/problem-response.js';
import { json, PROBLEMS, problemDoc, ref, type Operations } from '../openapi-parts.js';
import { MAX_GROUP_SIZE } from '../../episodes/limits.js';

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
        const { r_step, r_phase, r_traj, r_state, flagged } = rewards[i]!;
        return {
          id: member,
          r_step,
          r_phase,
          r_traj,
          ...(r_state !== undefined ? { r_state } : {}),
          ...advantages[i]!,
          ...(flagged ? { flagged } : {}),
        };
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

/** The operations of rewardRoutes. */
export const rewardOperations: Operations = {
  '/v1/episodes/{id}/rewards': {
    get: {
      operationId: 'getEpisodeRewards',
      tags: ['Rewards'],
      summary:
        "The episode's hierarchical rewards: R_step, R_phase, R_traj and R_ans, with what each was computed from",
      description:
        "Computed from the text turns the server recorded, live or finished. R_ans comes from the task's expected " +
        "answer (by rule) or the server's judge (`serve --judge`); a finished episode is judged at most once per " +
        'judge, so it always scores the same. When R_ans cannot be scored (no expected answer and no judge, or the ' +
        'judge failed) r_ans, gate, r_phase and r_traj are null and `flagged` says why. L2 and L3 are scored only ' +
        "when the library's dependency graph is built (`graph`).",
      parameters: [{ $ref: '#/components/parameters/EpisodeId' }],
      responses: {
        '200': json('The rewards.', ref('Rewards')),
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownEpisode' },
      },
    },
    post: {
      operationId: 'scoreEpisodeRewards',
      tags: ['Rewards'],
      summary: "The episode's rewards, scored with the verdicts or the judge the body gives",
      description:
        '`verdicts` score R_ans as given (replays, tests); `judge` names a judge for this request ' +
        '(`openai:MODEL@URL`), or `false` calls none. An empty body is as GET.',
      parameters: [{ $ref: '#/components/parameters/EpisodeId' }],
      requestBody: { required: false, content: { 'application/json': { schema: ref('RewardRequest') } } },
      responses: {
        '200': json('The rewards.', ref('Rewards')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownEpisode' },
        '413': PROBLEMS['413'],
      },
    },
  },
  '/v1/groups': {
    post: {
      operationId: 'createGroup',
      tags: ['Rewards'],
      summary:
        `A group of n (at most ${MAX_GROUP_SIZE}) episodes of one task, ` +
        'made with one seed, for group-relative advantages',
      description:
        'Every member gets the same config and seed, so the same calls meet the same injected errors and the same ' +
        'synthesized answers. The members are ordinary episodes (`group` names the group); the group lives as long ' +
        'as any of them does.',
      requestBody: { required: true, content: { 'application/json': { schema: ref('GroupRequest') } } },
      responses: {
        '201': {
          ...json('The group, its members with their first messages.', ref('GroupSummary')),
          headers: { Location: { description: "The group's URL.", schema: { type: 'string' } } },
        },
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownTools' },
        '413': PROBLEMS['413'],
        '429': { $ref: '#/components/responses/TooManyEpisodes' },
      },
    },
  },
  '/v1/groups/{id}': {
    get: {
      operationId: 'getGroup',
      tags: ['Rewards'],
      summary: "The group: its config and seed, its live members' summaries, and the members gone since",
      parameters: [{ $ref: '#/components/parameters/GroupId' }],
      responses: {
        '200': json('The group.', ref('GroupSummary')),
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownGroup' },
      },
    },
    delete: {
      operationId: 'deleteGroup',
      tags: ['Rewards'],
      summary: 'End a group and its episodes; answers its final summary',
      parameters: [{ $ref: '#/components/parameters/GroupId' }],
      responses: {
        '200': json('The final summary, every member done.', ref('GroupSummary')),
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownGroup' },
      },
    },
  },
  '/v1/groups/{id}/advantages': {
    get: {
      operationId: 'getGroupAdvantages',
      tags: ['Rewards'],
      summary: "Every member's rewards and group-relative advantages (Eq. 7)",
      description:
        '`decoupled` standardizes each reward component in the group, then weights them by the λ coefficients; ' +
        '`aggregated` standardizes their weighted sum (GRPO, the ablation). A flagged member gets null advantages ' +
        "and is left out of the group's statistics.",
      parameters: [
        { $ref: '#/components/parameters/GroupId' },
        {
          name: 'mode',
          in: 'query',
          description: 'How the components are combined.',
          schema: { ...ref('AdvantageMode'), default: 'decoupled' },
        },
      ],
      responses: {
        '200': json('The members in order, each with its rewards and advantages.', ref('GroupAdvantages')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '404': { $ref: '#/components/responses/UnknownGroup' },
        '409': problemDoc('A member is gone (deleted or expired), its rewards with it.'),
      },
    },
  },
  '/v1/advantages': {
    post: {
      operationId: 'computeAdvantages',
      tags: ['Rewards'],
      summary: "Group-relative advantages of groups a trainer keeps itself: the same math as a group's",
      description:
        "Each group is one task's rollouts, each rollout its three rewards (null for a flagged one). `lambda` " +
        'overrides the advantage weights.',
      requestBody: { required: true, content: { 'application/json': { schema: ref('AdvantagesRequest') } } },
      responses: {
        '200': json('One advantage per rollout, in order.', ref('AdvantagesResult')),
        '400': PROBLEMS['400'],
        '401': PROBLEMS['401'],
        '413': PROBLEMS['413'],
      },
    },
  },
};
