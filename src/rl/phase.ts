import type { TurnPlan, TurnRecord } from '../wire/episodes.js';
import type { Edge } from '../graph/edge.js';
import type { RewardCoefficients } from '../wire/rewards.js';
import type { PhaseScore, WindowScore } from '../wire/schema-types.js';

// The shapes schemas/ defines, as scripts/wire-types.mjs derives them.
export type { PhaseScore, WindowScore } from '../wire/schema-types.js';

/** What the phase reward needs of G_dep: the edges induced by a set of tools. `Graph` (graph/store.ts) is one. */
export interface SubgraphSource {
  subgraph(ids: Iterable<string>): Pick<Edge, 'src' | 'dst' | 'kind'>[];
}

type Weights = Pick<RewardCoefficients, 'w1' | 'w2' | 'w3' | 'w4'>;

interface Window {
  turn: number;
  plan: Required<Pick<TurnPlan, 'tools' | 'calls' | 'layers'>>;
  turns: TurnRecord[];
}

/**
 * The execution phases of a trajectory (C.2): a phase opens at a turn whose accepted execution plan finds none open,
 * runs through the turns after it, and ends at the next turn that searched or at the answer. A new execution plan
 * inside a phase opens a new window of it (the controller refreshed), not a new phase. Calls made with no
 * execution plan in force belong to no phase.
 */
export function executionPhases(turns: readonly TurnRecord[]): { turns: number[]; windows: Window[] }[] {
  const phases: { turns: number[]; windows: Window[] }[] = [];
  let open: { turns: number[]; windows: Window[] } | undefined;
  for (const turn of turns) {
    const plan = turn.plan;
    if (plan?.accepted && plan.phase === 'execution' && plan.tools && plan.calls && plan.layers) {
      if (!open) phases.push((open = { turns: [], windows: [] }));
      open.windows.push({
        turn: turn.turn,
        plan: { tools: plan.tools, calls: plan.calls, layers: plan.layers },
        turns: [],
      });
    } else if (turn.searches.length > 0 || turn.answer !== undefined) {
      open = undefined;
      continue;
    }
    if (!open) continue;
    open.turns.push(turn.turn);
    open.windows.at(-1)!.turns.push(turn);
  }
  return phases;
}

/**
 * A chat trajectory's phases: its turns carry no plan, so each turn's calls are one phase of one window, written
 * as a plan would declare them: the tools called, no dependency among calls sent together, all in one layer. L2
 * and L3 then ask whether calls that G_dep orders were sent together, L4 whether each ran once its upstreams had.
 */
export function callPhases(turns: readonly TurnRecord[]): { turns: number[]; windows: Window[] }[] {
  return turns
    .filter((turn) => turn.calls.length > 0)
    .map((turn) => {
      const plan = {
        tools: [...new Set(turn.calls.map((c) => c.tool))],
        calls: turn.calls.map((c) => ({ id: c.id, tool: c.tool, depends_on: [] })),
        layers: [turn.calls.map((c) => c.id)],
      };
      return { turns: [turn.turn], windows: [{ turn: turn.turn, plan, turns: [turn] }] };
    });
}

/**
 * How a trajectory's phases are read: from plans (ParaAct), or from each turn's calls (`chat`), grounded also in the
 * tools given up front.
 */
export interface PhaseOptions {
  perTurnCalls?: boolean;
  /** Tools the policy could call before any search (a chat episode's native tools): L1 counts them as retrieved. */
  given?: readonly string[];
}

/**
 * The phases' scores before the gate: per window 1[L1]·(w1 + w2·L2 + w3·L3 + w4·L4), each phase the windows'
 * scores weighted by the calls each still schedules. Without a graph, L2 and L3 are null and a window scores
 * 1[L1]·(w1 + w4·L4), rescaled to the full weight so that a perfect phase still scores the weights' sum.
 */
export function phaseScores(
  turns: readonly TurnRecord[],
  weights: Weights,
  graph: SubgraphSource | undefined,
  options: PhaseOptions = {},
): PhaseScore[] {
  const phases = options.perTurnCalls ? callPhases(turns) : executionPhases(turns);
  return phases.map((phase) => {
    const windows = phase.windows.map((window) => windowScore(window, turns, weights, graph, options.given ?? []));
    const weight = windows.reduce((sum, w) => sum + w.scheduled, 0);
    const score =
      weight === 0
        ? mean(windows.map((w) => w.score))
        : windows.reduce((sum, w) => sum + w.scheduled * w.score, 0) / weight;
    const l4 = weight === 0 ? 0 : windows.reduce((sum, w) => sum + w.scheduled * w.l4_ratio, 0) / weight;
    return {
      turns: phase.turns,
      l1: windows.every((w) => w.l1),
      l2: graph ? windows.every((w) => w.l2 === true) : null,
      l3: graph ? windows.every((w) => w.l3 === true) : null,
      l4_ratio: l4,
      score,
      windows,
    };
  });
}

