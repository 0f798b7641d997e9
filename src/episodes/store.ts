import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Tool } from '../library/tool.js';
import type { ToolSimulator } from '../simulator/pipeline.js';
import { ResponderBusyError } from '../simulator/queue.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../simulator/problem.js';
import type { CallControls, CallResult } from '../simulator/types.js';
import { untouchedBodyText, withStoredBody } from '../simulator/stored-result.js';
import { STOP_SEQUENCES, systemPrompt } from '../protocol/prompts.js';
import type { ProtocolSession, SessionTurn } from '../protocol/session.js';
import { chatSystemPrompt } from '../chat/prompt.js';
import type { ChatSession } from '../chat/session.js';
import { callableFunctions } from '../chat/functions.js';
import { runStateView } from '../protocol/state.js';
import { Episode } from './episode.js';
import { EpisodeError, unknownEpisode, type FieldError } from './errors.js';
import { ItemParams, type OperationSource } from './item-params.js';
import {
  DEFAULT_EPISODE_TTL_MS,
  DEFAULT_MAX_EPISODE_BYTES,
  DEFAULT_MAX_STEPS,
  DEFAULT_SEARCH_K,
  LIVE_EPISODE_BYTES,
} from './limits.js';
import { resourceOp, type ResourceOp } from './resource-op.js';
import { searchTools, type SearchLoader } from './search.js';
import {
  MAX_NATIVE_TOOLS,
  type Action,
  type CreatedEpisode,
  type EpisodeConfig,
  type EpisodeSummary,
  type Observation,
  type SearchAction,
  type StepResult,
  type ToolCallAction,
  type ToolCallObservation,
  type Trajectory,
  type TurnRecord,
  type TurnResult,
} from '../wire/episodes.js';
import { parseConfig, parseStep, parseTurn } from './validate.js';
import type { WorldEffect } from './world.js';

/**
 * The text-turn sessions (the protocols' parsers and checks, chat's tool-call parsers), loaded by the first turn: a
 * server starts without them, and episodes that take JSON steps never need them.
 */
let sessions: Promise<{ ProtocolSession: typeof ProtocolSession; ChatSession: typeof ChatSession }> | undefined;
const textSessions = () =>
  (sessions ??= Promise.all([import('../protocol/session.js'), import('../chat/session.js')]).then(
    ([protocol, chat]) => ({ ProtocolSession: protocol.ProtocolSession, ChatSession: chat.ChatSession }),
  ));

/** What episodes need of the simulator: calls with their own injection stream, and the server's seed and error rate. */
export type EpisodeSimulator = Pick<ToolSimulator, 'call' | 'errorStream' | 'errors'>;

export interface EpisodeLibrary extends OperationSource {
  get(id: string): Tool | undefined;
  /** Every tool id (LibraryStore.ids: read once, kept): checks a config's `tools` without parsing their records. */
  ids(): readonly string[];
}

export interface EpisodeStoreOptions {
  simulator: EpisodeSimulator;
  library: EpisodeLibrary;
  /** The server's one ToolSearch, loaded on the first search. */
  search: SearchLoader;
  /** Live episodes at most (default: `maxBytes` over LIVE_EPISODE_BYTES, 65,536); creating one more is a 429. */
  maxEpisodes?: number;
  /**
   * Bytes of JSON all live episodes may hold together, trajectories and world states (default 1 GiB); past it creating
   * one more is a 429.
   */
  maxBytes?: number;
  /** Idle time after which an episode is dropped (default 30 min). */
  ttlMs?: number;
  /** The clock idle time is measured on (milliseconds); default performance.now. */
  now?: () => number;
  /** Starts every episode id (a cluster worker's `w1-`, which tells the other workers where the episode lives). */
  idPrefix?: string;
}

/** Expiry sweeps so far: how many, their time (wall clock, seconds), the last one's, and the episodes they dropped. */
export interface SweepStats {
  count: number;
  seconds: number;
  lastSeconds: number;
  /** Live episodes the last sweep visited. */
  lastVisited: number;
  expired: number;
}

