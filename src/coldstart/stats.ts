import type { ColdStartRun } from './types.js';

/** Table 4's statistics of a set of accepted trajectories: per trajectory, turns and each action tag. */
export interface ColdStartStats {
  trajectories: number;
  turns: number;
  plans: number;
  searches: number;
  calls: number;
}

const count = (text: string, tag: string) => text.split(`<${tag}>`).length - 1;

export function coldStartStats(runs: readonly Pick<ColdStartRun, 'messages'>[]): ColdStartStats {
  const per = (fn: (texts: string[]) => number) =>
    runs.length === 0
      ? 0
      : Math.round(
          (runs.reduce(
            (sum, r) => sum + fn(r.messages.filter((m) => m.role === 'assistant').map((m) => m.content)),
            0,
          ) /
            runs.length) *
            100,
        ) / 100;
  const tags = (tag: string) => (texts: string[]) => texts.reduce((sum, t) => sum + count(t, tag), 0);
  return {
    trajectories: runs.length,
    turns: per((t) => t.length),
    plans: per(tags('plan')),
    searches: per(tags('search_tool')),
    calls: per(tags('tool_call')),
  };
}

export function statsTable(stats: ColdStartStats): string[] {
  return [
    '| statistic | value |',
    '| --- | ---: |',
    `| # trajectories | ${stats.trajectories} |`,
    `| avg. # turns per trajectory | ${stats.turns} |`,
    `| avg. # <plan> per trajectory | ${stats.plans} |`,
    `| avg. # <search_tool> per trajectory | ${stats.searches} |`,
    `| avg. # <tool_call> per trajectory | ${stats.calls} |`,
  ];
}