function windowScore(
  window: Window,
  turns: readonly TurnRecord[],
  weights: Weights,
  graph: SubgraphSource | undefined,
  given: readonly string[],
): WindowScore {
  const { plan } = window;
  const before = turns.filter((t) => t.turn < window.turn);
  const retrieved = new Set([...given, ...before.flatMap((t) => t.searches.flatMap((s) => s.results))]);
  const declared = new Set(plan.tools);
  const l1 = declared.size === plan.tools.length && plan.tools.every((tool) => retrieved.has(tool));

  const edges = graph ? graph.subgraph(declared).filter((e) => e.src !== e.dst) : [];
  const hard = edges.filter((e) => e.kind === 'hard');
  const l2 = graph ? dependenciesMatch(plan, edges, hard) : null;
  const l3 = graph ? layersOrdered(plan, declared, hard) : null;

  // As the executor does: a call that already succeeded under its id and tool is done, not scheduled again.
  const succeededBefore = new Set(before.flatMap((t) => t.calls.filter((c) => c.ok).map((c) => pair(c.id, c.tool))));
  const scheduled = plan.calls.filter((call) => !succeededBefore.has(pair(call.id, call.tool)));
  const executed = scheduled.filter((call) => executedWhenReady(call, window.turns, turns, hard)).length;
  const l4 = scheduled.length === 0 ? 0 : executed / scheduled.length;

  const { w1, w2, w3, w4 } = weights;
  const levels = graph
    ? w1 + w2 * Number(l2) + w3 * Number(l3) + w4 * l4
    : ((w1 + w4 * l4) * (w1 + w2 + w3 + w4)) / (w1 + w4 || 1);
  return { turn: window.turn, scheduled: scheduled.length, l1, l2, l3, l4_ratio: l4, score: l1 ? levels : 0 };
}

/**
 * L2: the declared dependencies, as tool pairs, hold every hard edge of G_sub and none G_sub lacks (soft ones are
 * optional).
 */
function dependenciesMatch(
  plan: Window['plan'],
  edges: readonly Pick<Edge, 'src' | 'dst'>[],
  hard: readonly Pick<Edge, 'src' | 'dst'>[],
): boolean {
  const toolOf = new Map(plan.calls.map((c) => [c.id, c.tool]));
  const declared = new Set<string>();
  for (const call of plan.calls) {
    for (const dep of call.depends_on) {
      const upstream = toolOf.get(dep);
      // Two calls of one tool (a second page after the first) are no edge of G_dep, which relates distinct tools.
      if (upstream !== undefined && upstream !== call.tool) declared.add(pair(upstream, call.tool));
    }
  }
  const supported = new Set(edges.map((e) => pair(e.src, e.dst)));
  return hard.every((e) => declared.has(pair(e.src, e.dst))) && [...declared].every((p) => supported.has(p));
}

/**
 * L3: the execution flow covers every declared tool, and each call of a hard edge's downstream runs in a later layer
 * than a call of its upstream.
 */
function layersOrdered(
  plan: Window['plan'],
  declared: ReadonlySet<string>,
  hard: readonly Pick<Edge, 'src' | 'dst'>[],
): boolean {
  const toolOf = new Map(plan.calls.map((c) => [c.id, c.tool]));
  const layersOf = new Map<string, number[]>();
  plan.layers.forEach((layer, index) => {
    for (const id of layer) {
      const tool = toolOf.get(id);
      if (tool !== undefined) layersOf.set(tool, [...(layersOf.get(tool) ?? []), index]);
    }
  });
  if (![...declared].every((tool) => layersOf.has(tool))) return false;
  return hard.every((edge) => {
    const first = Math.min(...(layersOf.get(edge.src) ?? [Infinity]));
    return (layersOf.get(edge.dst) ?? []).every((layer) => first < layer);
  });
}

/**
 * L4: the call succeeded in the window, and by the turn it ran every hard upstream tool of G_sub had succeeded in an
 * earlier turn (calls of one batch cannot satisfy each other).
 */
function executedWhenReady(
  call: { id: string; tool: string },
  windowTurns: readonly TurnRecord[],
  turns: readonly TurnRecord[],
  hard: readonly Pick<Edge, 'src' | 'dst'>[],
): boolean {
  const ran = windowTurns.find((t) => t.calls.some((c) => c.id === call.id && c.tool === call.tool && c.ok));
  if (!ran) return false;
  const earlier = new Set(
    turns.filter((t) => t.turn < ran.turn).flatMap((t) => t.calls.filter((c) => c.ok).map((c) => c.tool)),
  );
  return hard.filter((e) => e.dst === call.tool).every((e) => earlier.has(e.src));
}

const pair = (src: string, dst: string) => `${src}\u0000${dst}`;

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
}