/** `call`'s answer: the call's result as the episode saw it, what world state did, and the step it was recorded as. */
export type EpisodeCallResult = CallResult & { state?: WorldEffect; step: number; done: boolean };

/**
 * Bounds of the gap between expiry sweeps (the TTL, within these); an expired episode is also dropped when next asked
 * for.
 */
const MIN_SWEEP_INTERVAL_MS = 1000;
const MAX_SWEEP_INTERVAL_MS = 60_000;

/**
 * Every live episode of a server (issue #6): each with its own seed and injection stream, world state, working set,
 * counts and trajectory. The HTTP routes, MCP and the agent client all go through one instance.
 *
 * Reproducibility: an episode's injection draws depend only on its seed and on the calls it made before (three
 * numbers per call that passes the Rule layer, drawn in action order, steps one at a time); synthesized bodies
 * depend only on the server's seed, the tool and the arguments; world state depends only on the episode's own calls
 * (a step's reads see the world the step found, its writes apply in action order). So the same seed and the same
 * actions give the same observations, given the same cache contents and responders: a call answered by the
 * synthesizer the first time is written to the cache and answered from it later (same body, `source` "cache"), and
 * model responders are as deterministic as their sampling.
 */
export class EpisodeStore {
  readonly maxEpisodes: number;
  readonly maxBytes: number;
  readonly ttlMs: number;
  private readonly simulator: EpisodeSimulator;
  private readonly library: EpisodeLibrary;
  private readonly search: SearchLoader;
  private readonly now: () => number;
  private readonly idPrefix: string;
  private readonly itemParams: ItemParams;
  private readonly episodes = new Map<string, Episode>();
  /** The live episodes' bytes, kept as they change (`recount`): summing them on every create was O(live episodes). */
  private heldBytes = 0;
  /** What `heldBytes` counts for each live episode. */
  private readonly counted = new WeakMap<Episode, number>();
  private readonly timer: NodeJS.Timeout;
  /** Episodes created so far: numbers the derived seeds. */
  private created = 0;
  /** What the expiry sweeps cost so far: every live episode is visited each time, so it grows with the live count. */
  private readonly sweeps: SweepStats = { count: 0, seconds: 0, lastSeconds: 0, lastVisited: 0, expired: 0 };
  /** The library's ids as a set, rebuilt when `library.ids()` answers a new list. */
  private known: { ids: readonly string[]; set: ReadonlySet<string> } | undefined;

