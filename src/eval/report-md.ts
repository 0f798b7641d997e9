import { barChart } from '../terminal/chart.js';
import type { Stat } from './aggregate.js';
import type { EvalReport } from './report.js';
import type { TaskScore } from './score.js';

/**
 * report.md: the setup, the metrics table (mean ± sample SD over runs), charts, finish reasons, per-task rows, unmapped
 * tasks.
 */
export function renderMarkdown(report: EvalReport): string {
  const lines: string[] = ['# ToolEnv eval', ''];
  lines.push(
    `- tasks: ${report.task_file} (${report.format}), ${report.tasks.scored} run of ` +
      `${report.tasks.total}` +
      `${report.tasks.unscored.length > 0 ? `, ${report.tasks.unscored.length} of them unscored` : ''}`,
    `- server: ${report.server}`,
    `- agents: ${report.agents.join(', ')}; policy: ${report.policy}; judge: ${report.judge ?? 'none'}`,
    `- runs: ${report.runs}; concurrency: ${report.concurrency}; max turns: ${report.max_turns ?? 'agent default'}; ` +
      `k: ${report.k ?? 'agent default'}; seed: ${report.seed ?? 'fresh per episode'}; error rate: ` +
      `${report.error_rate ?? 'server default'}`,
    `- references: ${report.mapping.references} (${report.mapping.by_id} by id, ${report.mapping.exact} exact names, ` +
      `${report.mapping.normalized} normalized names, ${report.mapping.ambiguous} ambiguous, ` +
      `${report.mapping.unmapped} unmapped)`,
    `- ${report.created_at}`,
    '',
    '## Metrics',
    '',
  );
  // The mapped-only variants differ from path and coverage only when some reference is missing from the library.
  const mappedColumns = report.tasks.partially_mapped.length > 0;
  lines.push(
    `| Agent | Success | Path |${mappedColumns ? ' Path (mapped) |' : ''} Coverage ` +
      `|${mappedColumns ? ' Coverage (mapped) |' : ''} Hit rate | Turns | Actions/turn | Actions | Tokens | Wall (s) ` +
      '| Injected errors |',
    `|---|---:|---:|${mappedColumns ? '---:|' : ''}---:|${mappedColumns ? '---:|' : ''}` +
      '---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const { summary } of report.results) {
    const s = summary.stats;
    const path = mappedColumns ? `${pct(s.path)} | ${pct(s.path_mapped)}` : pct(s.path);
    const coverage = mappedColumns ? `${pct(s.coverage)} | ${pct(s.coverage_mapped)}` : pct(s.coverage);
    lines.push(
      `| ${summary.agent} | ${pct(s.success)} | ${path} | ${coverage} | ${pct(s.hit_rate)} | ${num(s.turns)} | ` +
        `${num(s.actions_per_turn)} | ${num(s.actions)} | ${num(s.tokens, 0)} | ${num(scaled(s.wall_ms, 1 / 1000))} ` +
        `| ${num(s.injected_errors)} |`,
    );
  }
  lines.push(
    '',
    'Success, path, coverage and hit rate in %; turns, actions, tokens, wall time and injected errors per task. ' +
      (report.runs > 1 ? `Each cell: mean ± sample SD over ${report.runs} runs.` : 'One run.'),
    '',
  );

  const strata = [...new Set(report.results.flatMap(({ summary }) => Object.keys(summary.by_tools)))].sort(
    (a, b) => Number(a) - Number(b),
  );
  if (strata.length > 1) {
    lines.push(
      '## By tools per task',
      '',
      `| Tools | ${report.results.map(({ summary }) => `${summary.agent} success | path | turns`).join(' | ')} |`,
      `|---:|${report.results.map(() => '---:|---:|---:').join('|')}|`,
    );
    for (const n of strata) {
      const cells = report.results.map(({ summary }) => {
        const row = summary.by_tools[n];
        return row ? `${pctValue(row.success)} | ${pctValue(row.path)} | ${numValue(row.turns)}` : '– | – | –';
      });
      lines.push(`| ${n} | ${cells.join(' | ')} |`);
    }
    lines.push(
      '',
      'Task-runs grouped by the number of reference tools a task ' +
        'names (synthesized tasks: their stratum), over all runs.',
      '',
    );
  }

  lines.push(
    '## Rewards',
    '',
    '| Agent | Scored | R_step | R_phase | R_traj | R_ans |',
    '|---|---:|---:|---:|---:|---:|',
  );
  for (const { summary } of report.results) {
    const s = summary.stats;
    const scored = `${summary.scored.r_traj} of ${summary.task_runs}`;
    lines.push(
      `| ${summary.agent} | ${scored} | ${num(s.r_step)} | ${num(s.r_phase)} | ${num(s.r_traj)} | ${num(s.r_ans)} |`,
    );
  }
  lines.push(
    '',
    'Means per task of the episode rewards the server scored (Appendix C: Eqs. 4–6, Table 9), over the task-runs ' +
      'counted as scored: a flagged R_ans (no expected answer and no judge, or a judge that failed) leaves the run ' +
      'out of R_phase, R_traj and R_ans.',
    '',
  );

  if (report.results.some(({ summary }) => summary.scored.r_state > 0)) {
    lines.push(
      '## World state',
      '',
      '| Agent | Write task-runs | r_state | state_success | success by state |',
      '|---|---:|---:|---:|---:|',
    );
    for (const { summary } of report.results) {
      const s = summary.stats;
      lines.push(
        `| ${summary.agent} | ${summary.scored.r_state} of ${summary.task_runs} | ${num(s.r_state)} | ` +
          `${num(s.state_success)} | ${summary.success_by.state} |`,
      );
    }
    lines.push(
      '',
      "Tasks with `expect`: r_state is the share of a task's assertions that held on the episode's world at the " +
        'end, state_success the share of task-runs where all did (the server read both off the world).',
      '',
    );
  }

  const chart = (title: string, value: (stats: EvalReport['results'][number]['summary']['stats']) => number | null) => {
    const rows = report.results.map(({ summary }) => ({
      label: summary.agent,
      value: Math.round((value(summary.stats) ?? 0) * 100) / 100,
    }));
    lines.push(`${title}:`, '', '```', ...barChart(rows, 40), '```', '');
  };
  lines.push('## Charts', '');
  chart('Success (%)', (s) => (s.success.mean === null ? null : s.success.mean * 100));
  chart('Turns per task', (s) => s.turns.mean);
  chart('Actions per turn', (s) => s.actions_per_turn.mean);

  lines.push(
    '## Finish reasons',
    '',
    '| Agent | answer | turn_cap | episode_done | error | success by answer / judge / fallback / unscored |',
    '|---|---:|---:|---:|---:|---|',
  );
  for (const { summary } of report.results) {
    const f = summary.finish;
    const by = summary.success_by;
    lines.push(
      `| ${summary.agent} | ${f.answer} | ${f.turn_cap} | ${f.episode_done} | ${f.error} | ${by.answer} / ` +
        `${by.judge} / ${by.fallback} / ${by.unscored} |`,
    );
  }
  lines.push('');

  lines.push(
    '## Tasks',
    '',
    '| Task | Agent | Solved | Path | Coverage | Turns | Actions | Finish |',
    '|---|---|---:|---:|---:|---:|---:|---|',
  );
  for (const { summary, scores } of report.results) {
    for (const [taskId, runs] of groupByTask(scores)) {
      const scored = runs.filter((r) => r.success !== null);
      const solved = scored.length === 0 ? 'unscored' : `${scored.filter((r) => r.success).length}/${scored.length}`;
      const finishes = [...new Set(runs.map((r) => r.finish))].join(', ');
      lines.push(
        `| ${cell(taskId)} | ${summary.agent} | ${solved} | ${pctValue(mean(runs.map((r) => r.path)))} | ` +
          `${pctValue(mean(runs.map((r) => r.coverage)))} | ${numValue(mean(runs.map((r) => r.turns)))} | ` +
          `${numValue(mean(runs.map((r) => r.actions)))} | ${finishes} |`,
      );
    }
  }
  lines.push('');

  const errors = report.results.flatMap(({ scores }) =>
    scores.filter((s) => s.error !== undefined || s.trajectory_error !== undefined),
  );
  if (errors.length > 0) {
    lines.push('## Errors', '');
    for (const s of errors.slice(0, 50)) {
      const what = [
        s.error,
        s.trajectory_error === undefined
          ? undefined
          : `no trajectory (scored from the calls the agent saw): ${s.trajectory_error}`,
      ].filter((e) => e !== undefined);
      lines.push(`- ${cell(s.task_id)} (${s.agent}, run ${s.run}): ${cell(what.join('; '))}`);
    }
    if (errors.length > 50) lines.push(`- … and ${errors.length - 50} more in report.json`);
    lines.push('');
  }
  if (report.tasks.unmappable.length > 0 || report.tasks.partially_mapped.length > 0) {
    lines.push('## Unmapped references', '');
    for (const t of report.tasks.unmappable)
      lines.push(
        `- not run: ${cell(t.id)} (line ${t.line}): none of ${t.references.map(cell).join('; ')} is in the library`,
      );
    for (const t of report.tasks.partially_mapped)
      lines.push(
        `- ${cell(t.id)} (line ${t.line}): ${t.unmapped.map(cell).join('; ')} not in the library; counted as misses ` +
          'in path and coverage, left out of their mapped variants',
      );
    lines.push('');
  }
  if (report.tasks.unscored.length > 0) {
    lines.push(
      '## Unscored tasks',
      '',
      'No expected answer, no reference tool and no judge: ' +
        'nothing decides their success, so the success means leave them out.',
      '',
    );
    for (const t of report.tasks.unscored) lines.push(`- ${cell(t.id)} (line ${t.line})`);
    lines.push('');
  }
  lines.push(
    '## Definitions',
    '',
    '- **Success**: the answer contains every expected string (tasks with `answer`); else the judge’s verdict (with ' +
      '`--judge`); else the agent answered and invoked every reference tool successfully (one missing from the ' +
      'library fails it); a task with none of these is unscored.',
    '- **Path**: reference tools invoked with a 2xx answer at least once, over the task’s reference tools, those ' +
      'missing from the library included (ToolBench Tool-Path); **path (mapped)** over the ones the library has.',
    '- **Coverage**: reference tools surfaced by search, over the task’s ' +
      'reference tools; **coverage (mapped)** over the ones the library has.',
    '- **Hit rate**: calls that invoked a reference tool, over all calls.',
    '- **Turns**: model turns; **actions**: search_tool and tool_call actions; ' +
      '**actions/turn**: a run’s actions over its turns.',
    '',
  );
  return lines.join('\n');
}

