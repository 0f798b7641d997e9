import { randomUUID } from 'node:crypto';
import { EpisodeError } from './errors.js';
import type { EpisodeStore } from './store.js';
import type { CreatedEpisode, EpisodeConfig, EpisodeSummary } from '../wire/episodes.js';
import { parseGroup } from './validate.js';

/** `POST /v1/groups` answer and `GET /v1/groups/{id}`. */
export interface GroupSummary {
  id: string;
  n: number;
  seed: number;
  config: EpisodeConfig;
  /** The members still live, in the order they were made. */
  episodes: (EpisodeSummary | CreatedEpisode)[];
  /** Members deleted or expired since. */
  gone: string[];
}

interface Group {
  id: string;
  n: number;
  seed: number;
  config: EpisodeConfig;
  members: string[];
}

/**
 * Groups of episodes for group-relative advantages (GRPO compares rollouts of one world): n episodes of one task
 * made with one seed, so that the same calls meet the same injected errors and the same synthesized answers. The
 * episodes live in the EpisodeStore like any other; a group only remembers its members, and is dropped once none
 * of them is live.
 */
export class GroupStore {
  private readonly groups = new Map<string, Group>();

  constructor(
    private readonly episodes: EpisodeStore,
    private readonly idPrefix = '',
  ) {}

  /** Throws EpisodeError 400 (bad body) or 429 (n more episodes do not fit). */
  create(body: unknown): GroupSummary {
    this.prune();
    const { n, config } = parseGroup(body, (id) => this.episodes.knows(id));
    this.episodes.makeRoom(n);
    const seed = config.seed ?? this.episodes.nextSeed();
    const id = `${this.idPrefix}g-${randomUUID()}`;
    const made = Array.from({ length: n }, () => this.episodes.start({ ...config, seed }, id));
    this.groups.set(id, { id, n, seed, config: { ...config, seed }, members: made.map((e) => e.id) });
    return { id, n, seed, config: { ...config, seed }, episodes: made, gone: [] };
  }

  get(id: string): GroupSummary | undefined {
    const group = this.groups.get(id);
    if (!group) return undefined;
    const episodes: EpisodeSummary[] = [];
    const gone: string[] = [];
    for (const member of group.members) {
      const summary = this.episodes.summary(member);
      if (summary) episodes.push(summary);
      else gone.push(member);
    }
    if (episodes.length === 0) {
      this.groups.delete(id);
      return undefined;
    }
    return { id, n: group.n, seed: group.seed, config: group.config, episodes, gone };
  }

  /** The members' ids; throws 404 for an unknown group and 409 when a member is gone (its rewards went with it). */
  members(id: string): string[] {
    const summary = this.get(id);
    if (!summary) throw unknownGroup(id);
    if (summary.gone.length > 0) {
      throw new EpisodeError(
        409,
        `group ${id}: ${summary.gone.length} of its ${summary.n} episodes are gone ` +
          `(${summary.gone.slice(0, 3).join(', ')}): deleted or expired, their rewards with them; fetch a group's ` +
          'advantages before deleting its episodes',
        undefined,
        'Group incomplete',
      );
    }
    return summary.episodes.map((e) => e.id);
  }

  /** Ends the group and its episodes; false when there was none. */
  delete(id: string): boolean {
    const group = this.groups.get(id);
    if (!group) return false;
    for (const member of group.members) this.episodes.delete(member);
    return this.groups.delete(id);
  }

  /** Drops groups none of whose episodes is live; looking does not keep their idle members alive. */
  private prune(): void {
    for (const [id, group] of this.groups)
      if (!group.members.some((m) => this.episodes.isLive(m))) this.groups.delete(id);
  }
}

export function unknownGroup(id: string): EpisodeError {
  return new EpisodeError(
    404,
    `no group ${JSON.stringify(id)}: it never existed, or all its episodes were deleted or expired`,
    undefined,
    'Unknown group',
  );
}
