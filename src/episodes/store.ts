import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Tool } from '../library/tool.js';
import type { ToolSimulator } from '../simulator/pipeline.js';
import { ResponderBusyError } from '../simulator/queue.js';
import { PROBLEM_CONTENT_TYPE, problem } from '../simulator/problem.js';
import type { CallControls, CallResult } from '../simulator/types.js';
import { Episode } from './episode.js';
import { EpisodeError, unknownEpisode, type FieldError } from './errors.js';
import { ItemParams, type OperationSource } from './item-params.js';
import { DEFAULT_EPISODE_TTL_MS, DEFAULT_MAX_EPISODES, DEFAULT_MAX_STEPS, DEFAULT_SEARCH_K } from './limits.js';
import { resourceOp } from './resource-op.js';
import { searchTools, type SearchLoader } from './search.js';
import type { Action, EpisodeSummary, Observation, SearchAction, StepResult, ToolCallAction, Trajectory } from './types.js';
import { parseConfig, parseStep } from './validate.js';
import type { WorldEffect } from './world.js';

/** What episodes need of the simulator: calls with their own injection stream, and the server's seed and error rate. */
export type EpisodeSimulator = Pick<ToolSimulator, 'call' | 'errorStream' | 'errors' | 'seed'>;

export interface EpisodeLibrary extends OperationSource {
  get(id: string): Tool | undefined;
}

export interface EpisodeStoreOptions {
  simulator: EpisodeSimulator;
  library: EpisodeLibrary;
  /** The server's one ToolSearch, loaded on the first search. */
  search: SearchLoader;
  /** Live episodes at most (default 10,000); creating one more is a 429. */
  maxEpisodes?: number;
  /** Idle time after which an episode is dropped (default 30 min). */
  ttlMs?: number;
  /** The clock idle time is measured on (milliseconds); default performance.now. */
  now?: () => number;
}

/** `call`'s answer: the call's result as the episode saw it, what world state did, and the step it was recorded as. */
export type EpisodeCallResult = CallResult & { state?: WorldEffect; step: number; done: boolean };

/** Bounds of the gap between expiry sweeps (the TTL, within these); an expired episode is also dropped when next asked for. */
const MIN_SWEEP_INTERVAL_MS = 1000;
const MAX_SWEEP_INTERVAL_MS = 60_000;

/**
 * Every live episode of a server (issue #6): each with its own seed and injection stream, world state, working set,
 * counts and trajectory. The HTTP routes, MCP and the agent client all go through one instance.
 *
 * Reproducibility: an episode's injection draws depend only on its seed and on the calls it made before (three
 * numbers per call that passes the Rule layer, drawn in action order, steps one at a time); synthesized bodies
 * depend only on the server's seed, the tool and the arguments; world state depends only on the episode's own calls,
 * applied in action order. So the same seed and the same actions give the same observations, given the same cache
 * contents and responders: a call answered by the synthesizer the first time is written to the cache and answered
 * from it later (same body, `source` "cache"), and model responders are as deterministic as their sampling.
 */
export class EpisodeStore {
  readonly maxEpisodes: number;
  readonly ttlMs: number;
  private readonly simulator: EpisodeSimulator;
  private readonly library: EpisodeLibrary;
  private readonly search: SearchLoader;
  private readonly now: () => number;
  private readonly itemParams: ItemParams;
  private readonly episodes = new Map<string, Episode>();
  private readonly timer: NodeJS.Timeout;
  /** Episodes created so far: numbers the derived seeds. */
  private created = 0;

