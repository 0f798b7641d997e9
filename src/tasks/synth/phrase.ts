import type { Tool } from '../../library/tool.js';
import type { Scalar } from './arguments.js';
import type { AnswerField } from './answer.js';
import type { TaskKind } from './candidates.js';

/** One call as the query states it: the tool, the values given, the upstream value it takes. */
export interface StatedCall {
  tool: Tool;
  given: Record<string, Scalar>;
  link?: { from: number; param: string; key: string };
}

/**
 * The task's query, by template from the tools' own summaries: what to do, in order, with every value it needs,
 * which result feeds which parameter, and which fields the answer must report (none for a write task: its calls'
 * effect is the goal). It names no tool id: the agent has to find the tools by searching.
 */
export function templateQuery(
  kind: TaskKind,
  calls: readonly StatedCall[],
  answers: readonly { call: number; field: AnswerField }[],
): string {
  const steps = calls.map((call) => {
    const fed = call.link
      ? `, using the ${call.link.key} from ` +
        `${calls.length > 2 ? `step ${call.link.from + 1}` : 'that result'} as ${call.link.param}`
      : '';
    return `${action(call.tool)}${fed}${given(call.given)}`;
  });
  const from = (call: number) =>
    calls.length === 1 ? 'in the result' : kind === 'parallel' ? `from (${call + 1})` : `from step ${call + 1}`;
  const report = answers.map(({ call, field }) => `the "${field.key}" ${from(call)}`);
  const tell = report.length === 0 ? '' : ` Tell me ${list(report)}.`;
  if (kind === 'single') return `${capital(steps[0]!)}.${tell}`;
  if (kind === 'parallel')
    return `Do these independently: ${steps.map((s, i) => `(${i + 1}) ${s}`).join('; ')}.${tell}`;
  const numbered = steps.map((s, i) => `${i + 1}. ${capital(s)}.`).join(' ');
  return `${numbered}${tell}`;
}

/**
 * What a tool does, as an instruction: its summary when it reads like one, else the first sentence of its description.
 */
export function action(tool: Tool): string {
  const name = tool.name.trim();
  if (
    /^[A-Za-z][A-Za-z'-]*\s/.test(name) &&
    !/^(GET|PUT|POST|PATCH|DELETE|HEAD|OPTIONS)\s/i.test(name) &&
    !name.includes(tool.id)
  )
    return lower(name.replace(/[.\s]+$/, ''));
  const sentence =
    tool.description
      .split(/(?<=[.!?])\s/)[0]
      ?.trim()
      .replace(/[.\s]+$/, '') ?? '';
  if (sentence.length >= 8 && sentence.length <= 120 && !sentence.includes(tool.id))
    return `use the API that does this: ${lower(sentence)}`;
  const operation =
    tool.origin.format === 'openapi'
      ? `${tool.origin.method.toUpperCase()} ${tool.origin.path} operation of ${tool.origin.api_id}`
      : 'matching operation';
  return `call the ${operation}`;
}

function given(values: Record<string, Scalar>): string {
  const entries = Object.entries(values);
  if (entries.length === 0) return '';
  return ` with ${list(entries.map(([name, value]) => `${name} ${JSON.stringify(value)}`))}`;
}

function list(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Lower-cases the first letter, unless the first word is an acronym (`API`, `JSON`). */
function lower(text: string): string {
  return /^[A-Z]{2}/.test(text) ? text : text.charAt(0).toLowerCase() + text.slice(1);
}
