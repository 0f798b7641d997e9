/** The conformance report as text: the overall figures, then one line per API, then the failures to look into. */
import type { Proportion } from '../fidelity/interval.js';
import type { ConformanceReport, Tally } from './run.js';

const MEASURES = [
  ['valid_answers', 'answers valid against the served document'],
  ['valid_accepted', 'valid requests accepted'],
  ['invalid_refused', 'invalid requests refused'],
  ['statuses_declared', "statuses declared (operations declaring a 4xx of the answer's kind)"],
  ['statuses_declared_apart', 'statuses declared (operations declaring no 4xx of that kind, apart)'],
  ['statuses_declared_any_4xx', 'statuses declared (operations declaring any 4xx)'],
  ['media_documented', 'media types documented'],
  ['accept_honoured', 'Accept naming a documented type honoured'],
  ['unacceptable_answered', 'Accept naming none: 406 where declared, else a documented type'],
] as const;

export function conformanceLines(report: ConformanceReport, wallSeconds: number): string[] {
  const { overall } = report;
  const lines = [
    `conformance: ${report.sample} APIs, ${overall.operations} operations, ${overall.requests} requests ` +
      `(seed ${report.seed}, --security ${report.security}, ${wallSeconds} s)`,
    `server errors: ${overall.server_errors}`,
  ];
  for (const [key, label] of MEASURES) lines.push(`${label}: ${share(overall[key])}`);
  for (const [kind, refused] of Object.entries(overall.refused_by_case))
    lines.push(`  invalid (${kind}) refused: ${share(refused)}`);
  lines.push('', 'per API: valid answers | accepted | refused | declared | media');
  for (const api of report.apis) lines.push(`  ${api.api_id}: ${perApi(api)}`);
  if (report.failures.length > 0) {
    lines.push('', 'failures (first of each measure):');
    for (const f of report.failures)
      lines.push(
        `  ${f.measure} ${f.operation} (${f.case}) ${f.status}: ${f.detail.replace(/\s+/g, ' ').slice(0, 160)}`,
      );
  }
  return lines;
}

function share(p: Proportion): string {
  if (p.rate === null) return 'n/a (n 0)';
  return `${pct(p.rate)} [${pct(p.low!)}–${pct(p.high!)}] (${p.hits}/${p.n})`;
}

function perApi(t: Tally): string {
  const short = (p: Proportion) => (p.rate === null ? '–' : `${p.hits}/${p.n}`);
  return [t.valid_answers, t.valid_accepted, t.invalid_refused, t.statuses_declared, t.media_documented]
    .map(short)
    .join(' | ');
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
