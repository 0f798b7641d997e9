import type { SearchObservation, StepResult, ToolCallObservation } from '../wire/episodes.js';
import { untouchedBodyText } from '../simulator/stored-result.js';
import { compactJson } from './compact.js';
import type { Dispatch } from './dispatch.js';
import type { RunState } from './state.js';
import type { Tool } from '../library/tool.js';
import { summarizeTool, type ToolSummary } from './tool-view.js';

/**
 * The observation the model reads after each turn (the next user message): search results as `<tools>` with each
 * tool's parameters and response fields, call results as `<tool_response>`, then what was not run and where the
 * plan stands. Rejections come back as `<error>`. Everything JSON is compact and bounded.
 */

/**
 * Summaries of the records the library holds (its LRU hands out the same record while it is cached): a GRPO
 * group's rollouts surface the same tools, and a summary walks the tool's schemas.
 */
const summaries = new WeakMap<Tool, ToolSummary>();

function summaryOf(tool: Tool): ToolSummary {
  let summary = summaries.get(tool);
  if (!summary) summaries.set(tool, (summary = summarizeTool(tool)));
  return summary;
}

/** A search's results as the model reads them: a summary of each tool new to the run, a pointer back for the others. */
export function searchResults(
  observation: SearchObservation,
  tools: ReadonlyMap<string, Tool>,
  fresh: ReadonlySet<string>,
): Record<string, unknown>[] {
  return observation.results.map((hit) => {
    const tool = tools.get(hit.id);
    if (!fresh.has(hit.id)) return { id: hit.id, name: hit.name, note: 'described earlier' };
    return (tool ? summaryOf(tool) : { id: hit.id, name: hit.name, description: hit.description }) as unknown as Record<
      string,
      unknown
    >;
  });
}

/** One search of `<tools>`: its id, query and result summaries. */
export interface SearchLine {
  search: string | undefined;
  query: string;
  results: Record<string, unknown>[];
}

/** Characters of one call's rendered result. */
export const MAX_RESULT_CHARS = 1500;

/**
 * The next observation. With `budget` (the episode's `max_observation_chars`) it is at most that many characters:
 * the status lines stay whole, each search or call line gets an equal share of the rest and is shrunk structurally
 * to it (search results keep their tool ids whole, see fitSearch), and a closing line says how much was cut, so the
 * policy reads what its trainer's token budget can hold and knows it was cut.
 */
export function renderObservation(
  state: RunState,
  dispatch: Dispatch,
  result: StepResult | undefined,
  fresh: ReadonlySet<string>,
  budget?: number,
): string {
  const searches: SearchLine[] = [];
  const calls: ToolCallObservation[] = [];
  for (const observation of result?.observations ?? []) {
    if (observation.type === 'search_tool') {
      searches.push({
        search: observation.id,
        query: observation.query,
        results: searchResults(observation, state.tools, fresh),
      });
    } else {
      calls.push(observation);
    }
  }
  const status: string[] = [];
  const unresolved = [...dispatch.unresolved];
  if (unresolved.length > 0) status.push(`Sent with unresolved references: ${unresolved.join(', ')}.`);
  if (dispatch.notRun.length > 0)
    status.push(['Not run:', ...dispatch.notRun.map((n) => `- ${n.id} (${n.tool}): ${n.reason}`)].join('\n'));
  const plan = planStatus(state);
  if (plan) status.push(plan);

  const render = (share: number): string => {
    const parts: string[] = [];
    if (searches.length > 0) parts.push(`<tools>\n${searches.map((s) => fitSearch(s, share)).join('\n')}\n</tools>`);
    if (calls.length > 0)
      parts.push(`<tool_response>\n${calls.map((c) => renderCallWithin(c, share)).join('\n')}\n</tool_response>`);
    parts.push(...status);
    if (parts.length === 0) parts.push('Nothing was run this turn.');
    return parts.join('\n');
  };
  const whole = render(Number.MAX_SAFE_INTEGER);
  if (budget === undefined || whole.length <= budget) return whole;
  const note = (cut: number) =>
    `(Cut to the ${budget}-character observation budget: ${cut} of ${whole.length} characters left out.)`;
  const room = budget - note(whole.length).length - 1;
  const lines = searches.length + calls.length;
  // What the tags and status lines take: render(0) shrinks every search or call line to a single character.
  const fixed = render(0).length - lines;
  let text = lines > 0 ? render(Math.max(16, Math.floor((room - fixed) / lines))) : whole;
  // The last resort (status lines alone over the budget): a plain cut.
  if (text.length > room) text = `${text.slice(0, Math.max(0, room - 1))}…`;
  return `${text}\n${note(whole.length - text.length)}`;
}

