import { chatRow } from '../chat/export.js';
import { kahnLayers } from '../protocol/dag.js';
import { EpisodeClient, ServerError } from '../agent/episode-client.js';
import { DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS } from '../protocol/protocol.js';
import { referencedCalls } from '../protocol/references.js';
import { fromRunStateView, newRunState, type RunState, type RunStateView } from '../protocol/state.js';
import type { Tool } from '../library/tool.js';
import type { TrainTask } from '../train/tasks.js';
import { episodeTask } from '../wire/episodes.js';
import type { SystemPromptStyle } from '../wire/episodes.js';
import { RoleError, type Roles } from './roles.js';
import { coverageOf, feedbackOf } from './coverage.js';
import { answerTurn, executionTurn, explorationTurn } from './serialize.js';
import {
  MODES,
  type ColdStartRun,
  type CriticLabels,
  type DagCall,
  type PlannerOutput,
  type RoundRecord,
  type SharedState,
  type SlotSpec,
} from './types.js';

export interface LoopOptions {
  server: string;
  apiKey?: string;
  roles: Roles;
  /** T_max, the round cap (Table 6: 12). */
  maxRounds: number;
  /** The episode's injected-error rate (Table 6: 5%). */
  errorRate: number;
  /** The episode's turn cap, as the policy will meet it in RL (15). */
  maxTurns?: number;
  maxCallsPerTurn?: number;
  k?: number;
  /** The episode's observation budget, as the policy will meet it in RL. */
  maxObservationChars?: number;
  /** The episode's system prompt, as the policy will meet it in RL. */
  systemPrompt?: SystemPromptStyle;
  seed?: number;
  /**
   * Also keep the run as a Hugging Face chat row (native tool calls), made from the episode's trajectory before it is
   * deleted.
   */
  chatRows?: boolean;
}

/** Planner calls that may repair a DAG failing validation (B.1). */
export const MAX_DAG_REPAIRS = 2;
/** Refine rounds with neither slots nor a DAG before the loop gives up (Algorithm 1, line 23). */
export const STALL_LIMIT = 2;

/**
 * Algorithm 1 on one task: the control loop, sole writer of SharedState, dispatches the agents the Planner's mode
 * selects. The Retriever's searches and the Executor's levels act through a real episode's text turns, each turn
 * written in the single-agent tag format (serialize.ts) as it is sent, so the trajectory is the conversation the
 * episode took: replaying its assistant turns in a new episode with the same seed gives the same observations.
 */
export async function runColdStart(task: TrainTask, options: LoopOptions): Promise<ColdStartRun> {
  const client = new EpisodeClient(options.server, options.apiKey);
  const maxTurns = options.maxTurns ?? DEFAULT_MAX_TURNS;
  const episode = await client.create({
    task: episodeTask(task),
    protocol: 'paraact',
    max_turns: maxTurns,
    max_steps: maxTurns,
    error_rate: options.errorRate,
    ...(options.maxCallsPerTurn !== undefined ? { max_calls_per_turn: options.maxCallsPerTurn } : {}),
    ...(options.k !== undefined ? { k: options.k } : {}),
    ...(options.maxObservationChars !== undefined ? { max_observation_chars: options.maxObservationChars } : {}),
    ...(options.systemPrompt !== undefined ? { system_prompt: options.systemPrompt } : {}),
    ...(task.tools ? { tools: task.tools } : {}),
    ...((task.seed ?? options.seed) !== undefined ? { seed: task.seed ?? options.seed } : {}),
  });
  const run = new Run(task, episode.id, client, options);
  const out: ColdStartRun = {
    task_id: task.id,
    seed: episode.seed,
    episode_id: episode.id,
    messages: episode.messages.map((m) => ({ ...m })),
    rounds: run.rounds,
    rejected_turns: run.rejectedTurns,
    finish: 'error',
    exit: 'round_cap',
  };
  run.messages = out.messages;
  try {
    out.exit = await run.loop();
    out.finish = await run.answer();
    // The server's verdict on the answer: the filter keeps a task with an expected answer only when it was met.
    if (task.answer !== undefined) out.solved = (await client.rewards(episode.id, { judge: false })).success === true;
    if (options.chatRows) {
      const row = chatRow(await client.get(episode.id), run.records);
      out.chat = 'row' in row ? row.row : { skipped: row.skipped };
    }
  } catch (error) {
    out.error = error instanceof Error ? error.message : String(error);
  } finally {
    await client.delete(episode.id).catch(() => undefined);
  }
  return out;
}

class Run {
  readonly state: SharedState;
  readonly rounds: RoundRecord[] = [];
  readonly rejectedTurns: string[][] = [];
  messages: ColdStartRun['messages'] = [];
  private runState: RunState = newRunState();
  /** The records of the tools search surfaced, fetched once each. */
  readonly records = new Map<string, Tool>();
  private finished: ColdStartRun['finish'] | undefined;

  constructor(
    task: TrainTask,
    private readonly episode: string,
    private readonly client: EpisodeClient,
    private readonly options: LoopOptions,
  ) {
    this.state = {
      task,
      slots: [],
      tools: new Map(),
      observations: [],
      coverage: { done: false, can_answer: false, missing_capabilities: [] },
    };
  }

