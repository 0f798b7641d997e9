import type { Tool } from '../library/tool.js';
import { foldStep, type Dispatch } from '../protocol/dispatch.js';
import { MAX_K, MAX_SEARCHES_PER_TURN } from '../protocol/protocol.js';
import { fitSearch, renderCallWithin, searchResults } from '../protocol/render.js';
import type { SessionTurn } from '../protocol/session.js';
import { newRunState, type NotRun, type RunState } from '../protocol/state.js';
import type {
  Action,
  AssistantMessage,
  ChatObservation,
  Finish,
  FunctionSpec,
  Observation,
  StepResult,
  ToolParser,
  TurnRecord,
} from '../wire/episodes.js';
import { CALL_FUNCTION, callableFunctions, SEARCH_FUNCTION } from './functions.js';
import { answerText, readAssistantMessage, readToolText, type ChatCall } from './parse.js';

export interface ChatSessionOptions {
  k: number;
  maxCallsPerTurn: number;
  maxTurns: number;
  /** Characters of one turn's tool messages together (the episode's `max_observation_chars`); none: whole. */
  maxObservationChars?: number;
  parser: ToolParser;
  /** Tools offered as native functions from the start (the episode's `tools`). */
  given: readonly Tool[];
  /** Found tools become native functions too; false: they are called through call_tool alone. */
  native: boolean;
  /** The ids the episode is restricted to, when it is. */
  restricted?: ReadonlySet<string>;
  step(actions: Action[]): Promise<StepResult>;
  tool(id: string): Tool | undefined;
  keep(record: TurnRecord): void;
}

/** A turn: the raw output of the model's chat template, or an OpenAI assistant message. */
export type ChatInput = { text: string } | { message: AssistantMessage };

export interface ChatTurn extends SessionTurn {
  messages: ChatObservation[];
  functions: FunctionSpec[];
}

/** A call of the message made concrete: the action it runs as, or why it cannot run. */
type Request = { call: ChatCall; action?: Action; problem?: string };

/**
 * Native tool calling (`protocol: "chat"`): each assistant message's calls run together as one episode step and are
 * answered by one `tool` message each; a message without calls is the final answer. `search_tool` finds tools, and
 * each tool found becomes a native function (named by its id) beside `call_tool`, which calls any library tool.
 * A message with a call that cannot be read or named runs nothing, and every call of it is answered with why. The
 * run state and turn records are the text protocols' own, so rewards, trajectories and the studio read them alike.
 */
export class ChatSession {
  readonly state: RunState = newRunState();
  /** Turns taken; their records go to `keep`. */
  turnCount = 0;
  finish: Finish | undefined;
  answer: string | undefined;
  /** Tools callable natively now, in the order they were offered. */
  private readonly callable = new Map<string, Tool>();

  constructor(private readonly options: ChatSessionOptions) {
    for (const tool of options.given) this.callable.set(tool.id, tool);
  }

  get done(): boolean {
    return this.finish !== undefined;
  }

  /** The functions callable now. */
  functions(): FunctionSpec[] {
    return callableFunctions(this.options.k, this.callable.values());
  }