  constructor(options: EpisodeStoreOptions) {
    this.simulator = options.simulator;
    this.library = options.library;
    this.search = options.search;
    this.maxBytes = options.maxBytes ?? DEFAULT_MAX_EPISODE_BYTES;
    this.maxEpisodes = options.maxEpisodes ?? Math.max(1, Math.floor(this.maxBytes / LIVE_EPISODE_BYTES));
    this.ttlMs = options.ttlMs ?? DEFAULT_EPISODE_TTL_MS;
    if (!(Number.isInteger(this.maxEpisodes) && this.maxEpisodes >= 1))
      throw new RangeError(`maxEpisodes must be a positive integer, got ${this.maxEpisodes}`);
    if (!(this.maxBytes > 0)) throw new RangeError(`maxBytes must be positive, got ${this.maxBytes}`);
    if (!(this.ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${this.ttlMs}`);
    this.now = options.now ?? (() => performance.now());
    this.idPrefix = options.idPrefix ?? '';
    this.itemParams = new ItemParams(this.library);
    // unref'd: an idle store never keeps the process alive.
    this.timer = setInterval(
      () => this.sweep(),
      Math.min(Math.max(this.ttlMs, MIN_SWEEP_INTERVAL_MS), MAX_SWEEP_INTERVAL_MS),
    ).unref();
  }

  /** Live episodes. */
  get size(): number {
    return this.episodes.size;
  }

  /** Bytes of JSON the live episodes hold together (Episode.bytes), counted against `maxBytes`. */
  get bytes(): number {
    return this.heldBytes;
  }

  /**
   * Starts an episode and answers its summary with the first messages a trainer feeds the model: the protocol's
   * system prompt and the task's query. Throws EpisodeError 400 (bad config, with `errors`) or 429 (the live cap or
   * the byte budget is reached).
   */
  create(config: unknown): CreatedEpisode {
    const parsed = parseConfig(config, (id) => this.knows(id));
    return this.start(parsed);
  }

  /** Starts an episode from a parsed config (groups start theirs so, each with the group's seed). */
  start(parsed: EpisodeConfig, group?: string): CreatedEpisode {
    this.makeRoom(1);
    const seed = parsed.seed ?? derivedSeed(this.simulator.errors.seed, this.created);
    this.created++;
    const episode = new Episode({
      id: this.idPrefix + randomUUID(),
      seed,
      errorRate: parsed.error_rate ?? this.simulator.errors.errorRate,
      maxSteps: parsed.max_steps ?? DEFAULT_MAX_STEPS,
      config: parsed,
      errors: this.simulator.errorStream(seed),
      itemParam: this.itemParams.lookup,
      now: this.now(),
      ...(group ? { group } : {}),
    });
    this.episodes.set(episode.id, episode);
    this.recount(episode);
    if (episode.protocol === 'chat')
      return {
        ...episode.summary(),
        messages: firstMessages(episode),
        functions: callableFunctions(episode.k, this.nativeTools(episode)),
        stop: [],
      };
    return { ...episode.summary(), messages: firstMessages(episode), stop: [...STOP_SEQUENCES] };
  }

  /** Refuses with 429 unless `count` more episodes fit under the live cap and the byte budget. */
  makeRoom(count: number): void {
    let held = this.bytes;
    if (this.episodes.size + count > this.maxEpisodes || held >= this.maxBytes) {
      this.sweep();
      held = this.bytes;
    }
    const wait = `DELETE finished ones, or wait for idle ones to expire (${this.ttlMs / 1000} s)`;
    if (this.episodes.size + count > this.maxEpisodes) {
      const room = Math.max(0, this.maxEpisodes - this.episodes.size);
      throw new EpisodeError(
        429,
        `${this.episodes.size} episodes are live, the server's cap is ` +
          `${this.maxEpisodes}${count > 1 ? ` (room for ${room}, ${count} asked)` : ''}: ${wait}`,
      );
    }
    if (held >= this.maxBytes) {
      throw new EpisodeError(
        429,
        `the ${this.episodes.size} live episodes hold ${mib(held)} of trajectories and world state, past the ` +
          `server's ${mib(this.maxBytes)} budget for them: ${wait}`,
      );
    }
  }

  /**
   * One text turn (`POST /v1/episodes/{id}/turns`): the assistant message is parsed and checked by the episode's
   * protocol, its actions run as one step, and the next user message comes back. Throws EpisodeError 404, 409 (done,
   * or the episode already took JSON steps), 400 (a malformed body).
   */
  async turn(id: string, body: unknown): Promise<TurnResult> {
    const request = parseTurn(body);
    const { ProtocolSession, ChatSession } = await textSessions();
    const episode = this.live(id);
    if (!episode.session && episode.stepsTaken > 0) throw mixedError(episode, 'took JSON steps', 'text turns');
    const common = {
      k: episode.k,
      maxCallsPerTurn: episode.maxCallsPerTurn,
      maxTurns: episode.maxTurns,
      maxObservationChars: episode.maxObservationChars,
      step: async (actions: Action[]) => {
        const { observations, step, done } = await this.run(episode, actions);
        return { observations: observations.map((o) => o.observation), step, done };
      },
      tool: (toolId: string) => this.library.get(toolId),
      keep: (record: TurnRecord) => episode.keepTurn(record),
    };
    let result: TurnResult;
    let session: ProtocolSession | ChatSession;
    let outcome: SessionTurn;
    if (episode.protocol === 'chat') {
      const chat = (episode.session ??= new ChatSession({
        ...common,
        parser: episode.toolParser ?? 'hermes',
        given: this.nativeTools(episode),
        native: episode.nativeTools,
        ...(episode.tools ? { restricted: episode.tools } : {}),
      })) as ChatSession;
      const input = request.message ? { message: request.message } : { text: request.text! };
      const turn = await episode.turn(() => {
        if (episode.done) throw doneError(episode);
        return chat.turn(input);
      });
      result = { turn: turn.record.turn, messages: turn.messages, functions: turn.functions, done: turn.done };
      [session, outcome] = [chat, turn];
    } else {
      if (request.message)
        // A well-formed turn this episode's protocol does not take: a conflict with the episode, as turns after steps.
        throw new EpisodeError(
          409,
          '"message" is how a chat episode takes a turn; this episode speaks ' +
            `${episode.protocol}: send {"text": "<the assistant message>"}`,
          [{ path: '/message', message: 'is for protocol "chat"' }],
        );
      const text = (episode.session ??= new ProtocolSession({
        ...common,
        protocol: episode.protocol,
      })) as ProtocolSession;
      outcome = await episode.turn(() => {
        if (episode.done) throw doneError(episode);
        return text.turn(request.text!);
      });
      result = {
        turn: outcome.record.turn,
        observation: { role: 'user', content: outcome.record.observation },
        done: outcome.done,
      };
      session = text;
    }
    this.recount(episode);
    episode.lastActive = this.now();
    const { record } = outcome;
    if (outcome.finish) result.finish = outcome.finish;
    if (record.answer !== undefined) result.answer = record.answer;
    if (record.rejected) result.rejected = record.rejected;
    if (record.step !== undefined) result.step = record.step;
    if (request.state) result.state = runStateView(session.state);
    return result;
  }