  async loop(): Promise<ColdStartRun['exit']> {
    let stall = 0;
    for (let round = 1; round <= this.options.maxRounds; round++) {
      if (this.finished) return 'round_cap';
      const record: RoundRecord = { round, mode: 'answer', reasoning: '', repairs: 0 };
      this.rounds.push(record);
      let plan: PlannerOutput;
      try {
        plan = checkPlan(await this.options.roles.planner({ state: this.state, run: this.runState, round }));
      } catch (error) {
        if (!(error instanceof RoleError)) throw error;
        record.invalid = [error.message];
        return 'stall';
      }
      Object.assign(
        record,
        { mode: plan.mode, reasoning: plan.reasoning },
        plan.slots ? { slots: plan.slots } : {},
        plan.dag ? { dag: plan.dag } : {},
      );
      if (plan.mode === 'answer') return 'answer';
      let labels: CriticLabels;
      if (plan.slots) labels = await this.retrieve(plan.reasoning, plan.slots);
      else if (plan.dag) {
        const dag = await this.repaired(plan.dag, record, round);
        if (!dag) return 'stall';
        record.dag = dag;
        labels = await this.execute(plan.reasoning, dag);
      } else {
        record.stalled = true;
        if (++stall >= STALL_LIMIT) return 'stall';
        continue;
      }
      stall = 0;
      const coverage = coverageOf(this.state, plan.slots ? 'retrieval' : 'execution');
      this.state.coverage = coverage;
      this.state.feedback = feedbackOf(labels, coverage);
      record.critic = { labels, coverage };
      if (coverage.done && coverage.can_answer) return 'covered';
    }
    return 'round_cap';
  }

  /** The Answerer, once: its message ends the episode (or states what the cap left). */
  async answer(): Promise<ColdStartRun['finish']> {
    if (this.finished) return this.finished;
    const { reasoning, answer } = await this.options.roles.answerer(this.state);
    const result = await this.send(answerTurn(this.state.feedback, reasoning, answer));
    return result.finish === 'answer' ? 'answer' : (result.finish ?? 'turn_cap');
  }

  /** Exploration or slot-based Refine: one turn whose searches are the Retriever (one query per slot). */
  private async retrieve(reasoning: string, slots: SlotSpec[]): Promise<CriticLabels> {
    // A capability searched again keeps its slot; a new one gets the next.
    const indexes = slots.map((spec) => {
      const known = this.state.slots.findIndex((s) => s.capability === spec.capability);
      if (known >= 0) return known;
      this.state.slots.push({ capability: spec.capability, query: spec.query, retrieved: [] });
      return this.state.slots.length - 1;
    });
    const turn = await this.send(explorationTurn(this.state.feedback, reasoning, slots));
    const searches = this.runState.searches.filter((s) => s.turn === turn.turn);
    const retrieved: string[] = [];
    // A tool two slots of this turn both found belongs to the one whose search ranked it higher ("Get a note" is
    // 1st for "get a note by id" and may be 2nd for "create a note"); tools of earlier turns keep their slot.
    const rankThisTurn = new Map<string, number>();
    searches.forEach((search, i) => {
      const index = indexes[i];
      if (index === undefined) return;
      search.results.forEach((hit, rank) => {
        this.state.slots[index]!.retrieved.push(hit.id);
        const best = rankThisTurn.get(hit.id);
        if (!this.state.tools.has(hit.id) || (best !== undefined && rank < best)) {
          this.state.tools.set(hit.id, { hit, slot: index });
          rankThisTurn.set(hit.id, rank);
        }
        retrieved.push(hit.id);
      });
    });
    const labels = await this.options.roles.critic({ state: this.state, run: this.runState, retrieved });
    for (const [id, label] of Object.entries(labels.tools)) {
      const entry = this.state.tools.get(id);
      if (entry) entry.label = label;
    }
    return labels;
  }

  /**
   * Execution or DAG-based Refine (Algorithm 2): level by level in Kahn order, the Executor infers the level's
   * arguments in one call, the level goes out as one turn (the first carrying the plan), ToolEnv binds the upstream
   * references; the Critic labels the observations once the DAG has run.
   */
  private async execute(reasoning: string, dag: DagCall[]): Promise<CriticLabels> {
    this.state.dag = dag;
    const layering = kahnLayers(dag.map((c) => ({ id: c.id, deps: dependencies(c) })));
    if (!layering.ok) throw new Error('unreachable: the DAG was validated');
    const byId = new Map(dag.map((c) => [c.id, c]));
    const cap = this.options.maxCallsPerTurn ?? DEFAULT_MAX_CALLS_PER_TURN;
    const observed: string[] = [];
    const inForce = this.runState.plan?.plan;
    let first = true;
    for (const layer of layering.layers) {
      for (let start = 0; start < layer.length && !this.finished; start += cap) {
        const level = layer.slice(start, start + cap).map((id) => byId.get(id)!);
        const args = await this.options.roles.executor({ state: this.state, level });
        const text = executionTurn({
          feedback: this.state.feedback,
          reasoning,
          dag,
          layers: layering.layers,
          level,
          args,
          first,
          inForce,
        });
        first = false;
        const turn = await this.send(text);
        for (const call of this.runState.calls.filter((c) => c.turn === turn.turn)) {
          this.state.observations.push({ ...call });
          observed.push(call.id);
        }
      }
    }
    const labels = await this.options.roles.critic({ state: this.state, run: this.runState, observed });
    for (const observation of this.state.observations) {
      const label = labels.observations[observation.id];
      if (label && observed.includes(observation.id)) observation.label = label;
    }
    return labels;
  }

