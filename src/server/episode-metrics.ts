import type { EpisodeStore } from '../episodes/store.js';

/**
 * The live episodes and what their expiry sweeps cost, in Prometheus text format: a sweep visits every live episode,
 * so its time is what a server holding tens of thousands of them pays per sweep interval.
 */
export function episodeMetrics(store: EpisodeStore): { toPrometheus(): string } {
  return {
    toPrometheus: () => {
      const sweeps = store.sweepStats;
      return [
        '# HELP toolenv_episodes_live Episodes live in this process.',
        '# TYPE toolenv_episodes_live gauge',
        `toolenv_episodes_live ${store.size}`,
        '# HELP toolenv_episode_bytes Bytes of JSON the live episodes hold, counted against --episode-memory.',
        '# TYPE toolenv_episode_bytes gauge',
        `toolenv_episode_bytes ${store.bytes}`,
        '# HELP toolenv_episode_sweeps_total Expiry sweeps over the live episodes.',
        '# TYPE toolenv_episode_sweeps_total counter',
        `toolenv_episode_sweeps_total ${sweeps.count}`,
        '# HELP toolenv_episode_sweep_seconds_total Time the expiry sweeps took, seconds.',
        '# TYPE toolenv_episode_sweep_seconds_total counter',
        `toolenv_episode_sweep_seconds_total ${sweeps.seconds}`,
        '# HELP toolenv_episode_sweep_last_seconds Time the last expiry sweep took, seconds.',
        '# TYPE toolenv_episode_sweep_last_seconds gauge',
        `toolenv_episode_sweep_last_seconds ${sweeps.lastSeconds}`,
        '# HELP toolenv_episode_sweep_last_visited Live episodes the last expiry sweep visited.',
        '# TYPE toolenv_episode_sweep_last_visited gauge',
        `toolenv_episode_sweep_last_visited ${sweeps.lastVisited}`,
        '# HELP toolenv_episodes_expired_total Episodes the expiry sweeps dropped, idle past --episode-ttl.',
        '# TYPE toolenv_episodes_expired_total counter',
        `toolenv_episodes_expired_total ${sweeps.expired}`,
        '',
      ].join('\n');
    },
  };
}
