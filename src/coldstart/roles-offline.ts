import { rankCandidates } from '../agent/heuristic/choose.js';
import { planSlots, researchK } from '../agent/heuristic/plan.js';
import { askedFields, reportSlot } from '../agent/heuristic/report.js';
import { querySlots } from '../agent/heuristic/slots.js';
import type { Answer, CriticInput, ExecutorInput, PlannerInput, Roles } from './roles.js';
import type { CriticLabels, DagCall, PlannerOutput, SharedState } from './types.js';

/**
 * Deterministic roles built from the heuristic policy, for tests and for users without a model: the Planner routes by
 * the heuristic's view of the task (slots to search, calls to make), the Executor keeps the DAG's arguments (the
 * server binds their references), the Critic labels by the heuristic's lexical tool choice and by call success,
 * the Answerer reports each capability's result.
 */
export function offlineRoles(): Roles {
  return { planner, executor, critic, answerer };
}

async function planner({ state, run }: PlannerInput): Promise<PlannerOutput> {
  const plans = planSlots(state.task.query, run);
  const searched = state.tools.size > 0;
  const toSearch = plans.filter((p) => p.status === 'search' || p.status === 'research');
  if (toSearch.length > 0) {
    const slots = toSearch.map((p) => ({
      capability: p.slot.text,
      query: p.slot.query,
      ...(p.status === 'research' ? { k: researchK(run) } : {}),
    }));
    const names = slots.map((s) => `"${s.capability}"`).join(', ');
    return searched
      ? {
          mode: 'refine',
          reasoning:
            `The tools found so far do not cover ${names}; I search again for ` +
            `${slots.length === 1 ? 'it' : 'them'}.`,
          slots,
        }
      : // One capability is the whole query, written out in the plan that follows: the reasoning need not copy it too.
        {
          mode: 'exploration',
          reasoning:
            slots.length === 1
              ? 'The task needs one capability with no tool yet; I search for it.'
              : `The task needs ${slots.length} capabilities with no tool yet: ${names}.`,
          slots,
        };
  }
  const remaining = plans.filter((p) => p.status === 'call').map((p) => p.call!);
  if (remaining.length > 0) {
    const ids = new Set(remaining.map((c) => c.id));
    const dag: DagCall[] = remaining.map((c) => ({
      id: c.id,
      tool: c.tool.id,
      arguments: c.arguments,
      depends_on: c.producers.filter((p) => ids.has(p)),
    }));
    const edges = dag.flatMap((c) => (c.depends_on ?? []).map((p) => `${c.id} needs ${p}`));
    const reasoning =
      `Tools: ${dag.map((c) => `${c.id} = ${c.tool}`).join(', ')}. ` +
      `${edges.length > 0 ? `Dependencies: ${edges.join('; ')}.` : 'The calls are independent.'}`;
    return { mode: state.dag ? 'refine' : 'execution', reasoning, dag };
  }
  const done = plans.filter((p) => p.status === 'done').length;
  return {
    mode: 'answer',
    reasoning: `${done} of ${plans.length} capabilities have a result; nothing more can be done with the tools found.`,
  };
}

async function executor({ level }: ExecutorInput): Promise<Record<string, Record<string, unknown>>> {
  return Object.fromEntries(level.map((call) => [call.id, call.arguments]));
}

async function critic({ state, run, retrieved, observed }: CriticInput): Promise<CriticLabels> {
  const slots = querySlots(state.task.query);
  const tools: CriticLabels['tools'] = {};
  for (const id of retrieved ?? []) {
    const entry = state.tools.get(id)!;
    const slot = slots.find((s) => s.query === state.slots[entry.slot]?.query) ?? slots[entry.slot];
    const searches = run.searches.filter((s) => s.results.some((hit) => hit.id === id));
    tools[id] = slot && rankCandidates(slot, searches, run).includes(id) ? 'relevant' : 'irrelevant';
  }
  const observations: CriticLabels['observations'] = {};
  for (const id of observed ?? [])
    observations[id] = state.observations.find((o) => o.id === id)?.ok ? 'relevant' : 'irrelevant';
  const kept = [...Object.values(tools), ...Object.values(observations)].filter((l) => l === 'relevant').length;
  const total = Object.keys(tools).length + Object.keys(observations).length;
  return {
    reasoning: `${kept} of ${total} ${retrieved ? 'retrieved tools fit a capability' : 'results answer their call'}.`,
    tools,
    observations,
  };
}

/**
 * The answer says what was asked and nothing else: one sentence for a one-capability task, a line per capability
 * otherwise. Restating the query or naming tool ids would teach a small policy to copy long strings it can only get
 * wrong, when the value it must copy is the one in the result.
 */
async function answerer(state: SharedState): Promise<Answer> {
  const asked = askedFields(state.task.query);
  const reports = state.slots.map((_, i) => {
    const result = state.observations.find((o) => o.label === 'relevant' && state.tools.get(o.tool)?.slot === i);
    return result ? reportSlot(result.body, asked, i) : undefined;
  });
  const done = reports.filter((r) => r !== undefined).length;
  const answer =
    reports.length === 1
      ? sentence(reports[0] ?? 'it could not be done with the tools found')
      : reports.map((report, i) => `- ${state.slots[i]!.capability}: ${report ?? 'not done'}.`).join('\n');
  return {
    reasoning: `${done} of ${state.slots.length} capabilities are covered; I answer from their results.`,
    answer,
  };
}

function sentence(report: string): string {
  const text = report.startsWith('returned ') ? `the call ${report}` : report;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}