  /** The DAG, or a repaired one (at most MAX_DAG_REPAIRS Planner calls); undefined when it still fails. */
  private async repaired(dag: DagCall[], record: RoundRecord, round: number): Promise<DagCall[] | undefined> {
    let current = dag;
    for (let attempt = 0; ; attempt++) {
      const errors = dagErrors(current, this.state, this.runState);
      if (errors.length === 0) return current;
      if (attempt === MAX_DAG_REPAIRS) {
        record.dag_errors = errors;
        return undefined;
      }
      record.repairs++;
      try {
        const fixed = checkPlan(
          await this.options.roles.planner({
            state: this.state,
            run: this.runState,
            round,
            repair: { dag: current, errors },
          }),
        );
        if (!fixed.dag) {
          record.dag_errors = ['the repair call answered no DAG'];
          return undefined;
        }
        current = fixed.dag;
      } catch (error) {
        if (!(error instanceof RoleError)) throw error;
        record.invalid = [...(record.invalid ?? []), error.message];
        return undefined;
      }
    }
  }

  private async send(text: string) {
    this.messages.push({ role: 'assistant', content: text });
    const result = await this.client.turn(this.episode, text, true);
    const view = result.state as RunStateView;
    await this.fetchRecords(view.surfaced);
    this.runState = fromRunStateView(view, this.records);
    if (result.rejected) this.rejectedTurns.push(result.rejected);
    if (result.done) this.finished = result.finish === 'answer' ? 'answer' : (result.finish ?? 'turn_cap');
    // Demonstrations speak the text protocols, whose turns always answer an observation.
    if (result.finish !== 'answer') this.messages.push(result.observation!);
    return result;
  }

  private async fetchRecords(ids: readonly string[]): Promise<void> {
    for (const id of ids.filter((i) => !this.records.has(i))) {
      try {
        this.records.set(id, await this.client.tool(id));
      } catch (error) {
        if (!(error instanceof ServerError)) throw error;
      }
    }
  }
}

function dependencies(call: DagCall): string[] {
  return [...new Set([...(call.depends_on ?? []), ...referencedCalls(call.arguments)])];
}

/** Structural validation of a DAG before it runs: ids, retrieved tools, known dependencies and references, no cycle. */
export function dagErrors(dag: readonly DagCall[], state: SharedState, run: RunState): string[] {
  const errors: string[] = [];
  if (dag.length === 0) errors.push('the DAG has no calls');
  const ids = new Set<string>();
  for (const call of dag) {
    if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(call.id))
      errors.push(`call id ${JSON.stringify(call.id)} is not letters, digits, _ and - starting with a letter`);
    if (ids.has(call.id)) errors.push(`call id ${call.id} appears twice`);
    ids.add(call.id);
    if (!state.tools.has(call.tool)) errors.push(`${call.id}: tool ${call.tool} was not retrieved`);
  }
  const known = new Set([...ids, ...run.results.keys()]);
  for (const call of dag) {
    for (const dep of dependencies(call))
      if (!known.has(dep))
        errors.push(`${call.id}: depends on ${dep}, which is no call of the DAG or an earlier result`);
  }
  const layering = kahnLayers(dag.map((c) => ({ id: c.id, deps: dependencies(c).filter((d) => ids.has(d)) })));
  if (!layering.ok) errors.push(`the DAG has a cycle: ${layering.cycle.join(' → ')}`);
  return errors;
}

/** The Planner's answer as the loop may use it; a malformed one is the Planner's error. */
function checkPlan(plan: PlannerOutput): PlannerOutput {
  const bad = (why: string) => new RoleError('planner', why);
  if (!MODES.includes(plan.mode)) throw bad(`mode ${JSON.stringify(plan.mode)} is none of ${MODES.join(', ')}`);
  if (plan.mode === 'exploration' && !plan.slots?.length) throw bad('an exploration round needs capability slots');
  if (plan.mode === 'execution' && !plan.dag?.length) throw bad('an execution round needs a DAG');
  if (plan.mode === 'refine' && plan.slots?.length && plan.dag?.length)
    throw bad('a refine round emits slots or a DAG, not both');
  if (plan.mode === 'answer' || plan.mode === 'execution') delete plan.slots;
  if (plan.mode === 'answer' || plan.mode === 'exploration') delete plan.dag;
  if (plan.slots?.length === 0) delete plan.slots;
  if (plan.dag?.length === 0) delete plan.dag;
  return plan;
}
