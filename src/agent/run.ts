import type { EpisodeConfig, EpisodeSummary, StepResult, Trajectory } from '../episodes/types.js';
import { checkMessage } from './check.js';
import { foldStep, prepareDispatch } from './dispatch.js';
import { EpisodeClient, ServerError } from './episode-client.js';
import { parseMessage } from './parse.js';
import { systemPrompt } from './prompts.js';
import { DEFAULT_K, DEFAULT_MAX_CALLS_PER_TURN, DEFAULT_MAX_TURNS } from './protocol.js';
import { renderObservation, renderRejection } from './render.js';
import { newRunState, type RunState } from './state.js';
import { AGENTS, type AgentRun, type CallRecord, type ChatMessage, type Finish, type RunAgentOptions, type TokenUsage } from './types.js';

/** Tool records fetched at once after a search (a turn surfaces at most slots × k new tools). */
const RECORD_FETCH_CONCURRENCY = 8;

/**
 * One agent run on one task against a ToolEnv server. Creates an episode (task, seed, error rate), then loops:
 * the policy writes a tagged message, the client parses and checks it, runs its actions as one episode step and
 * appends the observations (or the reasons it rejected the message) as the next user message, until `<answer>`,
 * the turn cap, or the episode's step limit (set to the turn cap: a turn is at most one step). Fetches the
 * trajectory and deletes the episode at the end.
 *
 * Throws only when there is no episode to report on (bad options, server unreachable, episode refused); any later
 * failure (the policy, a step) ends the run with `finish: 'error'`. A trajectory that cannot be fetched leaves the
 * run without one (`trajectory_error` says why); the episode is deleted all the same.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentRun> {
  const { agent, policy, task } = options;
  if (!AGENTS.includes(agent)) throw new Error(`unknown agent ${JSON.stringify(agent)}; one of ${AGENTS.join(', ')}`);
  const maxTurns = positive(options.maxTurns, DEFAULT_MAX_TURNS, 'maxTurns');
  const maxCallsPerTurn = positive(options.maxCallsPerTurn, DEFAULT_MAX_CALLS_PER_TURN, 'maxCallsPerTurn');
  const k = positive(options.k, DEFAULT_K, 'k');
  const started = performance.now();
  const client = new EpisodeClient(options.server, options.apiKey, options.signal);
  // Deletes go out even after the caller aborted: no episode is left behind.
  const janitor = new EpisodeClient(options.server, options.apiKey);

  const config: EpisodeConfig = {
    task: { id: task.id, query: task.query, ...(task.reference_tools ? { reference_tools: task.reference_tools } : {}) },
    max_steps: maxTurns,
  };
  if (options.seed !== undefined) config.seed = options.seed;
  if (options.errorRate !== undefined) config.error_rate = options.errorRate;
  const episode: EpisodeSummary = await client.create(config);

  const state = newRunState();
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt(agent, { maxTurns, maxCallsPerTurn, k }) },
    { role: 'user', content: task.query },
  ];
  const tokens: TokenUsage = { prompt: 0, completion: 0 };
  let actions = 0;
  let finish: Finish = 'turn_cap';
  let answer: string | undefined;
  let error: string | undefined;

  try {
    for (let turn = 1; turn <= maxTurns; turn++) {
      state.turn = turn;
      const reply = await policy.next(messages, { agent, task, turn, signal: options.signal, maxTurns, maxCallsPerTurn, state, seed: episode.seed });
      tokens.prompt += reply.usage.prompt;
      tokens.completion += reply.usage.completion;
      messages.push({ role: 'assistant', content: reply.text });

      const message = parseMessage(reply.text);
      const checked = checkMessage(message, agent, state);
      if (checked.problems.length > 0) {
        state.rejected = checked.problems;
        messages.push({ role: 'user', content: renderRejection(checked.problems) });
        continue;
      }
      state.rejected = undefined;
      if (message.answer !== undefined) {
        answer = message.answer;
        finish = 'answer';
        break;
      }

      const dispatch = prepareDispatch(message, checked, state, { agent, k, maxCallsPerTurn });
      let result: StepResult | undefined;
      let fresh: string[] = [];
      if (dispatch.actions.length > 0) {
        result = await client.step(episode.id, dispatch.actions);
        actions += dispatch.actions.length;
        fresh = foldStep(state, dispatch, result);
        await fetchRecords(client, state, fresh);
      } else {
        state.notRun.push(...dispatch.notRun);
      }
      messages.push({ role: 'user', content: renderObservation(state, dispatch, result, new Set(fresh)) });
      if (result?.done) {
        // On the last turn the step limit and the turn cap coincide: the cap is what ended the run.
        if (turn < maxTurns) finish = 'episode_done';
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

  const closed = await closeEpisode(client, janitor, episode.id);
  const run: AgentRun = {
    task_id: task.id,
    agent,
    policy: policy.name,
    episode_id: episode.id,
    finish,
    turns: state.turn,
    actions,
    tokens,
    wall_ms: Math.round(performance.now() - started),
    calls: state.calls.map((c): CallRecord => ({ tool: c.tool, status: c.status, ok: c.ok, turn: c.turn, ...(c.error ? { error: c.error } : {}), ...(c.injected ? { injected: c.injected } : {}) })),
    surfaced: [...state.surfaced],
    messages,
    seed: episode.seed,
    ...closed,
  };
  if (answer !== undefined) run.answer = answer;
  if (error !== undefined) run.error = error;
  return run;
}

/** The records of newly surfaced tools, fetched a few at a time; a tool whose record cannot be fetched is shown from its search hit. */
async function fetchRecords(client: EpisodeClient, state: RunState, ids: readonly string[]): Promise<void> {
  const queue = [...ids];
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        state.tools.set(id, await client.tool(id));
      } catch (error) {
        if (!(error instanceof ServerError)) throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(RECORD_FETCH_CONCURRENCY, queue.length) }, worker));
}

/** The episode's trajectory, or why it could not be had; the episode is deleted either way. */
async function closeEpisode(client: EpisodeClient, janitor: EpisodeClient, id: string): Promise<{ trajectory: Trajectory } | { trajectory_error: string }> {
  try {
    return { trajectory: await client.get(id) };
  } catch (failure) {
    return { trajectory_error: failure instanceof Error ? failure.message : String(failure) };
  } finally {
    await janitor.delete(id).catch(() => undefined);
  }
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${value}`);
  return value;
}
