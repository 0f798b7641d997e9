import type { LatencySummary } from './latency.js';
import type { FidelityReport, ModelSummary, SameCallSide } from './run.js';
import { ERROR_SOURCES, SUCCESS_SOURCES, type ErrorSummary, type SuccessSummary } from './tally.js';

const percent = (rate: number | null) => (rate === null ? '–' : `${(rate * 100).toFixed(1)}%`);
const cell = (part: number, whole: number, rate: number | null) =>
  whole === 0 ? '–' : `${percent(rate)} (${part}/${whole})`;

/** The report as Markdown tables: success measures by source, each plausibility check, error conformance, examples. */
export function reportLines(report: FidelityReport, wallSeconds: number): string[] {
  const t = report.tools;
  const lines = [
    `fidelity: ${t.sampled} of ${t.library} tools (seed ${report.seed}, responders ` +
      `${report.responders.join(',')}), ${t.valid_requests} valid requests, ${t.no_valid_request} without one, ` +
      `${t.unanswered} not answered ` +
      `2xx${t.recorded === undefined ? '' : `; ${t.recorded} recorded real answers`}; ${wallSeconds.toFixed(1)} s`,
    '',
  ];
  const columns: [string, SuccessSummary][] = [
    ['overall', report.overall],
    ...SUCCESS_SOURCES.map((s) => [s, report.by_source[s]] as [string, SuccessSummary]),
  ];
  lines.push(
    `| measure | ${columns.map(([name]) => name).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
  );
  const row = (label: string, value: (s: SuccessSummary) => string) =>
    lines.push(`| ${label} | ${columns.map(([, s]) => value(s)).join(' | ')} |`);
  row('answers', (s) => String(s.answers));
  row('schema validity', (s) => cell(s.schema_validity.valid, s.schema_validity.checked, s.schema_validity.rate));
  row('request consistency', (s) =>
    cell(s.request_consistency.consistent, s.request_consistency.checks, s.request_consistency.rate),
  );
  row('answers with a checkable value', (s) => String(s.request_consistency.answers_checkable));
  row('plausibility checks passed', (s) => cell(s.plausibility.passed, s.plausibility.applicable, s.plausibility.rate));

  row('latency p50 / p95 ms (a fallback: with the model’s try)', (s) => latencyCell(latencyOf(report, s)));

  if (report.model) lines.push('', modelLine(report.model));
  if (report.same_calls && report.same_calls.calls > 0) {
    const same = report.same_calls;
    const sides: [string, SameCallSide][] = [
      ['model', same.model],
      [same.baseline, same.other],
    ];
    lines.push(
      '',
      `the same ${same.calls} calls (those the model answered), also answered by ${same.baseline} alone:`,
      '',
    );
    lines.push(
      `| measure | ${sides.map(([name]) => name).join(' | ')} |`,
      `|---|${sides.map(() => '---:').join('|')}|`,
    );
    const sideRow = (label: string, value: (s: SameCallSide) => string) =>
      lines.push(`| ${label} | ${sides.map(([, s]) => value(s)).join(' | ')} |`);
    sideRow('schema validity', ({ scores: s }) =>
      cell(s.schema_validity.valid, s.schema_validity.checked, s.schema_validity.rate),
    );
    sideRow('request consistency', ({ scores: s }) =>
      cell(s.request_consistency.consistent, s.request_consistency.checks, s.request_consistency.rate),
    );
    sideRow('plausibility checks passed', ({ scores: s }) =>
      cell(s.plausibility.passed, s.plausibility.applicable, s.plausibility.rate),
    );
    sideRow('latency p50 / p95 (ms)', (s) => latencyCell(s.latency));
  }

  lines.push('', '| consistency by match | checks | consistent | rate |', '|---|---:|---:|---:|');
  for (const [name, c] of Object.entries(report.consistency_rules))
    lines.push(`| ${name} | ${c.checks} | ${c.consistent} | ${percent(c.rate)} |`);

  lines.push('', '| plausibility check | applicable | passed | rate |', '|---|---:|---:|---:|');
  for (const [name, c] of Object.entries(report.plausibility_checks))
    lines.push(`| ${name} | ${c.applicable} | ${c.passed} | ${percent(c.rate)} |`);

  const e = report.errors;
  lines.push(
    '',
    `error shapes: ${e.operations} operations with a document, ${e.declaring_4xx} declare a 4xx, ` +
      `${e.declaring_error_schema} an error body schema`,
    '',
  );
  const errorColumns = ['all', ...ERROR_SOURCES] as const;
  lines.push(`| error | ${errorColumns.join(' | ')} |`, `|---|${errorColumns.map(() => '---:').join('|')}|`);
  const errorCell = (s: ErrorSummary) =>
    `${cell(s.conforming, s.with_schema, s.rate)}${s.calls > 0 ? ` of ${s.calls}` : ''}`;
  const fieldsCell = (s: ErrorSummary) => cell(s.fields_present, s.schema_fields, s.fields_rate);
  const reasonCell = (s: ErrorSummary) => cell(s.reason_carried, s.calls, s.reason_rate);
  const kinds = [
    ['/v1 forced 4xx (controls.code)', e.v1.forced],
    ['/v1 Rule-layer refusal', e.v1.refusal],
    ['REST forced 4xx (Prefer: code)', e.rest.forced],
    ['REST Rule-layer refusal', e.rest.refusal],
  ] as const;
  for (const [label, kind] of kinds) {
    const valid = [errorCell(kind), ...ERROR_SOURCES.map((s) => errorCell(kind.by_source[s]))].join(' | ');
    lines.push(`| ${label}: valid | ${valid} |`);
    const fields = [fieldsCell(kind), ...ERROR_SOURCES.map((s) => fieldsCell(kind.by_source[s]))].join(' | ');
    lines.push(`| ${label}: declared fields present | ${fields} |`);
    const reason = [reasonCell(kind), ...ERROR_SOURCES.map((s) => reasonCell(kind.by_source[s]))].join(' | ');
    lines.push(`| ${label}: reason carried | ${reason} |`);
  }

  if (report.inconsistent.length > 0) {
    lines.push('', 'inconsistent (tool, rule, request → response field: expected, got):');
    for (const i of report.inconsistent)
      lines.push(`  ${i.tool}  ${i.rule}  ${i.request} → ${i.field}: ${JSON.stringify(i.expected)}, ${clip(i.got)}`);
  }
  if (report.implausible.length > 0) {
    lines.push('', 'implausible (tool, check, field: value):');
    for (const i of report.implausible) lines.push(`  ${i.tool}  ${i.check}  ${i.field}: ${clip(i.value)}`);
  }
  return lines;
}

/** The latency of a column of the main table: overall has none of its own (its sources differ too much). */
function latencyOf(report: FidelityReport, summary: SuccessSummary): LatencySummary | undefined {
  const source = SUCCESS_SOURCES.find((s) => report.by_source[s] === summary);
  return source === undefined ? undefined : report.latency[source];
}

const latencyCell = (l: LatencySummary | undefined) =>
  l === undefined || l.calls === 0 ? '–' : `${formatMs(l.p50_ms!)} / ${formatMs(l.p95_ms!)}`;
const formatMs = (ms: number) => (ms >= 100 ? String(Math.round(ms)) : ms.toFixed(1));

function modelLine(m: ModelSummary): string {
  const speed = m.tokens_per_s === null ? '' : `, ${m.tokens_per_s} tokens/s`;
  const error = m.last_error === undefined ? '' : `; last error: ${m.last_error}`;
  return (
    `model: ${m.calls} calls, ${m.answered} answered, ${m.fallbacks} left to the next responder (${m.invalid} ` +
    `invalid bodies, ${m.retries} retries, ${m.timeouts} timeouts, ${m.errors} errors); ${m.prompt_tokens} ` +
    `prompt and ${m.completion_tokens} completion tokens in ${m.generation_s} s of generation${speed}${error}`
  );
}

function clip(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
