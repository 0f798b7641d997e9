import { DEFAULT_K, DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS } from '../protocol/protocol.js';
import type { ChatSession } from '../chat/session.js';
import type { ProtocolSession, SessionTurn } from '../protocol/session.js';
import type { JudgeOutcome } from '../rl/judge.js';
import type { RewardCoefficients } from '../wire/rewards.js';
import type { ErrorStream } from '../simulator/inject.js';
import {
  EPISODE_BODY_BUDGET,
  MAX_STORED_BODY_BYTES,
  TRUNCATED_PREVIEW_CHARS,
  TURN_TEXT_BUDGET,
  WORLD_BUDGET,
} from './limits.js';
import type {
  Action,
  EpisodeConfig,
  EpisodeCounts,
  EpisodeProtocol,
  EpisodeSummary,
  EpisodeTask,
  Observation,
  SystemPromptStyle,
  ToolParser,
  TrajectoryStep,
  TruncatedToolCallAction,
  TurnRecord,
} from '../wire/episodes.js';
import { stateVerifier, type StateVerifier } from './state-checks.js';
import { WorldState, type ItemParamLookup } from './world.js';
import { untouchedBodyText } from '../simulator/stored-result.js';
import { PackedTrajectory } from './packed-trajectory.js';
import { jsonWithMember } from './step-json.js';

/**
 * What a queue's tail settles to: nothing, so that the tail does not hold the last step's or turn's result (its
 * observations and record: about 3 KiB an episode) for as long as the episode lives.
 */
const settled = (): undefined => undefined;

export interface EpisodeInit {
  id: string;
  seed: number;
  errorRate: number;
  maxSteps: number;
  config: EpisodeConfig;
  errors: ErrorStream;
  itemParam: ItemParamLookup;
  now: number;
  /** The group the episode was made for. */
  group?: string;
}

/**
 * One episode's state: its seed and injection stream, world, working set, counts and trajectory. Steps are run one
 * at a time through `exclusive`, so step numbers, injection draws and world changes follow the order steps arrived.
 * The trajectory keeps call arguments, observation bodies and search results whole while they fit
 * EPISODE_BODY_BUDGET, and previews of them past it, so what an episode holds stays bounded whatever clients send;
 * finished steps and turns are kept packed (PackedTrajectory).
 */
export class Episode {
  readonly id: string;
  readonly seed: number;
  readonly errorRate: number;
  readonly maxSteps: number;
  readonly task: EpisodeTask | undefined;
  /** The tool ids the episode is restricted to, when it is. */
  readonly tools: ReadonlySet<string> | undefined;
  readonly createdAt: string;
  readonly errors: ErrorStream;
  readonly world: WorldState;
  readonly protocol: EpisodeProtocol;
  /** `chat` episodes: how a turn given as raw text is read. */
  readonly toolParser: ToolParser | undefined;
  /** `chat` episodes: whether found tools become native functions. */
  readonly nativeTools: boolean;
  readonly k: number;
  readonly maxCallsPerTurn: number;
  readonly maxTurns: number;
  readonly maxObservationChars: number | undefined;
  readonly systemPrompt: SystemPromptStyle;
  readonly reward: Partial<RewardCoefficients> | undefined;
  readonly group: string | undefined;
  /** Clock reading of the last request that touched the episode: idle expiry counts from it. */
  lastActive: number;
  /** The turns' protocol, from the first turn on; an episode speaks turns or JSON steps, never both. */
  session: ProtocolSession | ChatSession | undefined;
  /** Memoized judge outcomes of the finished episode, by judge name (the same episode always scores the same). */
  readonly judged = new Map<string, Promise<JudgeOutcome & { rejudged?: boolean }>>();
  /** The task's `expect` assertions, read against the world by `summary()`. */
  private readonly verify: StateVerifier | undefined;
  private readonly workingSet = new Set<string>();
  private readonly counts: EpisodeCounts = {
    turns: 0,
    steps: 0,
    actions: 0,
    searches: 0,
    calls: 0,
    failed_calls: 0,
    injected_errors: 0,
  };
  private readonly packed = new PackedTrajectory();
  /** Steps started, finished or not: the next step's number is one more. */
  private started = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private turnQueue: Promise<unknown> = Promise.resolve();
  /** Steps queued or running. */
  private pending = 0;
  /**
   * Bytes of arguments, bodies and search results (whole or previews) the trajectory keeps: EPISODE_BODY_BUDGET bounds
   * it.
   */
  private keptBytes = 0;
  /** Bytes of JSON of the recorded steps and turns and the working set. */
  private heldBytes = 0;
  /** Bytes of turn texts and observations the record keeps whole: TURN_TEXT_BUDGET bounds it. */
  private turnTextBytes = 0;