function groupByTask(scores: readonly TaskScore[]): Map<string, TaskScore[]> {
  const groups = new Map<string, TaskScore[]>();
  for (const score of scores) {
    const list = groups.get(score.task_id) ?? [];
    list.push(score);
    groups.set(score.task_id, list);
  }
  return groups;
}

function mean(values: readonly (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length === 0 ? null : present.reduce((a, b) => a + b, 0) / present.length;
}

function scaled(stat: Stat, factor: number): Stat {
  return { mean: stat.mean === null ? null : stat.mean * factor, std: stat.std === null ? null : stat.std * factor };
}

function pct(stat: Stat): string {
  if (stat.mean === null) return '–';
  return stat.std === null ? pctValue(stat.mean) : `${pctValue(stat.mean)} ± ${(stat.std * 100).toFixed(1)}`;
}

function num(stat: Stat, digits = 2): string {
  if (stat.mean === null) return '–';
  return stat.std === null
    ? numValue(stat.mean, digits)
    : `${numValue(stat.mean, digits)} ± ${stat.std.toFixed(digits)}`;
}

function pctValue(value: number | null): string {
  return value === null ? '–' : (value * 100).toFixed(1);
}

function numValue(value: number | null, digits = 2): string {
  return value === null ? '–' : value.toFixed(digits);
}

/** Text safe inside a table cell: pipes escaped, newlines flattened. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');
}
