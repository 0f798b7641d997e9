import type { Action, ControllerState, Finish, Protocol, StepResult, TurnPlan, TurnRecord } from '../wire/episodes.js';
import type { Tool } from '../library/tool.js';
import { canonicalJson } from '../simulator/canonical.js';
import { checkMessage, type Checked } from './check.js';
import { foldStep, prepareDispatch } from './dispatch.js';
import { parseMessage } from './parse.js';
import type { ParsedMessage } from './protocol.js';
import { renderObservation, renderRejection } from './render.js';
import { newRunState, type RunState } from './state.js';

export interface SessionOptions {
  protocol: Protocol;
  k: number;
  maxCallsPerTurn: number;
  maxTurns: number;
  /** Characters of one rendered observation (the episode's `max_observation_chars`); none: whole. */
  maxObservationChars?: number;
  /** Runs one step of the episode (its calls and searches, recorded); the session never calls the simulator itself. */
  step(actions: Action[]): Promise<StepResult>;
  /** A surfaced tool's record, rendered into the observation. */
  tool(id: string): Tool | undefined;
  /**
   * Keeps a finished turn's record (the episode bounds its texts and packs it); the turn's answer gets the whole one.
   */
  keep(record: TurnRecord): void;
}

/** One turn's outcome: its record and whether the episode ended with it. */
export interface SessionTurn {
  record: TurnRecord;
  done: boolean;
  finish?: Finish;
}

/** The plan in force (the paper's controller): its phase and canonical text. */
interface Controller {
  phase: 'exploration' | 'execution';
  key: string;
}

/**
 * The protocol behind an episode's text turns (one implementation: the server runs it, every client only sends
 * text): each assistant message is parsed and checked against what the run has seen, its actions run as one
 * episode step (searches, or the current DAG layer with references bound), and the observation is rendered as the
 * next user message. A rejected message runs nothing and counts as a turn. Every turn is recorded with what the
 * rewards need: its form, the controller state it met, its plan, what ran and how it ended.
 */
export class ProtocolSession {
  readonly state: RunState = newRunState();
  /** Turns taken; their records go to `keep`. */
  turnCount = 0;
  finish: Finish | undefined;
  answer: string | undefined;
  private controller: Controller | undefined;
  /** Whether the last turn ran any action: a new observation the next turn may plan on. */
  private lastRan = false;

  constructor(private readonly options: SessionOptions) {}

  get done(): boolean {
    return this.finish !== undefined;
  }

  async turn(text: string): Promise<SessionTurn> {
    const state = this.state;
    const turn = this.turnCount + 1;
    state.turn = turn;
    const message = parseMessage(text);
    const checked = checkMessage(message, this.options.protocol, state);
    const accepted = checked.problems.length === 0;
    const record: TurnRecord = {
      turn,
      text,
      well_formed:
        message.form.think &&
        message.form.unclosed.length === 0 &&
        message.problems.length === 0 &&
        checked.shape.length === 0,
      controller: accepted && message.answer !== undefined ? 'answer' : this.controllerState(),
      searches: [],
      calls: [],
      not_run: [],
      observation: '',
    };
    if (message.form.plan) record.plan = this.planRecord(message, checked, accepted);

    if (!accepted) {
      state.rejected = checked.problems;
      record.rejected = checked.problems;
      record.observation = renderRejection(checked.problems);
      this.lastRan = false;
      return this.close(record, turn >= this.options.maxTurns ? 'turn_cap' : undefined);
    }
    state.rejected = undefined;
    if (message.answer !== undefined) {
      record.answer = message.answer;
      this.answer = message.answer;
      return this.close(record, 'answer');
    }

    const dispatch = prepareDispatch(message, checked, state, {
      agent: this.options.protocol,
      k: this.options.k,
      maxCallsPerTurn: this.options.maxCallsPerTurn,
    });
    let result: StepResult | undefined;
    let fresh: string[] = [];
    if (dispatch.actions.length > 0) {
      result = await this.options.step(dispatch.actions);
      record.step = result.step;
      // The step's searches and calls are the ones foldStep appends.
      const [searchesBefore, callsBefore] = [state.searches.length, state.calls.length];
      fresh = foldStep(state, dispatch, result);
      for (const id of fresh) {
        const tool = this.options.tool(id);
        if (tool) state.tools.set(id, tool);
      }
      for (const outcome of state.searches.slice(searchesBefore))
        record.searches.push({ id: outcome.id, query: outcome.query, results: outcome.results.map((hit) => hit.id) });
      for (const call of state.calls.slice(callsBefore))
        record.calls.push({
          id: call.id,
          tool: call.tool,
          status: call.status,
          ok: call.ok,
          ...(call.injected ? { injected: call.injected } : {}),
        });
    } else {
      state.notRun.push(...dispatch.notRun);
    }
    record.not_run = dispatch.notRun.map(({ id, tool, kind, reason }) => ({ id, tool, kind, reason }));
    record.observation = renderObservation(state, dispatch, result, new Set(fresh), this.options.maxObservationChars);
    if (message.plan) this.controller = { phase: message.plan.phase, key: canonicalJson(message.plan) };
    this.lastRan = dispatch.actions.length > 0;
    // On the last turn the step limit and the turn cap coincide: the cap is what ended the run.
    const finish = turn >= this.options.maxTurns ? 'turn_cap' : result?.done ? 'episode_done' : undefined;
    return this.close(record, finish);
  }

  private close(record: TurnRecord, finish: Finish | undefined): SessionTurn {
    this.turnCount++;
    this.options.keep(record);
    if (finish) this.finish = finish;
    return { record, done: this.done, ...(finish ? { finish } : {}) };
  }

  /**
   * Table 8's state before this turn: `need` with no plan in force or its DAG exhausted (an exploration plan is
   * spent by the turn that searches its slots), `may` after a turn that ran actions (new results, tools or
   * failures), `no` after one that ran nothing.
   */
  private controllerState(): ControllerState {
    const controller = this.controller;
    if (!controller || controller.phase === 'exploration') return 'need';
    const pending = [...(this.state.plan?.nodes.values() ?? [])].some((node) => node.status === 'pending');
    if (!pending) return 'need';
    return this.lastRan ? 'may' : 'no';
  }

  private planRecord(message: ParsedMessage, checked: Checked, accepted: boolean): TurnPlan {
    const plan = message.plan;
    if (!plan) return { valid: false, repeated: false, accepted: false };
    // A plan is part of ParaAct alone: under the baselines it is never a valid one.
    const valid = checked.planValid && this.options.protocol === 'paraact';
    const record: TurnPlan = {
      phase: plan.phase,
      valid,
      repeated: this.controller?.key === canonicalJson(plan),
      accepted,
    };
    if (plan.phase === 'exploration') record.slots = plan.slots.map((slot) => slot.query);
    else if (accepted && checked.plan) {
      record.tools = [...plan.tools];
      record.calls = plan.calls.map((call) => ({
        id: call.id,
        tool: call.tool,
        depends_on: checked.plan!.deps.get(call.id) ?? [],
      }));
      record.layers = checked.plan.layers.map((layer) => [...layer]);
    }
    return record;
  }
}