  /**
   * The tools a chat episode offers as native functions from the start: its own `tools`, when few enough to list in a
   * prompt.
   */
  private nativeTools(episode: Episode): Tool[] {
    if (!episode.nativeTools || !episode.tools || episode.tools.size > MAX_NATIVE_TOOLS) return [];
    return [...episode.tools].map((id) => this.library.get(id)).filter((tool): tool is Tool => tool !== undefined);
  }

  /** The live episode itself (rewards read its turns), or undefined. */
  episode(id: string): Episode | undefined {
    return this.find(id);
  }

  /**
   * Runs one step: its actions concurrently, observations in action order. Throws EpisodeError 404 (unknown or
   * expired episode), 409 (done), 400 (malformed actions, with `errors`), 403 (a call outside the episode's tools).
   */
  async step(id: string, request: unknown, actionsPointer = '/actions'): Promise<StepResult> {
    const episode = this.live(id);
    if (episode.session) throw mixedError(episode, 'speaks text turns', 'JSON steps');
    const actions = parseStep(request, actionsPointer);
    this.checkTools(episode, actions, (i) => `${actionsPointer}/${i}/tool`);
    const { observations, step, done } = await this.run(episode, actions);
    return { observations: observations.map((o) => o.observation), step, done };
  }

  /**
   * One tool call inside an episode (MCP, the REST surface), recorded as a one-action step; the same errors as `step`.
   */
  async call(id: string, toolId: string, args: unknown, controls?: CallControls): Promise<EpisodeCallResult> {
    const episode = this.live(id);
    if (episode.session) throw mixedError(episode, 'speaks text turns', 'tool calls outside them');
    const given = args === undefined ? {} : args;
    if (given === null || typeof given !== 'object' || Array.isArray(given)) {
      throw new EpisodeError(400, 'the arguments of a call must be a JSON object', [
        { path: '/arguments', message: 'must be an object' },
      ]);
    }
    const action: ToolCallAction = { type: 'tool_call', tool: toolId, arguments: given as Record<string, unknown> };
    if (controls && Object.keys(controls).length > 0) action.controls = controls;
    this.checkTools(episode, [action], () => '/tool');
    const { observations, step, done } = await this.run(episode, [action]);
    const { result, state } = observations[0]!;
    return { ...result!, ...(state ? { state } : {}), step, done };
  }

  /** The full trajectory, or undefined for an unknown or expired episode. */
  get(id: string): Trajectory | undefined {
    const episode = this.find(id);
    return episode && { ...episode.summary(), ...episode.recorded() };
  }

  summary(id: string): EpisodeSummary | undefined {
    return this.find(id)?.summary();
  }

