import type { StepResult, ToolCallObservation } from '../episodes/types.js';
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

/** Characters of one call's rendered result. */
export const MAX_RESULT_CHARS = 1500;

export function renderObservation(state: RunState, dispatch: Dispatch, result: StepResult | undefined, fresh: ReadonlySet<string>): string {
  const parts: string[] = [];
  const searches: string[] = [];
  const calls: string[] = [];
  for (const observation of result?.observations ?? []) {
    if (observation.type === 'search_tool') {
      const results = observation.results.map((hit) => {
        const tool = state.tools.get(hit.id);
        if (!fresh.has(hit.id)) return { id: hit.id, name: hit.name, note: 'described earlier' };
        return tool ? summaryOf(tool) : { id: hit.id, name: hit.name, description: hit.description };
      });
      searches.push(JSON.stringify({ search: observation.id, query: observation.query, results }));
    } else {
      calls.push(renderCall(observation));
    }
  }
  if (searches.length > 0) parts.push(`<tools>\n${searches.join('\n')}\n</tools>`);
  if (calls.length > 0) parts.push(`<tool_response>\n${calls.join('\n')}\n</tool_response>`);
  const unresolved = [...dispatch.unresolved];
  if (unresolved.length > 0) parts.push(`Sent with unresolved references: ${unresolved.join(', ')}.`);
  if (dispatch.notRun.length > 0) parts.push(['Not run:', ...dispatch.notRun.map((n) => `- ${n.id} (${n.tool}): ${n.reason}`)].join('\n'));
  const plan = planStatus(state);
  if (plan) parts.push(plan);
  if (parts.length === 0) parts.push('Nothing was run this turn.');
  return parts.join('\n');
}

/** One call's line of `<tool_response>`: what the model sees of it, bounded (the rule-based answer check reads the same). */
export function renderCall(observation: ToolCallObservation): string {
  const line: Record<string, unknown> = { id: observation.id, tool: observation.tool, status: observation.status };
  if (observation.error) line.error = `${observation.error} (injected)`;
  const retryAfter = observation.headers?.['retry-after'];
  if (retryAfter !== undefined) line.retry_after = retryAfter;
  // A cached body's stored text is what JSON.stringify would write for it: when the line fits whole, it is used as is.
  const text = untouchedBodyText(observation);
  if (text !== undefined) {
    const whole = `${JSON.stringify(line).slice(0, -1)},"body":${text}}`;
    if (whole.length <= MAX_RESULT_CHARS) return whole;
  }
  line.body = observation.body;
  return compactJson(line, MAX_RESULT_CHARS);
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
