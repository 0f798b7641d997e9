import { compactJson } from '../protocol/compact.js';
import type { JsonSchema } from '../library/tool.js';
import type { TextGenerator } from '../simulator/model-responder.js';
import {
  RoleError,
  type Answer,
  type CriticInput,
  type ExecutorInput,
  type PlannerInput,
  type Roles,
} from './roles.js';
import type { CriticLabels, DagCall, PlannerOutput, SharedState } from './types.js';
import { MODES } from './types.js';

export interface ModelRoleOptions {
  /** Table 6: 0.7. */
  temperature: number;
  /** Table 6: 2,048 tokens per agent call. */
  maxTokens: number;
  seed: number;
}

/** One generator per role (the same one for all is fine); each call asks for JSON in the role's schema. */
export type RoleGenerators = Record<keyof Roles, TextGenerator>;

const SLOTS: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['capability', 'query'],
    properties: { capability: { type: 'string' }, query: { type: 'string' } },
  },
};
const DAG: JsonSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['id', 'tool', 'arguments'],
    properties: {
      id: { type: 'string' },
      tool: { type: 'string' },
      arguments: { type: 'object' },
      depends_on: { type: 'array', items: { type: 'string' } },
    },
  },
};
const PLANNER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['mode', 'reasoning'],
  properties: { mode: { enum: [...MODES] }, reasoning: { type: 'string' }, slots: SLOTS, dag: DAG },
};
const EXECUTOR_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['calls'],
  properties: {
    calls: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'arguments'],
        properties: { id: { type: 'string' }, arguments: { type: 'object' } },
      },
    },
  },
};
const LABEL = { enum: ['relevant', 'irrelevant'] };
const CRITIC_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['reasoning', 'labels'],
  properties: {
    reasoning: { type: 'string' },
    labels: {
      type: 'array',
      items: { type: 'object', required: ['id', 'label'], properties: { id: { type: 'string' }, label: LABEL } },
    },
  },
};
const ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['reasoning', 'answer'],
  properties: { reasoning: { type: 'string' }, answer: { type: 'string' } },
};

const PLANNER_PROMPT =
  'You are the Planner of a tool-using multi-agent system; ' +
  'you alone decide what happens next. Commit to exactly one mode:\n' +
  '- "exploration": no tools are known yet. Give "slots": one per capability the task needs, each {"capability", ' +
  '"query"} (a search query for a tool).\n' +
  '- "execution": the needed tools were retrieved. Give "dag": the calls, each {"id" (c1, c2, ...), "tool" (an exact ' +
  'retrieved tool id), "arguments", "depends_on"}. An argument that needs an earlier call\'s output is {"$ref": ' +
  '"c1.body.field"}.\n' +
  '- "refine": the last plan fell short. Give new "slots" OR a revised "dag", never both.\n' +
  '- "answer": the observations suffice, or what is left needs only reasoning.\n' +
  'Always give "reasoning": why this mode, in one or two sentences. Answer with JSON only.';
const EXECUTOR_PROMPT =
  "You are the Executor. For each call of the current level, infer its arguments from the task, the tool's " +
  'parameters and the earlier results. Keep {"$ref": ...} references to earlier calls where the value comes from ' +
  'them. Answer with JSON only: {"calls": [{"id", "arguments"}]}, one entry per call of the level.';
const CRITIC_PROMPT =
  'You are the Critic. Label every item you are given "relevant" or "irrelevant" to the task: a retrieved tool is ' +
  'relevant when it can serve one of the capabilities; an observation is relevant when it succeeded and gives what ' +
  'its call was for. "uncertain" is not allowed. Answer with JSON only: {"reasoning", "labels": [{"id", "label"}]}.';
const ANSWER_PROMPT =
  'You are the Answerer. Write the final answer for the user from the known facts and the relevant observations ' +
  'only; say plainly what could not be done. Answer with JSON only: {"reasoning", "answer"}.';

/**
 * The roles as calls to language models: any OpenAI-compatible endpoint or a local GGUF, one per role or one for all.
 */
