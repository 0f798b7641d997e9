import { invalidRequest, unknownEpisode } from '../../episodes/errors.js';
import { isRecord } from '../../episodes/resource-body.js';
import { episodeRewards, type RewardContext } from '../../episodes/rewards.js';
import type { EpisodeStore } from '../../episodes/store.js';
import type { CreatedEpisode, EpisodeConfig, EpisodeTask, Finish } from '../../wire/episodes.js';
import { Checker, parseConfig } from '../../episodes/validate.js';

/** What reset and step answer (OpenEnv's serialized observation): the reward is null until the episode is done. */
export interface OpenEnvResult<O> {
  observation: O;
  reward: number | null;
  done: boolean;
}

/** The observation of a reset: the episode, and the first messages a trainer feeds the model. */
export interface ResetObservation {
  episode_id: string;
  turn: 0;
  /** The task's query: the first user message. */
  content: string;
  messages: CreatedEpisode['messages'];
  stop: string[];
  done: false;
}

/** The observation of a step: one text turn's next user message and how the episode stands. */
export interface StepObservation {
  episode_id: string;
  turn: number;
  content: string;
  done: boolean;
  finish?: Finish;
  answer?: string;
  rejected?: string[];
  /** Once done: the episode's rewards (null ones, and `flagged`, when R_ans could not be scored). */
  rewards?: {
    r_step: number | null;
    r_phase: number | null;
    r_traj: number | null;
    r_ans: number | null;
    flagged?: string;
  };
  /** Once done, when the rewards could not be computed at all. */
  reward_error?: string;
}

/** OpenEnv's State: `step_count` counts text turns. `episode_id` is null in a session that has not reset yet. */
export interface OpenEnvState {
  episode_id: string | null;
  step_count: number;
  done: boolean;
  task?: EpisodeTask;
}

/** OpenEnv caps a client-chosen episode id at this length (accepted, not honored: the store names episodes). */
const MAX_EPISODE_ID = 255;

/**
 * OpenEnv's environment contract (reset, step, state) on ToolEnv's episodes and their text turns: a reset starts
 * an episode as `POST /v1/episodes` does, a step is one `POST /v1/episodes/{id}/turns`, and the reward of the step
 * that ends the episode is its R_traj as `GET /v1/episodes/{id}/rewards` scores it. The HTTP routes and the
 * WebSocket sessions share one instance. Refusals are the store's EpisodeErrors.
 */
export class OpenEnv {
  /** Resets that took a default task without a seed so far: the round-robin position. */
  private picked = 0;

  constructor(
    private readonly episodes: EpisodeStore,
    private readonly rewards: RewardContext,
    /**
     * Tasks a reset without one gets (`tasks[seed mod n]`, else in turn), or what loads them; without any a reset must
     * name its task.
     */
    private readonly tasks: readonly EpisodeTask[] | (() => Promise<readonly EpisodeTask[]>) = [],
  ) {}

  /** Whether a reset must name its task: the server was given no default tasks, nor anything to load them from. */
  get needsTask(): boolean {
    return typeof this.tasks !== 'function' && this.tasks.length === 0;
  }

  /** Reset data (`{task?, seed?, episode_id?, …episode options}`) → the episode config. Throws EpisodeError 400. */
  async config(data: unknown): Promise<EpisodeConfig> {
    const raw = data === undefined ? {} : data;
    if (!isRecord(raw))
      throw invalidRequest('reset', [
        { path: '', message: 'must be a JSON object {"task"?, "seed"?, …episode options}' },
      ]);
    const { episode_id, ...config } = raw;
    if (
      episode_id !== undefined &&
      episode_id !== null &&
      !(typeof episode_id === 'string' && episode_id.length <= MAX_EPISODE_ID)
    ) {
      throw invalidRequest('reset', [
        { path: '/episode_id', message: `must be a string of at most ${MAX_EPISODE_ID} characters` },
      ]);
    }
    const parsed = parseConfig(config, (id) => this.episodes.knows(id));
    parsed.task ??= await this.defaultTask(parsed.seed);
    return parsed;
  }

