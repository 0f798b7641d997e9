import { api } from './api.js';
import { badge, h, link, num, pct, section, table } from './dom.js';
import { linePlot } from './plot.js';
import { learnerView } from './learner.js';
import type { AgentResult, RunEpisode, RunListing, RunView, StepRow } from './types.js';

const TRAIN_METRICS = [
  'r_step',
  'r_phase',
  'r_traj',
  'r_ans',
  'success',
  'turns',
  'actions_per_turn',
  'loss',
  'grad_norm',
  'learning_rate',
  'frac_reward_zero_std',
  'tokens',
  'wall_s',
];
const AGENT_METRICS = [
  'success',
  'path',
  'coverage',
  'turns',
  'actions_per_turn',
  'failed_calls',
  'tokens',
  'r_step',
  'r_phase',
  'r_traj',
  'r_ans',
];
const RATIOS = new Set(['success', 'path', 'coverage']);
/** Shares, plotted on their whole range so that a flat 1 reads as 1. */
const SHARES = new Set(['success', 'frac_reward_zero_std']);
/** The rollouts' rewards, which GRPO over a fixed set of tasks also shows epoch by epoch. */
const REWARDS = new Set(['r_step', 'r_phase', 'r_traj', 'r_ans', 'success']);

/** The runs under `serve --runs`, with boxes to pick several for one comparison. */
export async function runsView(view: HTMLElement): Promise<void> {
  const { runs, detail } = await api<{ runs: RunListing[]; detail?: string }>('/v1/runs');
  view.append(h('h1', null, 'Runs'));
  if (runs.length === 0) {
    view.append(h('p', { class: 'empty' }, detail ?? 'No eval or train run directories under --runs yet.'));
    return;
  }
  const boxes = runs.map((r) =>
    h('input', { type: 'checkbox', name: 'run', value: r.name, 'aria-label': `compare ${r.name}` }),
  );
  const compare = h(
    'button',
    {
      type: 'button',
      class: 'primary',
      onclick: () => {
        const names = boxes.filter((b) => b.checked).map((b) => b.value);
        if (names.length > 0) location.hash = `#/compare?runs=${names.map(encodeURIComponent).join(',')}`;
      },
    },
    'Compare selected',
  );
  view.append(
    table(
      ['', 'run', 'kind', 'modified'],
      runs.map((r, i) => [
        boxes[i]!,
        link(`/run/${encodeURIComponent(r.name)}`, r.name),
        r.label,
        new Date(r.modified_at).toLocaleString(),
      ]),
    ),
    h('div', { class: 'actions' }, compare),
  );
}

/** One run: its curves (train), its agents compared (eval) or its learner's table and curves, and its episodes. */
export async function runView(view: HTMLElement, name: string): Promise<void> {
  const run = await api<RunView>(`/v1/runs/${encodeURIComponent(name)}`);
  view.append(h('h1', null, 'Run ', h('code', null, name)), h('p', null, link('/runs', '← all runs')));
  if (run.kind === 'train') {
    view.append(
      h(
        'p',
        null,
        badge(`${run.config.engine} ${run.config.stage}`, 'info'),
        ` model ${run.config.model} · ${run.metrics.length} of ${run.config.steps} steps `,
        run.finished ? badge('finished', 'ok') : badge('running', 'live'),
      ),
      // An epoch of one step is already plotted: its steps are its epochs.
      section(
        'Curves',
        curves(
          [{ label: name, rows: run.metrics }],
          run.config.epoch_steps !== null && run.config.epoch_steps > 1 ? run.config.epoch_steps : undefined,
        ),
      ),
    );
  } else if (run.kind === 'learner') {
    // Its episodes were rollouts deleted as the run went: it keeps none to list.
    view.append(...learnerView(run.report, run.metrics));
    return;
  } else {
    view.append(
      h(
        'p',
        { class: 'muted' },
        `${run.report.tasks.scored} tasks × ${run.report.runs} runs, ` +
          `policy ${run.report.policy}, ${run.report.created_at}`,
      ),
      section('Agents compared', agentTable([{ run: name, results: run.report.results }])),
    );
  }
  const { episodes } = await api<{ episodes: RunEpisode[] }>(`/v1/runs/${encodeURIComponent(name)}/episodes`);
  view.append(section(`Episodes (${episodes.length})`, episodeTable(name, episodes)));
}

