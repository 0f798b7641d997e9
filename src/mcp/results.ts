import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Observation } from '../wire/episodes.js';
import type { Problem } from '../simulator/problem.js';

/** Where every tool result says which episode recorded it, and as which step. */
export interface StepMeta {
  episode: string;
  step?: number;
}

/**
 * An episode observation as an MCP tool result. The text item is what a model reads: the simulated body of a call,
 * the hits of a search. `structuredContent` is the observation itself. A call answered with a status ≥ 400, or a search
 * that failed, is a tool error (`isError`), not a protocol error, so the model sees the problem and can recover.
 */
export function observationResult(observation: Observation, meta: StepMeta): CallToolResult {
  const failed = observation.type === 'tool_call' ? observation.status >= 400 : observation.problem !== undefined;
  const text =
    observation.type === 'tool_call'
      ? observation.body
      : (observation.problem ?? { query: observation.query, results: observation.results });
  return {
    content: [{ type: 'text', text: JSON.stringify(text) }],
    structuredContent: observation as unknown as Record<string, unknown>,
    ...(failed ? { isError: true } : {}),
    _meta: metaOf(meta),
  };
}

/** A request the episode refused (bad input, tool outside the episode, episode done or gone) as a tool error. */
export function problemResult(problem: Problem, meta: StepMeta): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(problem) }], isError: true, _meta: metaOf(meta) };
}

function metaOf({ episode, step }: StepMeta): Record<string, unknown> {
  return { 'toolenv/episode': episode, ...(step === undefined ? {} : { 'toolenv/step': step }) };
}