  constructor(init: EpisodeInit) {
    this.id = init.id;
    this.seed = init.seed;
    this.errorRate = init.errorRate;
    this.maxSteps = init.maxSteps;
    this.task = init.config.task;
    this.tools = init.config.tools ? new Set(init.config.tools) : undefined;
    this.createdAt = new Date().toISOString();
    this.errors = init.errors;
    this.world = new WorldState(init.itemParam, WORLD_BUDGET);
    this.verify = this.task?.expect ? stateVerifier(this.task.expect) : undefined;
    this.lastActive = init.now;
    this.protocol = init.config.protocol ?? 'paraact';
    this.toolParser = this.protocol === 'chat' ? (init.config.tool_parser ?? 'hermes') : undefined;
    this.nativeTools = init.config.native_tools ?? true;
    this.k = init.config.k ?? DEFAULT_K;
    this.maxCallsPerTurn = init.config.max_calls_per_turn ?? DEFAULT_MAX_CALLS_PER_TURN;
    this.maxTurns = init.config.max_turns ?? DEFAULT_MAX_TURNS;
    this.maxObservationChars = init.config.max_observation_chars;
    this.systemPrompt = init.config.system_prompt ?? 'full';
    this.reward = init.config.reward;
    this.group = init.group;
  }

  /** Whether every step has been taken (a step still running counts), or the text turns have ended. */
  get done(): boolean {
    return this.started >= this.maxSteps || this.session?.done === true;
  }

  /** Steps taken so far (JSON steps, calls, or a text turn's actions). */
  get stepsTaken(): number {
    return this.started;
  }

  /** Runs one text turn after the ones before it have finished, and records it. */
  turn<T extends SessionTurn>(task: () => Promise<T>): Promise<T> {
    this.pending++;
    const run = this.turnQueue
      .then(task)
      .then((outcome) => {
        this.counts.turns++;
        return outcome;
      })
      .finally(() => this.pending--);
    this.turnQueue = run.then(settled, settled);
    return run;
  }

  /**
   * Keeps a finished turn's record: its text and observation whole while they fit TURN_TEXT_BUDGET, previews past it.
   */
  keepTurn(record: TurnRecord): void {
    const stored = { ...record };
    for (const member of ['text', 'observation'] as const) {
      const bytes = Buffer.byteLength(record[member]);
      if (this.turnTextBytes + bytes <= TURN_TEXT_BUDGET) {
        this.turnTextBytes += bytes;
        continue;
      }
      const room = Math.max(0, Math.min(TRUNCATED_PREVIEW_CHARS, TURN_TEXT_BUDGET - this.turnTextBytes));
      stored[member] = Buffer.from(record[member].slice(0, room)).toString();
      stored[`${member}_truncated`] = bytes;
      this.turnTextBytes += Buffer.byteLength(stored[member]);
    }
    const json = JSON.stringify(stored);
    this.heldBytes += Buffer.byteLength(json);
    this.packed.addTurn(json);
  }

  /** The steps and text turns recorded so far, in order: read back from their packs, new objects every time. */
  recorded(): { steps: TrajectoryStep[]; turns: TurnRecord[] } {
    return this.packed.read();
  }

  /** Whether a step is queued or running: idle expiry waits for it. */
  get busy(): boolean {
    return this.pending > 0;
  }

  /**
   * Runs `task` once every step before it has finished, with the new step's number; when the episode is done by
   * then, rejects with `doneError()` instead.
   */
  exclusive<T>(task: (step: number) => Promise<T>, doneError: () => Error): Promise<T> {
    this.pending++;
    const run = this.queue
      .then(() => {
        if (this.done) throw doneError();
        return task(++this.started);
      })
      .finally(() => this.pending--);
    this.queue = run.then(settled, settled);
    return run;
  }

  /**
   * What the episode holds, in bytes of JSON: its recorded steps, working set and world. The store's budget adds these
   * up.
   */
  get bytes(): number {
    return this.heldBytes + this.world.bytes;
  }