/** Several runs side by side: train curves overlaid, eval agents in one table. */
export async function compareView(view: HTMLElement, params: URLSearchParams): Promise<void> {
  const names = (params.get('runs') ?? '').split(',').filter(Boolean);
  const runs = await Promise.all(names.map((n) => api<RunView>(`/v1/runs/${encodeURIComponent(n)}`)));
  view.append(h('h1', null, `Comparing ${names.length} runs`), h('p', null, link('/runs', '← all runs')));
  const train = runs.flatMap((r) => (r.kind === 'train' ? [{ label: r.name, rows: r.metrics }] : []));
  const evals = runs.flatMap((r) => (r.kind === 'eval' ? [{ run: r.name, results: r.report.results }] : []));
  if (train.length > 0) view.append(section('Training curves', curves(train)));
  if (evals.length > 0) view.append(section('Eval agents', agentTable(evals)));
}

/** Each whole epoch's mean of a metric, placed at its last step; null elsewhere (the plot bridges the gaps). */
function epochMeans(steps: number[], values: (number | null)[], epoch: number): (number | null)[] {
  return steps.map((_, i) => {
    if ((i + 1) % epoch !== 0) return null;
    const known = values.slice(i + 1 - epoch, i + 1).filter((v): v is number => v !== null);
    return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
  });
}

function curves(runs: { label: string; rows: StepRow[] }[], epoch?: number): HTMLElement {
  const steps = [...new Set(runs.flatMap((r) => r.rows.map((row) => row.step)))].sort((a, b) => a - b);
  const metrics = TRAIN_METRICS.filter((m) => runs.some((r) => r.rows.some((row) => typeof row[m] === 'number')));
  if (steps.length === 0) return h('p', { class: 'empty' }, 'No steps logged yet.');
  return h(
    'div',
    { class: 'plots' },
    metrics.map(
      (metric) =>
        linePlot(
          metric,
          steps,
          runs.flatMap((r) => {
            const byStep = new Map(r.rows.map((row) => [row.step, row[metric]]));
            const values = steps.map((s) => (typeof byStep.get(s) === 'number' ? (byStep.get(s) as number) : null));
            const perStep = { label: r.label, values };
            return epoch !== undefined && REWARDS.has(metric)
              ? [
                  perStep,
                  { label: `epoch mean (${epoch} steps, every task once)`, values: epochMeans(steps, values, epoch) },
                ]
              : [perStep];
          }),
          'step',
          SHARES.has(metric) ? [0, 1] : undefined,
        ).element,
    ),
  );
}

function agentTable(runs: { run: string; results: AgentResult[] }[]): HTMLElement {
  const rows = runs.flatMap(({ run, results }) => results.map((r) => ({ run, summary: r.summary })));
  const best = new Map(
    AGENT_METRICS.map((m) => [m, Math.max(...rows.map((r) => r.summary.stats[m]?.mean ?? -Infinity))]),
  );
  return table(
    ['run', 'agent', ...AGENT_METRICS.map((m) => m.replaceAll('_', ' '))],
    rows.map(({ run, summary }) => [
      run,
      h('strong', null, summary.agent),
      ...AGENT_METRICS.map((m) => {
        const stat = summary.stats[m];
        const value = stat?.mean ?? null;
        const text = RATIOS.has(m) ? pct(value) : num(value, 2);
        const bar =
          RATIOS.has(m) || m.startsWith('r_')
            ? h('span', { class: 'bar', style: `width: ${Math.max(0, Math.min(1, Math.abs(value ?? 0))) * 100}%` })
            : null;
        return h(
          'span',
          { class: `metric${value !== null && value === best.get(m) && rows.length > 1 ? ' best' : ''}` },
          bar,
          text,
          stat?.std !== null && stat?.std !== undefined ? h('span', { class: 'muted' }, ` ±${num(stat.std, 2)}`) : null,
        );
      }),
    ]),
    'agents',
  );
}

function episodeTable(run: string, episodes: RunEpisode[]): HTMLElement {
  if (episodes.length === 0) return h('p', { class: 'empty' }, 'This run kept no episodes.');
  return table(
    ['episode', 'task', 'agent / step', 'success', 'turns', 'R_step', 'R_phase', 'R_traj', 'R_ans'],
    episodes
      .slice(0, 500)
      .map((e) => [
        link(
          `/run/${encodeURIComponent(run)}/episode/${encodeURIComponent(e.episode)}`,
          e.episode.slice(0, 13),
          'episode-link',
        ),
        e.task ?? '',
        e.agent ? `${e.agent} #${e.run}` : `step ${e.step}`,
        e.success === null ? badge('unscored', 'soft') : badge(e.success ? 'yes' : 'no', e.success ? 'ok' : 'bad'),
        String(e.turns),
        num(e.r_step),
        num(e.r_phase),
        num(e.r_traj),
        num(e.r_ans),
      ]),
  );
}