export function modelRoles(generators: RoleGenerators, options: ModelRoleOptions): Roles {
  let calls = 0;
  const ask = async (
    role: keyof Roles,
    system: string,
    user: unknown,
    schema: JsonSchema,
  ): Promise<Record<string, unknown>> => {
    const generation = await generators[role].generate({
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: JSON.stringify(user) },
      ],
      schema,
      maxTokens: options.maxTokens,
      temperature: options.temperature,
      seed: options.seed + calls++,
      signal: new AbortController().signal,
    });
    if (generation.truncated) throw new RoleError(role, `the answer was cut at ${options.maxTokens} tokens`);
    let parsed: unknown;
    try {
      parsed = JSON.parse(generation.text);
    } catch {
      throw new RoleError(role, `not JSON: ${generation.text.slice(0, 120)}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new RoleError(role, 'not a JSON object');
    return parsed as Record<string, unknown>;
  };

  return {
    async planner({ state, round, repair }: PlannerInput): Promise<PlannerOutput> {
      const user = {
        task: state.task.query,
        round,
        ...view(state),
        ...(repair
          ? {
              repair: {
                dag: repair.dag,
                errors: repair.errors,
                instruction: 'fix these errors and give the corrected dag',
              },
            }
          : {}),
      };
      const out = await ask('planner', PLANNER_PROMPT, user, PLANNER_SCHEMA);
      return plannerOutput(out);
    },
    async executor({ state, level }: ExecutorInput) {
      const tools = level.map((call) => ({
        id: call.id,
        tool: call.tool,
        planned_arguments: call.arguments,
        description: state.tools.get(call.tool)?.hit.description,
      }));
      const out = await ask(
        'executor',
        EXECUTOR_PROMPT,
        { task: state.task.query, level: tools, results: results(state) },
        EXECUTOR_SCHEMA,
      );
      const calls = Array.isArray(out.calls) ? (out.calls as { id?: unknown; arguments?: unknown }[]) : [];
      const args: Record<string, Record<string, unknown>> = {};
      for (const call of level) {
        const given = calls.find((c) => c.id === call.id)?.arguments;
        if (!given || typeof given !== 'object' || Array.isArray(given))
          throw new RoleError('executor', `no arguments for ${call.id}`);
        args[call.id] = given as Record<string, unknown>;
      }
      return args;
    },
    async critic({ state, retrieved, observed }: CriticInput): Promise<CriticLabels> {
      const items = [
        ...(retrieved ?? []).map((id) => ({
          id,
          kind: 'tool',
          name: state.tools.get(id)?.hit.name,
          description: state.tools.get(id)?.hit.description,
        })),
        ...(observed ?? []).map((id) => {
          const o = state.observations.find((x) => x.id === id)!;
          return { id, kind: 'observation', tool: o.tool, status: o.status, body: compactJson(o.body, 400) };
        }),
      ];
      const out = await ask(
        'critic',
        CRITIC_PROMPT,
        { task: state.task.query, capabilities: state.slots.map((s) => s.capability), items },
        CRITIC_SCHEMA,
      );
      const labels = Array.isArray(out.labels) ? (out.labels as { id?: unknown; label?: unknown }[]) : [];
      const labelOf = (id: string) => {
        const label = labels.find((l) => l.id === id)?.label;
        if (label !== 'relevant' && label !== 'irrelevant')
          throw new RoleError('critic', `no relevant/irrelevant label for ${id}`);
        return label;
      };
      if (typeof out.reasoning !== 'string') throw new RoleError('critic', 'no reasoning');
      return {
        reasoning: out.reasoning,
        tools: Object.fromEntries((retrieved ?? []).map((id) => [id, labelOf(id)])),
        observations: Object.fromEntries((observed ?? []).map((id) => [id, labelOf(id)])),
      };
    },
    async answerer(state: SharedState): Promise<Answer> {
      const out = await ask(
        'answerer',
        ANSWER_PROMPT,
        { task: state.task.query, facts: results(state, true) },
        ANSWER_SCHEMA,
      );
      if (typeof out.answer !== 'string' || out.answer.trim() === '') throw new RoleError('answerer', 'no answer');
      return { reasoning: typeof out.reasoning === 'string' ? out.reasoning : '', answer: out.answer };
    },
  };
}

/** What the Planner sees of SharedState: capabilities, retrieved tools with their labels, results, the last verdict. */
function view(state: SharedState) {
  return {
    capabilities: state.slots.map((s) => ({ capability: s.capability, retrieved: s.retrieved })),
    tools: [...state.tools.entries()].map(([id, t]) => ({
      id,
      name: t.hit.name,
      description: t.hit.description,
      label: t.label ?? 'unlabelled',
    })),
    results: results(state),
    ...(state.dag ? { dag_in_force: state.dag } : {}),
    ...(state.feedback
      ? { critic: state.feedback, missing: state.coverage.missing_capabilities, can_answer: state.coverage.can_answer }
      : {}),
  };
}

function results(state: SharedState, relevantOnly = false) {
  return state.observations
    .filter((o) => !relevantOnly || o.label === 'relevant')
    .map((o) => ({
      id: o.id,
      tool: o.tool,
      status: o.status,
      ok: o.ok,
      body: compactJson(o.body, 600),
      ...(o.label ? { label: o.label } : {}),
    }));
}

/** The Planner's JSON read into its output: shape errors are the Planner's (RoleError). */
export function plannerOutput(out: Record<string, unknown>): PlannerOutput {
  const mode = out.mode as PlannerOutput['mode'];
  if (!MODES.includes(mode))
    throw new RoleError('planner', `mode ${JSON.stringify(out.mode)} is none of ${MODES.join(', ')}`);
  if (typeof out.reasoning !== 'string') throw new RoleError('planner', 'no reasoning');
  const plan: PlannerOutput = { mode, reasoning: out.reasoning };
  if (Array.isArray(out.slots)) {
    plan.slots = out.slots.map((s, i) => {
      const slot = s as { capability?: unknown; query?: unknown };
      if (typeof slot?.capability !== 'string' || typeof slot.query !== 'string' || slot.query.trim() === '')
        throw new RoleError('planner', `slot ${i} needs a capability and a query`);
      return { capability: slot.capability, query: slot.query };
    });
  }
  if (Array.isArray(out.dag)) {
    plan.dag = out.dag.map((c, i): DagCall => {
      const call = c as { id?: unknown; tool?: unknown; arguments?: unknown; depends_on?: unknown };
      if (typeof call?.id !== 'string' || typeof call.tool !== 'string')
        throw new RoleError('planner', `dag call ${i} needs an id and a tool`);
      const args =
        call.arguments && typeof call.arguments === 'object' && !Array.isArray(call.arguments)
          ? (call.arguments as Record<string, unknown>)
          : {};
      const deps = Array.isArray(call.depends_on)
        ? call.depends_on.filter((d): d is string => typeof d === 'string')
        : [];
      return { id: call.id, tool: call.tool, arguments: args, depends_on: deps };
    });
  }
  return plan;
}