  /** Records a finished step; arguments, bodies and search results past the size limits are stored as previews. */
  record(step: number, startedAt: string, wallMs: number, actions: Action[], observations: Observation[]): void {
    this.counts.steps++;
    this.counts.actions += actions.length;
    for (const observation of observations) {
      if (observation.type === 'search_tool') {
        this.counts.searches++;
        for (const { id } of observation.results) {
          if (this.workingSet.has(id)) continue;
          this.workingSet.add(id);
          this.heldBytes += Buffer.byteLength(id) + 3; // as JSON in the summary: quotes and a comma
        }
        continue;
      }
      this.counts.calls++;
      if (observation.status >= 400) this.counts.failed_calls++;
      if (observation.error) this.counts.injected_errors++;
    }
    // Written as JSON member by member, in the order a TrajectoryStep's members have: each kept part is serialized
    // once, and a cached body's stored text is written as it is. Action by action, as the budget is spent.
    const kept: [string[], string[]] = [[], []];
    actions.forEach((action, i) => {
      kept[0].push(this.storedAction(action));
      kept[1].push(this.storedObservation(observations[i]!));
    });
    const json =
      `{"step":${step},"started_at":${JSON.stringify(startedAt)},"wall_ms":${JSON.stringify(wallMs)},` +
      `"actions":[${kept[0].join(',')}],"observations":[${kept[1].join(',')}]}`;
    this.heldBytes += Buffer.byteLength(json);
    // A text turn's step is packed with the turn's record, which renders its results.
    this.packed.addStep(json, this.session === undefined);
  }

  /** An action as the trajectory keeps it, as JSON. */
  private storedAction(action: Action): string {
    if (action.type !== 'tool_call') return JSON.stringify(action);
    const kept = this.keep(JSON.stringify(action.arguments));
    if (kept.whole) return jsonWithMember(action, 'arguments', kept.text);
    const value: TruncatedToolCallAction = {
      ...action,
      arguments: {},
      truncated: kept.bytes,
      arguments_preview: kept.preview,
    };
    return JSON.stringify(value);
  }

  /** An observation as the trajectory keeps it, as JSON; a body is never read (parsed) to write it. */
  private storedObservation(observation: Observation): string {
    if (observation.type === 'search_tool') {
      if (observation.results.length === 0) return JSON.stringify(observation);
      const kept = this.keep(JSON.stringify(observation.results));
      if (kept.whole) return jsonWithMember(observation, 'results', kept.text);
      return JSON.stringify({ ...observation, results: [], truncated: kept.bytes, results_preview: kept.preview });
    }
    const text =
      untouchedBodyText(observation) ?? (observation.body === undefined ? undefined : JSON.stringify(observation.body));
    if (text === undefined) return JSON.stringify(observation);
    const kept = this.keep(text);
    if (kept.whole) return jsonWithMember(observation, 'body', kept.text);
    const value: Record<string, unknown> = {};
    for (const key in observation)
      value[key] = key === 'body' ? kept.preview : observation[key as keyof typeof observation];
    value.truncated = kept.bytes;
    return JSON.stringify(value);
  }

  /**
   * Counts a member's JSON `text` against the episode's budget: kept whole when it fits, else the preview the
   * trajectory keeps instead (what is left of the budget, at most TRUNCATED_PREVIEW_CHARS); `bytes` is its full size.
   */
  private keep(text: string): { whole: true; text: string } | { whole: false; preview: string; bytes: number } {
    const bytes = Buffer.byteLength(text);
    if (bytes <= MAX_STORED_BODY_BYTES && this.keptBytes + bytes <= EPISODE_BODY_BUDGET) {
      this.keptBytes += bytes;
      return { whole: true, text };
    }
    const room = Math.max(0, Math.min(TRUNCATED_PREVIEW_CHARS, EPISODE_BODY_BUDGET - this.keptBytes));
    // Re-encoded, not sliced: V8 keeps a slice's whole parent string alive, which here is the full JSON.
    const preview = Buffer.from(text.slice(0, room)).toString();
    this.keptBytes += Buffer.byteLength(preview);
    return { whole: false, preview, bytes };
  }

  summary(): EpisodeSummary {
    return {
      id: this.id,
      seed: this.seed,
      error_rate: this.errorRate,
      max_steps: this.maxSteps,
      protocol: this.protocol,
      ...(this.toolParser ? { tool_parser: this.toolParser } : {}),
      ...(this.toolParser && !this.nativeTools ? { native_tools: false as const } : {}),
      k: this.k,
      max_calls_per_turn: this.maxCallsPerTurn,
      max_turns: this.maxTurns,
      ...(this.maxObservationChars !== undefined ? { max_observation_chars: this.maxObservationChars } : {}),
      ...(this.systemPrompt !== 'full' ? { system_prompt: this.systemPrompt } : {}),
      ...(this.session?.finish ? { finish: this.session.finish } : {}),
      ...(this.session?.answer !== undefined ? { answer: this.session.answer } : {}),
      ...(this.reward ? { reward: this.reward } : {}),
      ...(this.group ? { group: this.group } : {}),
      ...(this.task ? { task: this.task } : {}),
      ...(this.tools ? { tools: [...this.tools] } : {}),
      created_at: this.createdAt,
      done: this.done,
      working_set: [...this.workingSet],
      counts: { ...this.counts },
      ...(this.verify ? { state_checks: this.verify(this.world) } : {}),
    };
  }
}