  constructor(options: EpisodeStoreOptions) {
    this.simulator = options.simulator;
    this.library = options.library;
    this.search = options.search;
    this.maxEpisodes = options.maxEpisodes ?? DEFAULT_MAX_EPISODES;
    this.ttlMs = options.ttlMs ?? DEFAULT_EPISODE_TTL_MS;
    if (!(Number.isInteger(this.maxEpisodes) && this.maxEpisodes >= 1)) throw new RangeError(`maxEpisodes must be a positive integer, got ${this.maxEpisodes}`);
    if (!(this.ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${this.ttlMs}`);
    this.now = options.now ?? (() => performance.now());
    this.itemParams = new ItemParams(this.library);
    // unref'd: an idle store never keeps the process alive.
    this.timer = setInterval(() => this.sweep(), Math.min(Math.max(this.ttlMs, MIN_SWEEP_INTERVAL_MS), MAX_SWEEP_INTERVAL_MS)).unref();
  }

  /** Live episodes. */
  get size(): number {
    return this.episodes.size;
  }

  /** Starts an episode. Throws EpisodeError 400 (bad config, with `errors`) or 429 (the live cap is reached). */
  create(config: unknown): EpisodeSummary {
    const parsed = parseConfig(config, (id) => this.library.get(id) !== undefined);
    if (this.episodes.size >= this.maxEpisodes) this.sweep();
    if (this.episodes.size >= this.maxEpisodes) {
      throw new EpisodeError(429, `${this.maxEpisodes} episodes are live, the server's cap: DELETE finished ones, or wait for idle ones to expire (${this.ttlMs / 1000} s)`);
    }
    const seed = parsed.seed ?? derivedSeed(this.simulator.seed, this.created);
    this.created++;
    const episode = new Episode({
      id: randomUUID(),
      seed,
      errorRate: parsed.error_rate ?? this.simulator.errors.errorRate,
      maxSteps: parsed.max_steps ?? DEFAULT_MAX_STEPS,
      config: parsed,
      errors: this.simulator.errorStream(seed),
      itemParam: this.itemParams.lookup,
      now: this.now(),
    });
    this.episodes.set(episode.id, episode);
    return episode.summary();
  }

  /**
   * Runs one step: its actions concurrently, observations in action order. Throws EpisodeError 404 (unknown or
   * expired episode), 409 (done), 400 (malformed actions, with `errors`), 403 (a call outside the episode's tools).
   */
  async step(id: string, request: unknown): Promise<StepResult> {
    const episode = this.live(id);
    const actions = parseStep(request);
    this.checkTools(episode, actions);
    const { observations, step, done } = await this.run(episode, actions);
    return { observations: observations.map((o) => o.observation), step, done };
  }

  /** One tool call inside an episode (MCP, the REST surface), recorded as a one-action step; the same errors as `step`. */
  async call(id: string, toolId: string, args: unknown, controls?: CallControls): Promise<EpisodeCallResult> {
    const episode = this.live(id);
    const given = args === undefined ? {} : args;
    if (given === null || typeof given !== 'object' || Array.isArray(given)) {
      throw new EpisodeError(400, 'the arguments of a call must be a JSON object', [{ path: '/arguments', message: 'must be an object' }]);
    }
    const action: ToolCallAction = { type: 'tool_call', tool: toolId, arguments: given as Record<string, unknown> };
    if (controls && Object.keys(controls).length > 0) action.controls = controls;
    this.checkTools(episode, [action]);
    const { observations, step, done } = await this.run(episode, [action]);
    const { result, state } = observations[0]!;
    return { ...result!, ...(state ? { state } : {}), step, done };
  }

  /** The full trajectory, or undefined for an unknown or expired episode. */
  get(id: string): Trajectory | undefined {
    const episode = this.find(id);
    return episode && { ...episode.summary(), steps: [...episode.trajectorySteps()] };
  }

  summary(id: string): EpisodeSummary | undefined {
    return this.find(id)?.summary();
  }

  /** Ends an episode; false when there was none. A step still running finishes, unrecorded anywhere reachable. */
  delete(id: string): boolean {
    return this.episodes.delete(id);
  }

  /** Drops episodes idle past the TTL (not while a step runs); the timer calls it too. Returns how many went. */
  sweep(): number {
    const now = this.now();
    let dropped = 0;
    for (const [id, episode] of this.episodes) {
      if (this.expired(episode, now)) {
        this.episodes.delete(id);
        dropped++;
      }
    }
    return dropped;
  }

  /** Stops the sweep timer and drops every episode. */
  close(): void {
    clearInterval(this.timer);
    this.episodes.clear();
  }

  private expired(episode: Episode, now: number): boolean {
    return !episode.busy && now - episode.lastActive > this.ttlMs;
  }

  private find(id: string): Episode | undefined {
    const episode = this.episodes.get(id);
    if (!episode) return undefined;
    const now = this.now();
    if (this.expired(episode, now)) {
      this.episodes.delete(id);
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

  private checkTools(episode: Episode, actions: Action[]): void {
    if (!episode.tools) return;
    const outside: FieldError[] = [];
    actions.forEach((action, i) => {
      if (action.type === 'tool_call' && !episode.tools!.has(action.tool)) outside.push({ path: `/actions/${i}/tool`, message: `${JSON.stringify(action.tool)} is not among the episode's tools` });
    });
    if (outside.length > 0) {
      throw new EpisodeError(403, `${outside.map((e) => e.message).join('; ')} (it is restricted to ${episode.tools.size} tools)`, outside);
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
        episode.lastActive = this.now();
        return { observations: acted, step, done: episode.done };
      },
      () => doneError(episode),
    );
  }

  /**
   * Starts every action at once, in action order: each call reads its injection draws synchronously as it starts,
   * so the draws follow action order however the calls then interleave. World state is applied in action order too,
   * each call waiting for the one before it: actions of one step are independent (ParaAct's parallel layer), and a
   * read does not see a write of the same step.
   */
  private act(episode: Episode, actions: Action[]): Promise<Acted[]> {
    let turn: Promise<unknown> = Promise.resolve();
    return Promise.all(
      actions.map((action) => {
        if (action.type === 'search_tool') return this.searchAction(episode, action);
        const raw = this.simulator.call(action.tool, action.arguments, { controls: action.controls, errors: episode.errors, errorRate: episode.errorRate }).catch(busy);
        const acted = Promise.all([raw, turn]).then(([result]) => this.applyWorld(episode, action, result));
        turn = acted;
        return acted;
      }),
    );
  }

  private async searchAction(episode: Episode, action: SearchAction): Promise<Acted> {
    const results = await searchTools(await this.search(), this.library, action.query, action.k ?? DEFAULT_SEARCH_K, episode.tools);
    return { observation: { type: 'search_tool', ...(action.id === undefined ? {} : { id: action.id }), query: action.query, results } };
  }

  private applyWorld(episode: Episode, action: ToolCallAction, answered: CallResult): Acted {
    let result = answered;
    let state: WorldEffect | undefined;
    // Only answers the simulated API gave: not Rule-layer refusals, injected errors, or forced codes and examples.
    const simulated = result.source !== 'rule' && !result.error && action.controls?.code === undefined && action.controls?.example === undefined;
    if (simulated) {
      const tool = this.library.get(action.tool);
      const op = tool && resourceOp(tool, action.arguments);
      if (op) ({ result, state } = episode.world.apply(op, result));
    }
    const observation: Observation = {
      type: 'tool_call',
      ...(action.id === undefined ? {} : { id: action.id }),
      tool: action.tool,
      status: result.status,
      body: result.body,
      source: result.source,
      ...(result.error ? { error: result.error } : {}),
      ...(Object.keys(result.headers).length > 0 ? { headers: result.headers } : {}),
      ...(state ? { state } : {}),
    };
    return { observation, result, state };
  }
}

interface Acted {
  observation: Observation;
  result?: CallResult;
  state?: WorldEffect;
}

function doneError(episode: Episode): EpisodeError {
  return new EpisodeError(409, `episode ${episode.id} is done: it has taken all ${episode.maxSteps} of its steps`);
}

/** A full model queue is the simulator's overload: inside an episode the call observes it as a 503 with Retry-After. */
function busy(error: unknown): CallResult {
  if (!(error instanceof ResponderBusyError)) throw error;
  const seconds = String(error.retryAfterSeconds);
  return {
    status: 503,
    body: problem(503, 'Simulator busy', error.message),
    source: 'rule',
    headers: { 'content-type': PROBLEM_CONTENT_TYPE, 'retry-after': seconds },
  };
}

/** A seed for the n-th episode of a server, from the server's seed: reported in the summary, so any episode can be replayed. */
function derivedSeed(serverSeed: number, n: number): number {
  let z = (Math.imul(serverSeed >>> 0, 0x9e3779b9) ^ Math.imul(Math.floor(serverSeed / 2 ** 32) >>> 0, 0x85ebca6b)) + Math.imul(n + 1, 0x9e3779b9);
  z = Math.imul(z ^ (z >>> 16), 0x21f0aaad);
  z = Math.imul(z ^ (z >>> 15), 0x735a2d97);
  return (z ^ (z >>> 15)) >>> 0;
}