  /** Starts an episode from what `config` answered. Throws EpisodeError 429 at the store's caps. */
  start(config: EpisodeConfig): OpenEnvResult<ResetObservation> {
    const created = this.episodes.start(config);
    const observation: ResetObservation = {
      episode_id: created.id,
      turn: 0,
      content: created.task?.query ?? '',
      messages: created.messages,
      stop: created.stop,
      done: false,
    };
    return { observation, reward: null, done: false };
  }

  /** One text turn (`{"text": …}`); once it ends the episode, its rewards. Throws EpisodeError 400, 404, 409. */
  async step(id: string, action: unknown, pointer = ''): Promise<OpenEnvResult<StepObservation>> {
    const text = actionText(action, pointer);
    const turn = await this.episodes.turn(id, { text });
    const observation: StepObservation = {
      episode_id: id,
      turn: turn.turn,
      content: turn.observation?.content ?? JSON.stringify(turn.messages),
      done: turn.done,
    };
    if (turn.finish) observation.finish = turn.finish;
    if (turn.answer !== undefined) observation.answer = turn.answer;
    if (turn.rejected) observation.rejected = turn.rejected;
    if (!turn.done) return { observation, reward: null, done: false };
    try {
      const { r_step, r_phase, r_traj, r_ans, flagged } = await episodeRewards(this.episodes, id, {}, this.rewards);
      observation.rewards = { r_step, r_phase, r_traj, r_ans, ...(flagged === undefined ? {} : { flagged }) };
      return { observation, reward: r_traj, done: true };
    } catch (error) {
      // The turn itself ran and is recorded: its answer stands, unscored (GET /v1/episodes/{id}/rewards may retry).
      observation.reward_error = error instanceof Error ? error.message : String(error);
      return { observation, reward: null, done: true };
    }
  }

  /** Throws EpisodeError 404 for an unknown or expired episode. */
  state(id: string): OpenEnvState {
    const summary = this.episodes.summary(id);
    if (!summary) throw unknownEpisode(id, this.episodes.ttlMs);
    return {
      episode_id: id,
      step_count: summary.counts.turns,
      done: summary.done,
      ...(summary.task ? { task: summary.task } : {}),
    };
  }

  /** Ends an episode (a session's, when it resets again or closes). */
  end(id: string): void {
    this.episodes.delete(id);
  }

  private async defaultTask(seed: number | undefined): Promise<EpisodeTask> {
    const tasks = typeof this.tasks === 'function' ? await this.tasks() : this.tasks;
    const n = tasks.length;
    if (n === 0) {
      const why =
        'is required: this server has no default tasks (serve --openenv-tasks FILE, or a library with a dependency ' +
        'graph to synthesize them from: toolenv graph build)';
      throw invalidRequest('reset', [
        { path: '/task', message: `${why}; {"task": {"id", "query", "answer"?, "reference_tools"?}}` },
      ]);
    }
    return tasks[seed === undefined ? this.picked++ % n : ((seed % n) + n) % n]!;
  }
}

/**
 * A step's action: exactly `{"text": "<the model message>"}`. Throws EpisodeError 400 with pointers under `pointer`.
 */
function actionText(action: unknown, pointer: string): string {
  const shape = 'must be a JSON object {"text": "<the model message>"}';
  if (!isRecord(action)) throw invalidRequest('action', [{ path: pointer, message: shape }]);
  const check = new Checker();
  check.members(action, pointer, ['text']);
  if (typeof action.text !== 'string')
    check.add(
      `${pointer}/text`,
      action.text === undefined
        ? 'is required: the model message as a string'
        : 'must be the model message as a string',
    );
  if (check.errors.length > 0) throw invalidRequest('action', check.errors);
  return action.text as string;
}
