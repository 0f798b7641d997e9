import { episodeTask, type EpisodeConfig, type TurnResult, type Trajectory } from '../wire/episodes.js';
import type { Tool } from '../library/tool.js';
import type { Rewards } from '../rl/rewards.js';
import { EpisodeClient, ServerError } from './episode-client.js';
import { DEFAULT_K, DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS } from '../protocol/protocol.js';
import { fromRunStateView, newRunState, type RunState, type RunStateView } from '../protocol/state.js';
import {
  AGENTS,
  type AgentRun,
  type CallRecord,
  type ChatMessage,
  type Finish,
  type RunAgentOptions,
  type TokenUsage,
} from './types.js';

/** Tool records fetched at once after a search (a turn surfaces at most slots × k new tools). */
const RECORD_FETCH_CONCURRENCY = 8;

/**
 * One agent run on one task against a ToolEnv server: policy ⇄ server. Creates an episode that speaks the agent's
 * protocol (its system prompt and the task come back as the first messages), then loops: the policy writes the
 * next assistant message and the server's text turn (`POST /v1/episodes/{id}/turns`) parses, checks and runs it
 * and answers the next user message, until an accepted <answer>, the turn cap, or the episode's step limit. The
 * protocol lives in the server; this client only keeps the transcript, and a copy of the server's run state for
 * policies that read data (the heuristic). Fetches the rewards and the trajectory, then deletes the episode (a group's
member, given as `episode`, is left to the caller).
 *
 * Throws only when there is no episode to report on (bad options, server unreachable, episode refused); any later
 * failure (the policy, a turn) ends the run with `finish: 'error'`. A trajectory or rewards that cannot be fetched
 * leave the run without them (`trajectory_error`, `rewards_error` say why); the episode is deleted all the same.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const { agent, policy, task } = options;
  if (!AGENTS.includes(agent)) throw new Error(`unknown agent ${JSON.stringify(agent)}; one of ${AGENTS.join(', ')}`);
  if (agent === 'chat' && !policy.nativeTools)
    throw new Error(
      'the chat agent needs a policy that calls tools natively (heuristic, ' +
        `or openai:MODEL@URL); ${policy.name} writes text only`,
    );
  const maxTurns = positive(options.maxTurns, DEFAULT_MAX_TURNS, 'maxTurns');
  const maxCallsPerTurn = positive(options.maxCallsPerTurn, DEFAULT_MAX_CALLS_PER_TURN, 'maxCallsPerTurn');
  const k = positive(options.k, DEFAULT_K, 'k');
  const started = performance.now();
  const client = new EpisodeClient(options.server, options.apiKey, options.signal);
  // Deletes go out even after the caller aborted: no episode is left behind.
  const janitor = new EpisodeClient(options.server, options.apiKey);

  const config: EpisodeConfig = {
    // The task as the episode scores it: its `expect` too, else the server cannot read r_state off the world.
    task: episodeTask(task),
    protocol: agent,
    k,
    max_calls_per_turn: maxCallsPerTurn,
    max_turns: maxTurns,
    // A turn takes at most one step: the turn cap is the only limit.
    max_steps: maxTurns,
  };
  if (options.tools !== undefined) config.tools = options.tools;
  if (options.seed !== undefined) config.seed = options.seed;
  if (options.errorRate !== undefined) config.error_rate = options.errorRate;
  if (options.maxObservationChars !== undefined) config.max_observation_chars = options.maxObservationChars;
  if (options.systemPrompt !== undefined) config.system_prompt = options.systemPrompt;
  if (options.toolParser !== undefined) config.tool_parser = options.toolParser;
  const episode = options.episode ?? (await client.create(config));

  const messages: ChatMessage[] = episode.messages.map((m) => ({ ...m }));
  let functions = episode.functions;
  const tools = new Map<string, Tool>();
  let state: RunState = newRunState();
  const tokens: TokenUsage = { prompt: 0, completion: 0 };
  let turns = 0;
  let finish: Finish = 'turn_cap';
  let answer: string | undefined;
  let error: string | undefined;

  try {
    for (let turn = 1; turn <= maxTurns; turn++) {
      state.turn = turn;
      const reply = await policy.next(messages, {
        agent,
        task,
        turn,
        signal: options.signal,
        maxTurns,
        maxCallsPerTurn,
        state,
        seed: episode.seed,
        ...(functions ? { functions } : {}),
      });
      tokens.prompt += reply.usage.prompt;
      tokens.completion += reply.usage.completion;
      const message = agent === 'chat' ? reply.message : undefined;
      messages.push({
        role: 'assistant',
        content: reply.text,
        ...(message?.tool_calls ? { tool_calls: message.tool_calls } : {}),
      });
      const result: TurnResult = await client.turn(episode.id, message ? { message } : { text: reply.text }, true);
      turns = result.turn;
      const view = result.state as RunStateView;
      await fetchRecords(client, tools, view.surfaced, options.records);
      state = fromRunStateView(view, tools);
      if (result.finish === 'answer') {
        answer = result.answer;
        finish = 'answer';
        break;
      }
      if (result.messages) messages.push(...result.messages);
      else if (result.observation) messages.push(result.observation);
      if (result.functions) functions = result.functions;
      if (result.done) {
        finish = result.finish === 'episode_done' ? 'episode_done' : 'turn_cap';
        break;
      }
    }
  } catch (failure) {
    if (options.signal?.aborted) {
      // The caller gave up on the run: leave no episode behind, and report nothing.
      await janitor.delete(episode.id).catch(() => undefined);
      throw failure;
    }
    finish = 'error';
    error = failure instanceof Error ? failure.message : String(failure);
  }

  const closed = options.episode ? {} : await closeEpisode(client, janitor, episode.id, options.judge);
  const actions = state.searches.length + state.calls.length;
  const run: AgentRun = {
    task_id: task.id,
    agent,
    policy: policy.name,
    episode_id: episode.id,
    finish,
    turns,
    actions,
    tokens,
    wall_ms: Math.round(performance.now() - started),
    calls: state.calls.map(
      (c): CallRecord => ({
        tool: c.tool,
        status: c.status,
        ok: c.ok,
        turn: c.turn,
        ...(c.error ? { error: c.error } : {}),
        ...(c.injected ? { injected: c.injected } : {}),
      }),
    ),
    surfaced: [...state.surfaced],
    messages,
    seed: episode.seed,
    ...closed,
  };
  if (answer !== undefined) run.answer = answer;
  if (error !== undefined) run.error = error;
  return run;
}

/**
 * The records of surfaced tools not fetched yet (from `shared` when another run fetched them), a few at a time; a tool
 * whose record cannot be fetched is left out.
 */