  /**
   * The newest `limit` episodes held (live or done, not yet deleted or expired), newest first, without touching any;
   * and how many are held.
   */
  list(limit: number): { episodes: EpisodeSummary[]; total: number } {
    const now = this.now();
    const held = [...this.episodes.values()].filter((e) => !this.expired(e, now));
    return {
      episodes: held
        .slice(-limit)
        .reverse()
        .map((e) => e.summary()),
      total: held.length,
    };
  }

  /** Whether the episode is live, without touching it (its idle time keeps counting). */
  isLive(id: string): boolean {
    const episode = this.episodes.get(id);
    return episode !== undefined && !this.expired(episode, this.now());
  }

  /**
   * `DELETE /v1/episodes/{id}`: ends the episode and answers its final summary; throws EpisodeError 404 for an unknown
   * or expired one.
   */
  end(id: string): EpisodeSummary {
    const summary = this.summary(id);
    if (!summary || !this.delete(id)) throw unknownEpisode(id, this.ttlMs);
    return { ...summary, done: true };
  }

  /** Ends an episode; false when there was none. A step still running finishes, unrecorded anywhere reachable. */
  delete(id: string): boolean {
    const episode = this.episodes.get(id);
    if (!episode) return false;
    this.drop(episode);
    return true;
  }