  async turn(input: ChatInput): Promise<ChatTurn> {
    const state = this.state;
    const turn = this.turnCount + 1;
    state.turn = turn;
    const read =
      'message' in input ? readAssistantMessage(input.message) : readToolText(input.text, this.options.parser, turn);
    const requests = read.calls.map((call) => this.request(call));
    const problems = [...read.problems, ...requests.flatMap((r) => (r.problem ? [r.problem] : []))];
    const ids = read.calls.map((c) => c.id);
    for (const id of new Set(ids.filter((id, i) => ids.indexOf(id) !== i)))
      problems.push(`tool call id ${id} is used twice in this message`);
    const answer = read.calls.length === 0 ? answerText(read.content) : undefined;
    if (answer === '' && problems.length === 0)
      problems.push('an empty message: call a function, or answer the user in text');

    const record: TurnRecord = {
      turn,
      text: 'message' in input ? JSON.stringify(input.message) : input.text,
      well_formed: problems.length === 0,
      controller: answer ? 'answer' : 'need',
      searches: [],
      calls: [],
      not_run: [],
      observation: '',
    };
    const capped = (finish?: Finish) => finish ?? (turn >= this.options.maxTurns ? 'turn_cap' : undefined);

    if (problems.length > 0) {
      state.rejected = problems;
      record.rejected = problems;
      const why = `not run: ${problems.join('; ')}`;
      const messages: ChatObservation[] =
        requests.length > 0
          ? requests.map(({ call, problem }) => ({
              role: 'tool',
              tool_call_id: call.id,
              content: problem
                ? `not run: ${problem}`
                : `not run: another call of this message could not run (${problems[0]}); send the calls again`,
            }))
          : [{ role: 'user', content: `Your last message was ${why}.` }];
      return this.close(record, messages, capped());
    }
    state.rejected = undefined;
    if (answer) {
      record.answer = answer;
      this.answer = answer;
      return this.close(record, [], 'answer');
    }

    // Searches past the per-turn cap, and calls past max_calls_per_turn, wait for a later turn.
    let searches = 0;
    let calls = 0;
    const sent: Request[] = [];
    const notRun: NotRun[] = [];
    for (const request of requests) {
      const action = request.action!;
      const over =
        action.type === 'search_tool' ? ++searches > MAX_SEARCHES_PER_TURN : ++calls > this.options.maxCallsPerTurn;
      if (!over) sent.push(request);
      else {
        const cap =
          action.type === 'search_tool'
            ? `at most ${MAX_SEARCHES_PER_TURN} searches`
            : `at most ${this.options.maxCallsPerTurn} calls`;
        notRun.push({
          id: request.call.id,
          tool: action.type === 'search_tool' ? SEARCH_FUNCTION : action.tool,
          turn,
          kind: 'deferred',
          reason: `${cap} per turn; call it again next turn`,
        });
      }
    }
    const dispatch: Dispatch = { actions: sent.map((r) => r.action!), notRun, unresolved: new Set() };
    const result = await this.options.step(dispatch.actions);
    record.step = result.step;
    const [searchesBefore, callsBefore] = [state.searches.length, state.calls.length];
    const fresh = new Set(foldStep(state, dispatch, result));
    for (const id of fresh) {
      const tool = this.options.tool(id);
      if (!tool) continue;
      state.tools.set(id, tool);
      if (this.options.native) this.callable.set(id, tool);
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
    record.not_run = notRun.map(({ id, tool, kind, reason }) => ({ id, tool, kind, reason }));

    const observed = new Map(sent.map((r, i): [string, Observation] => [r.call.id, result.observations[i]!]));
    const share =
      this.options.maxObservationChars === undefined
        ? Number.MAX_SAFE_INTEGER
        : Math.floor(this.options.maxObservationChars / requests.length);
    const messages: ChatObservation[] = requests.map(({ call }) => {
      const observation = observed.get(call.id);
      const held = notRun.find((n) => n.id === call.id);
      const content = !observation
        ? `not run: ${held?.reason ?? 'the episode ended first'}`
        : observation.type === 'search_tool'
          ? fitSearch(
              { search: undefined, query: observation.query, results: searchResults(observation, state.tools, fresh) },
              share,
            )
          : renderCallWithin(observation, share);
      return { role: 'tool', tool_call_id: call.id, content };
    });
    return this.close(record, messages, capped(result.done ? 'episode_done' : undefined));
  }

  /**
   * What one call asks for: a search, a call of a library tool (natively or through call_tool), or why it cannot run.
   */
  private request(call: ChatCall): Request {
    if (call.problem !== undefined) return { call, problem: call.problem };
    const args = call.arguments ?? {};
    const label = `${call.name} (${call.id})`;
    if (call.name === SEARCH_FUNCTION) {
      const { query, k } = args;
      if (typeof query !== 'string' || query.trim() === '')
        return { call, problem: `${label}: "query" must be a non-empty string` };
      if (k !== undefined && !(Number.isInteger(k) && (k as number) >= 1 && (k as number) <= MAX_K))
        return { call, problem: `${label}: "k" must be an integer from 1 to ${MAX_K}` };
      return {
        call,
        action: {
          type: 'search_tool',
          id: call.id,
          query: query.trim(),
          k: (k as number | undefined) ?? this.options.k,
        },
      };
    }
    if (call.name === CALL_FUNCTION) {
      const { tool, arguments: inner } = args;
      if (typeof tool !== 'string' || tool === '')
        return { call, problem: `${label}: "tool" must be a tool id, as search_tool returned it` };
      if (inner !== undefined && (inner === null || typeof inner !== 'object' || Array.isArray(inner)))
        return { call, problem: `${label}: "arguments" must be a JSON object` };
      const unknown = this.unknownTool(tool);
      if (unknown) return { call, problem: `${label}: ${unknown}` };
      return {
        call,
        action: {
          type: 'tool_call',
          id: call.id,
          tool,
          arguments: (inner as Record<string, unknown> | undefined) ?? {},
        },
      };
    }
    if (!this.callable.has(call.name)) {
      const how = this.options.native
        ? 'then call them by id (or through call_tool)'
        : 'then call them through call_tool';
      const name = JSON.stringify(call.name);
      return { call, problem: `${label}: no function ${name} is offered: call search_tool to find tools, ${how}` };
    }
    return { call, action: { type: 'tool_call', id: call.id, tool: call.name, arguments: args } };
  }

  private unknownTool(id: string): string | undefined {
    if (this.options.restricted && !this.options.restricted.has(id))
      return `tool ${JSON.stringify(id)} is not one of this episode's tools`;
    if (!this.callable.has(id) && !this.options.tool(id))
      return `no tool ${JSON.stringify(id)} in the library: call search_tool to find one`;
    return undefined;
  }

  private close(record: TurnRecord, messages: ChatObservation[], finish: Finish | undefined): ChatTurn {
    record.observation = JSON.stringify(messages);
    this.turnCount++;
    this.options.keep(record);
    if (finish) this.finish = finish;
    return { record, done: this.done, ...(finish ? { finish } : {}), messages, functions: this.functions() };
  }
}
