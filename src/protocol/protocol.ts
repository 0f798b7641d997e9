/**
 * The ParaAct tagged format (paper §3.2) as data: what a parsed assistant message holds. Each turn is
 * `<think>` reasoning, an optional `<plan>`, then parallel actions (`<search_tool>` or `<tool_call>`), or a final
 * `<answer>`. Plans are JSON (schemas/plan.schema.json); so are the action blocks (schemas/search-tool.schema.json,
 * schemas/tool-call.schema.json).
 */

import { schemaNumber } from '../wire/schemas.js';

/** The episode options' defaults and bounds are stated once, in schemas/trajectory.schema.json. */
const episodeOption = (pointer: string) =>
  schemaNumber('trajectory', `/$defs/EpisodeConfigFields/properties/${pointer}`);

export const TAGS = ['think', 'plan', 'search_tool', 'tool_call', 'answer'] as const;
export type TagName = (typeof TAGS)[number];

/** The paper's turn cap (Appendix D: rollouts are capped at 15 reasoning–action turns). */
export const DEFAULT_MAX_TURNS = episodeOption('max_turns/default');
/** Up to 3 parallel tool calls per turn under the DAG schedule (Appendix D). */
export const DEFAULT_MAX_CALLS_PER_TURN = episodeOption('max_calls_per_turn/default');
/** Top-3 candidates per query (§4). */
export const DEFAULT_K = episodeOption('k/default');
/**
 * Searches in one turn: enough capability slots for any task the benchmarks hold, few enough to keep a turn readable.
 */
export const MAX_SEARCHES_PER_TURN = 8;
/** The largest `k` a search may ask for. */
export const MAX_K = episodeOption('k/maximum');
/**
 * How deep a block's JSON may nest: far past any real API's arguments, short of what recursive binding could overflow
 * on.
 */
export const MAX_JSON_DEPTH = 64;

export interface CapabilitySlot {
  /** The functional requirement, in the model's words. */
  capability: string;
  /** What to search for; the capability itself when the model gave no separate query. */
  query: string;
}

/** Exploration: capability slots, each filled by one parallel search. */
export interface ExplorationPlan {
  phase: 'exploration';
  slots: CapabilitySlot[];
}

/** One node of an execution plan's DAG: a uniquely identified call to an available tool. */
export interface PlannedCall {
  id: string;
  tool: string;
  /** May hold references to upstream outputs (see references.ts). */
  arguments: Record<string, unknown>;
  /** Calls whose output or state change this one needs. References imply these edges too. */
  depends_on: string[];
}

/** Execution: the available tools (drawn from what search returned), the calls as a DAG, the flow as layers. */
export interface ExecutionPlan {
  phase: 'execution';
  tools: string[];
  calls: PlannedCall[];
  /** The execution flow the model wrote, when it wrote one; the client computes Kahn's layers otherwise. */
  layers?: string[][];
}

export type Plan = ExplorationPlan | ExecutionPlan;

export interface SearchRequest {
  query: string;
  k?: number;
}

/** A `<tool_call>`: a full call, or just the id of a planned call (its tool and arguments then come from the plan). */
export interface CallRequest {
  id?: string;
  tool?: string;
  arguments?: Record<string, unknown>;
}

/** One assistant message, read. `problems` non-empty means the message is rejected as a whole. */
export interface ParsedMessage {
  think?: string;
  plan?: Plan;
  searches: SearchRequest[];
  calls: CallRequest[];
  answer?: string;
  problems: string[];
  /**
   * What the step rewards read: a closed, non-empty <think>, the tags left unclosed, whether a <plan> block was written
   * at all.
   */
  form: { think: boolean; unclosed: TagName[]; plan: boolean };
}