  /** Drops episodes idle past the TTL (not while a step runs); the timer calls it too. Returns how many went. */
  sweep(): number {
    const started = performance.now();
    const visited = this.episodes.size;
    const now = this.now();
    let dropped = 0;
    for (const episode of this.episodes.values()) {
      if (this.expired(episode, now)) {
        this.drop(episode);
        dropped++;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    this.sweeps.count++;
    this.sweeps.seconds += seconds;
    this.sweeps.lastSeconds = seconds;
    this.sweeps.lastVisited = visited;
    this.sweeps.expired += dropped;
    return dropped;
  }

  /** The sweeps' cost so far (a copy), for /metrics. */
  get sweepStats(): SweepStats {
    return { ...this.sweeps };
  }

  /** Stops the sweep timer and drops every episode. */
  close(): void {
    clearInterval(this.timer);
    this.episodes.clear();
    this.heldBytes = 0;
  }

  /** The seed the next episode without one would get (a group takes one for all its members). */
  nextSeed(): number {
    return derivedSeed(this.simulator.errors.seed, this.created++);
  }

  /** Whether the library holds the tool. */
  knows(id: string): boolean {
    const ids = this.library.ids();
    if (this.known?.ids !== ids) this.known = { ids, set: new Set(ids) };
    return this.known.set.has(id);
  }

  /**
   * Brings `heldBytes` up to date with what a live episode holds now (a step still running after a delete changes
   * nothing).
   */
  private recount(episode: Episode): void {
    if (this.episodes.get(episode.id) !== episode) return;
    const bytes = episode.bytes;
    this.heldBytes += bytes - (this.counted.get(episode) ?? 0);
    this.counted.set(episode, bytes);
  }

  private drop(episode: Episode): void {
    this.episodes.delete(episode.id);
    this.heldBytes -= this.counted.get(episode) ?? 0;
    this.counted.delete(episode);
  }

  private expired(episode: Episode, now: number): boolean {
    return !episode.busy && now - episode.lastActive > this.ttlMs;
  }

  private find(id: string): Episode | undefined {
    const episode = this.episodes.get(id);
    if (!episode) return undefined;
    const now = this.now();
    if (this.expired(episode, now)) {
      this.drop(episode);
      return undefined;
    }
    episode.lastActive = now;
    return episode;
  }

  private live(id: string): Episode {
    const episode = this.find(id);
    if (!episode) throw unknownEpisode(id, this.ttlMs);
    if (episode.done) throw doneError(episode);
    return episode;
  }

  /** 403 for calls to tools outside the episode's set; `pathOf` points at each call's tool in the caller's request. */
  private checkTools(episode: Episode, actions: Action[], pathOf: (index: number) => string): void {
    if (!episode.tools) return;
    const outside: FieldError[] = [];
    actions.forEach((action, i) => {
      if (action.type === 'tool_call' && !episode.tools!.has(action.tool))
        outside.push({ path: pathOf(i), message: `${JSON.stringify(action.tool)} is not among the episode's tools` });
    });
    if (outside.length > 0) {
      throw new EpisodeError(
        403,
        `${outside.map((e) => e.message).join('; ')} (it is restricted to ${episode.tools.size} tools)`,
        outside,
      );
    }
  }

  private run(episode: Episode, actions: Action[]): Promise<{ observations: Acted[]; step: number; done: boolean }> {
    const arrived = new Date().toISOString();
    return episode.exclusive(
      async (step) => {
        const started = performance.now();
        const acted = await this.act(episode, actions);
        const observations = acted.map((a) => a.observation);
        episode.record(step, arrived, Math.round((performance.now() - started) * 1000) / 1000, actions, observations);
        this.recount(episode);
        episode.lastActive = this.now();
        return { observations: acted, step, done: episode.done };
      },
      () => doneError(episode),
    );
  }

  /**
   * Starts every action at once, in action order: each call reads its injection draws synchronously as it starts,
   * so the draws follow action order however the calls then interleave. Once all have answered, world state acts:
   * reads (item reads and lists) see the world as the step found it, then writes apply in action order — a ParaAct
   * layer holds independent calls, so none of them sees another's effect. An action that fails unexpectedly
   * observes a 500 problem, so every numbered step is recorded whole.
   */
  private async act(episode: Episode, actions: Action[]): Promise<Acted[]> {
    const answered = await Promise.all(
      actions.map((action) =>
        action.type === 'search_tool' ? this.searchAction(episode, action) : this.callAction(episode, action),
      ),
    );
    const acted: Acted[] = new Array<Acted>(answered.length);
    const writes: number[] = [];
    answered.forEach((answer, index) => {
      if ('observation' in answer) acted[index] = answer;
      else if (answer.op?.kind === 'read' || answer.op?.kind === 'list') acted[index] = this.observe(episode, answer);
      else writes.push(index);
    });
    for (const index of writes) acted[index] = this.observe(episode, answered[index] as AnsweredCall);
    return acted;
  }

  private async callAction(episode: Episode, action: ToolCallAction): Promise<AnsweredCall> {
    const result = await this.simulator
      .call(action.tool, action.arguments, {
        controls: action.controls,
        errors: episode.errors,
        errorRate: episode.errorRate,
      })
      .catch(failedCall);
    return { action, result, op: this.resourceOp(action, result) };
  }

  private async searchAction(episode: Episode, action: SearchAction): Promise<Acted> {
    const head = {
      type: 'search_tool' as const,
      ...(action.id === undefined ? {} : { id: action.id }),
      query: action.query,
    };
    try {
      const results = await searchTools(
        await this.search(),
        this.library,
        action.query,
        action.k ?? DEFAULT_SEARCH_K,
        episode.tools,
      );
      return { observation: { ...head, results } };
    } catch (error) {
      return {
        observation: {
          ...head,
          results: [],
          problem: problem(500, 'Search failed', `the search failed: ${message(error)}`),
        },
      };
    }
  }

  /**
   * What a call does to the world, for answers the simulated API gave: not Rule-layer refusals, injected errors,
   * forced examples, or forced codes other than the tool's success status (`Prefer: code=200` on a 200 tool only
   * suppresses injection; the answer is the simulated one).
   */
  private resourceOp(action: ToolCallAction, result: CallResult): ResourceOp | undefined {
    if (result.source === 'rule' || result.error || action.controls?.example !== undefined) return undefined;
    const tool = this.library.get(action.tool);
    if (!tool) return undefined;
    const code = action.controls?.code;
    if (code !== undefined && code !== (tool.response_status ?? 200)) return undefined;
    return resourceOp(tool, action.arguments);
  }

  private observe(episode: Episode, { action, result: answered, op }: AnsweredCall): Acted {
    let result = answered;
    let state: WorldEffect | undefined;
    if (op) {
      try {
        ({ result, state } = episode.world.apply(op, result));
      } catch (error) {
        result = failure('World state failed', `world state failed on this call: ${message(error)}`);
      }
    }
    // A cached body nobody has read stays its stored text: the step's answer and the trajectory's byte count use the
    // text as is, and it is parsed only if something reads it (a reference, the trajectory served later).
    const text = untouchedBodyText(result);
    const head =
      action.id === undefined
        ? { type: 'tool_call' as const, tool: action.tool, status: result.status }
        : { type: 'tool_call' as const, id: action.id, tool: action.tool, status: result.status };
    // The body is added in its place among the keys, before the rest: defining a new member is V8's fast case.
    const observation: ToolCallObservation =
      text === undefined
        ? { ...head, body: result.body, source: result.source }
        : Object.assign(withStoredBody(head, text), { source: result.source });
    if (result.error) observation.error = result.error;
    if (Object.keys(result.headers).length > 0) observation.headers = result.headers;
    if (state) observation.state = state;
    if (result.coerced) observation.coerced = result.coerced;
    if (result.ignored) observation.ignored = result.ignored;
    return { observation, result, state };
  }
}

interface Acted {
  observation: Observation;
  result?: CallResult;
  state?: WorldEffect;
}

/** A call the simulator answered, with what it would do to the world. */
interface AnsweredCall {
  action: ToolCallAction;
  result: CallResult;
  op?: ResourceOp;
}

function doneError(episode: Episode): EpisodeError {
  const session = episode.session;
  if (session?.finish === 'answer')
    return new EpisodeError(409, `episode ${episode.id} is done: it answered on turn ${session.turnCount}`);
  if (session?.finish === 'turn_cap')
    return new EpisodeError(409, `episode ${episode.id} is done: it has taken all ${episode.maxTurns} of its turns`);
  return new EpisodeError(409, `episode ${episode.id} is done: it has taken all ${episode.maxSteps} of its steps`);
}

/** An episode speaks text turns or JSON steps: the protocol's state would not see actions taken past it. */
function mixedError(episode: Episode, has: string, refused: string): EpisodeError {
  return new EpisodeError(
    409,
    `episode ${episode.id} ${has}: it takes no ${refused} (the ` +
      "protocol's state would not see them); start another episode",
    undefined,
    'Episode protocol conflict',
  );
}

/** The protocol's system prompt and the task's query: what a trainer feeds the model first. */
function firstMessages(episode: Episode): CreatedEpisode['messages'] {
  const limits = { maxTurns: episode.maxTurns, maxCallsPerTurn: episode.maxCallsPerTurn, k: episode.k };
  const system =
    episode.protocol === 'chat'
      ? chatSystemPrompt(limits, episode.systemPrompt, episode.nativeTools)
      : systemPrompt(episode.protocol, limits, episode.systemPrompt);
  return [
    { role: 'system', content: system },
    ...(episode.task ? [{ role: 'user' as const, content: episode.task.query }] : []),
  ];
}

/**
 * What a call observes when answering it failed: a full model queue is the simulator's overload, a 503 with
 * Retry-After; anything else a 500 problem naming the failure.
 */
function failedCall(error: unknown): CallResult {
  if (!(error instanceof ResponderBusyError))
    return failure('Simulator failed', `the call failed inside the simulator: ${message(error)}`);
  const body = problem(503, 'Simulator busy', error.message);
  return {
    status: 503,
    body,
    source: 'rule',
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, 'retry-after': String(error.retryAfterSeconds) },
  };
}

function failure(title: string, detail: string): CallResult {
  return {
    status: 500,
    body: problem(500, title, detail),
    source: 'rule',
    headers: { 'content-type': PROBLEM_CONTENT_TYPE },
  };
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/**
 * A seed for the n-th episode of a server, from the seed of its injection stream (the server's --seed, or a worker's
 * own): reported in the summary, so any episode can be replayed.
 */
function derivedSeed(serverSeed: number, n: number): number {
  let z =
    (Math.imul(serverSeed >>> 0, 0x9e3779b9) ^ Math.imul(Math.floor(serverSeed / 2 ** 32) >>> 0, 0x85ebca6b)) +
    Math.imul(n + 1, 0x9e3779b9);
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}