/**
 * One search's line in at most `maxChars`: tool ids stay whole (the model calls tools by them), so the line gives up
 * the rest first: descriptions and parameter notes shortened, fewer response fields, then its lowest-ranked
 * results (`"more": N` says how many), and only then a structural cut.
 */
export function fitSearch(search: SearchLine, maxChars: number): string {
  const whole = JSON.stringify(search);
  if (whole.length <= maxChars) return whole;
  const brief = search.results.map(briefSummary);
  for (let kept = brief.length; kept >= 1; kept--) {
    const line = {
      ...search,
      results: brief.slice(0, kept),
      ...(kept < brief.length ? { more: brief.length - kept } : {}),
    };
    const text = JSON.stringify(line);
    if (text.length <= maxChars) return text;
  }
  return compactJson({ ...search, results: brief.slice(0, 1), more: brief.length - 1 }, maxChars);
}

/**
 * A tool summary at its shortest useful size: id and name whole, a short description, parameter types and requiredness,
 * four response fields.
 */
function briefSummary(result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...result };
  if (typeof out.description === 'string' && out.description.length > 80)
    out.description = `${out.description.slice(0, 79)}…`;
  if (out.parameters && typeof out.parameters === 'object') {
    out.parameters = Object.fromEntries(
      Object.entries(out.parameters as Record<string, string>).map(([name, note]) => [name, note.split(':')[0]!]),
    );
  }
  if (Array.isArray(out.returns) && out.returns.length > 4) out.returns = out.returns.slice(0, 4);
  return out;
}

/**
 * One call's line of `<tool_response>`: what the model sees of it, bounded (the rule-based answer check reads the
 * same).
 */
export function renderCall(observation: ToolCallObservation): string {
  return renderCallWithin(observation, MAX_RESULT_CHARS);
}

/** renderCall in at most `maxChars` (never more than MAX_RESULT_CHARS): an observation budget's share of one call. */
export function renderCallWithin(observation: ToolCallObservation, maxChars: number): string {
  const limit = Math.min(maxChars, MAX_RESULT_CHARS);
  const line: Record<string, unknown> = { id: observation.id, tool: observation.tool, status: observation.status };
  if (observation.error) line.error = `${observation.error} (injected)`;
  const retryAfter = observation.headers?.['retry-after'];
  if (retryAfter !== undefined) line.retry_after = retryAfter;
  // A cached body's stored text is what JSON.stringify would write for it: when the line fits whole, it is used as is.
  const text = untouchedBodyText(observation);
  if (text !== undefined) {
    const whole = `${JSON.stringify(line).slice(0, -1)},"body":${text}}`;
    if (whole.length <= limit) return whole;
  }
  line.body = observation.body;
  return compactJson(line, limit);
}

export function renderRejection(problems: readonly string[]): string {
  return [
    '<error>',
    'Your last message was not run:',
    ...problems.map((p) => `- ${p}`),
    'Reply with <think>…</think> and then <search_tool>, <tool_call> or <answer> as the protocol says.',
    '</error>',
  ].join('\n');
}

/** Where the plan stands: calls done, failed, skipped, still to run (and what they wait for). */
function planStatus(state: RunState): string | undefined {
  if (!state.plan) return undefined;
  const groups = new Map<string, string[]>();
  const add = (key: string, text: string): void => {
    groups.set(key, [...(groups.get(key) ?? []), text]);
  };
  for (const node of state.plan.nodes.values()) {
    if (node.status !== 'pending') {
      add(node.status, node.id);
      continue;
    }
    const waiting = node.deps.filter((d) => state.plan!.nodes.get(d)?.status !== 'done');
    add('to run', waiting.length > 0 ? `${node.id} (after ${waiting.join(', ')})` : `${node.id} (ready)`);
  }
  const order = ['done', 'failed', 'skipped', 'to run'];
  const text = order.filter((k) => groups.has(k)).map((k) => `${k}: ${groups.get(k)!.join(', ')}`);
  return `Plan: ${text.join('; ')}.`;
}
