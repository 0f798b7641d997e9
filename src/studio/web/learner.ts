import { badge, h, num, pct, section, table } from './dom.js';
import { linePlot } from './plot.js';
import type { LearnerReport, PolicySummary, StepRow } from './types.js';

const CONTROL = 'control (shuffled rewards)';

/** The curves of a learner run: each a metric of the trained learner beside its control and the fixed baselines. */
const CURVES: { title: string; share: boolean; series: [string, string][] }[] = [
  { title: 'held-out success (greedy, curve tasks)', share: true, series: heldOut('success') },
  { title: 'held-out R_traj (greedy, curve tasks)', share: false, series: heldOut('r_traj') },
  { title: 'training rollouts success (sampled)', share: true, series: rollouts('success') },
  { title: 'training rollouts R_traj (sampled)', share: false, series: rollouts('r_traj') },
];

function heldOut(metric: string): [string, string][] {
  return [
    ['trained', `heldout_${metric}`],
    [CONTROL, `control_heldout_${metric}`],
    ['random', `random_${metric}`],
    ['heuristic', `heuristic_${metric}`],
  ];
}

function rollouts(metric: string): [string, string][] {
  return [
    ['trained', `rollout_${metric}`],
    [CONTROL, `control_rollout_${metric}`],
  ];
}

type Check = { difference: number; threshold: number; passed: boolean };

/** `bench --learning --learner linear`'s run: the held-out table over seeds, the checks fixed before it, the curves. */
export function learnerView(report: LearnerReport, metrics: StepRow[]): HTMLElement[] {
  const s = report.settings;
  const steps = metrics.map((row) => row.step);
  const value = (row: StepRow, key: string) => (typeof row[key] === 'number' ? (row[key] as number) : null);
  const check = (label: string, c: Check, ok: string, bad: string) => {
    const verdict = c.passed ? badge(ok, 'ok') : badge(bad, 'bad');
    return h('li', null, `${label}: ${pct(c.difference)} against ${pct(c.threshold)} `, verdict);
  };
  const row = ([name, p]: [string, PolicySummary]) => [
    h('strong', null, name),
    pct(p.success),
    pct(p.spread.success),
    `${pct(p.pooled.low)}–${pct(p.pooled.high)} (${p.pooled.successes}/${p.pooled.n})`,
    num(p.r_traj),
    num(p.spread.r_traj),
  ];
  const plot = (curve: (typeof CURVES)[number]) => {
    const series = curve.series.map(([label, key]) => ({ label, values: metrics.map((r) => value(r, key)) }));
    return linePlot(curve.title, steps, series, 'step', curve.share ? [0, 1] : undefined).element;
  };
  const about =
    ` ${report.policy}. ${report.seeds.length} seeds × ${report.heldout_tasks} held-out tasks on APIs no training ` +
    `task uses (${report.heldout_apis_seen_in_training} seen in training); ${s.steps} steps × ${s.batch} groups × ` +
    `${s.group} rollouts per seed, lr ${s.lr}; ${num(report.episodes)} episodes in ${num(report.wall_s, 1)} s ` +
    `(${num(report.episodes_per_s, 1)}/s, server CPU ${pct(report.server_share)} of the loop).`;
  return [
    h('p', null, badge(`${report.learner} learner`, 'info'), about),
    section(
      'Held-out, all tasks, greedy',
      table(
        ['policy', 'success', '± sd over seeds', '95% interval, pooled', 'R_traj', '± sd'],
        Object.entries(report.summary).map(row),
      ),
      h(
        'ul',
        null,
        check('trained − untrained, against 3 sd', report.checks.learned, 'learned', 'not shown'),
        check('control − untrained, against 1 sd', report.checks.control_flat, 'flat', 'not flat'),
      ),
    ),
    section(
      `Curves (means over seeds; held-out points on ${s.curve_tasks} of each seed's held-out tasks)`,
      h('div', { class: 'plots' }, CURVES.map(plot)),
    ),
  ];
}