async function fetchRecords(
  client: EpisodeClient,
  tools: Map<string, Tool>,
  ids: readonly string[],
  shared?: Map<string, Tool>,
): Promise<void> {
  const queue = ids.filter((id) => !tools.has(id));
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        const record = shared?.get(id) ?? (await client.tool(id));
        tools.set(id, record);
        shared?.set(id, record);
      } catch (error) {
        if (!(error instanceof ServerError)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECORD_FETCH_CONCURRENCY, queue.length) }, worker));
}

type Closed = ({ trajectory: Trajectory } | { trajectory_error: string }) &
  ({ rewards: Rewards } | { rewards_error: string });

/** The episode's rewards and trajectory, or why they could not be had; the episode is deleted either way. */
async function closeEpisode(
  client: EpisodeClient,
  janitor: EpisodeClient,
  id: string,
  judge: string | undefined,
): Promise<Closed> {
  const reason = (failure: unknown) => (failure instanceof Error ? failure.message : String(failure));
  try {
    const rewards = await client.rewards(id, judge === undefined ? {} : { judge }).then(
      (r) => ({ rewards: r }),
      (failure: unknown) => ({ rewards_error: reason(failure) }),
    );
    const trajectory = await client.get(id).then(
      (t) => ({ trajectory: t }),
      (failure: unknown) => ({ trajectory_error: reason(failure) }),
    );
    return { ...rewards, ...trajectory };
  } finally {
    await janitor.delete(id).catch(() => undefined);
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}
