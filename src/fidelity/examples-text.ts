import type { ExamplesReport } from './examples-run.js';
import type { Proportion } from './interval.js';

const pct = (x: number | null) => (x === null ? '–' : `${(x * 100).toFixed(1)}%`);
/** `64.2% [63.1–65.3] (n 4210)`: the share, its 95% Wilson interval and the count it is of. */
export const proportionCell = (p: Proportion) =>
  p.n === 0 ? '– (n 0)' : `${pct(p.rate)} [${pct(p.low)}–${pct(p.high)}] (n ${p.n})`;

/** `fidelity --examples` as text: the sample, the headline shares, the classes, the worst operations. */
export function examplesReportLines(report: ExamplesReport, wallSeconds: number): string[] {
  const s = report.sample;
  const lines = [
    `fidelity --examples: ${s.operations} operations of ${s.apis} APIs on the ${report.side} side ` +
      `(${heldOutText(report)}; ${s.candidates} candidates), seed ` +
      `${report.seed}, responders ${report.responders.join(',')}; ${s.leaves} leaves, ${s.keys} keys; ` +
      `${s.documented_requests} requests with ${s.documented_values} documented values; ${s.no_valid_request} ` +
      `without a valid request, ${s.unanswered} not answered 2xx; ${wallSeconds.toFixed(1)} s`,
    '',
    '| measure | share [95% Wilson] (n) |',
    '|---|---:|',
    `| value class agreement (leaves present) | ${proportionCell(report.value_class)} |`,
    `| value class agreement (all leaves) | ${proportionCell(report.value_class_all_leaves)} |`,
    `| key coverage | ${proportionCell(report.key_coverage)} |`,
    `| vendor id prefix | ${proportionCell(report.id_prefix)} |`,
    `| number magnitude (≤ 10×) | ${proportionCell(report.magnitude)} |`,
    `| integer vs float | ${proportionCell(report.integer_float)} |`,
    `| per operation: value class / key coverage | ${pct(report.per_operation.value_class)} / ` +
      `${pct(report.per_operation.key_coverage)} |`,
    '',
    'within reach of what the held-out rule leaves (the schema, the request, the document without its examples, ' +
      'the prior):',
    '',
    '| reach | share [95% Wilson] (n) |',
    '|---|---:|',
    `| keys the response schema declares at their place | ${proportionCell(report.reach.keys_declared)} |`,
    `| vendor id prefixes the request, document or prior holds | ${proportionCell(report.reach.id_prefix_findable)} |`,
    `| leaves present the prior has the field of | ${proportionCell(report.reach.prior_mode.covered)} |`,
    `| of those, the prior's usual class is the example's | ${proportionCell(report.reach.prior_mode.agreement)} |`,
    `| of those, the answer's class is the example's | ${proportionCell(report.reach.prior_mode.answers)} |`,
    '',
    '| example class | leaves | present | agreement | answered as |',
    '|---|---:|---:|---:|---|',
  ];
  for (const [name, c] of Object.entries(report.by_class)) {
    if (c.leaves === 0) continue;
    const as = c.answered_as.map((a) => `${a.class} ${a.leaves}`).join(', ');
    lines.push(`| ${name} | ${c.leaves} | ${pct(c.present.rate)} | ${proportionCell(c.agreement)} | ${as} |`);
  }
  if (report.worst.length > 0) lines.push('', 'worst operations (key coverage, class agreement; first mismatches):');
  for (const w of report.worst) {
    lines.push(`  ${w.tool}  keys ${pct(w.key_coverage)} of ${w.keys}, class ${pct(w.class_agreement)} of ${w.leaves}`);
    for (const m of w.mismatches)
      lines.push(`    ${m.path}: ${clip(m.expected)} (${m.expected_class}) → ${clip(m.got)} (${m.got_class})`);
  }
  return lines;
}

const heldOutText = ({ split }: ExamplesReport) =>
  split.by === 'apis'
    ? `${split.held_out} of ${split.apis} APIs held out`
    : `${split.held_out} operations held out, the other examples of their APIs read`;

function clip(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
