import { MAX_K } from '../protocol/protocol.js';
import { ADVANTAGE_MODES, type AdvantageMode, type ComponentRewards } from '../rl/advantages.js';
import { COEFFICIENT_NAMES, VERDICTS, verdictOf, type RewardCoefficients, type Verdicts } from '../wire/rewards.js';
import type { CallControls } from '../simulator/types.js';
import { invalidRequest, type FieldError } from './errors.js';
import { isRecord, type Json } from './resource-body.js';
import {
  DEFAULT_SEARCH_K,
  MAX_ACTIONS,
  MAX_COEFFICIENT,
  MAX_GROUP_SIZE,
  MAX_REWARD_MAGNITUDE,
  MAX_CALLS_PER_TURN,
  MAX_EPISODE_TOOLS,
  MAX_SEARCH_K,
  MAX_STEPS,
  MAX_TEXT,
  MAX_TURN_TEXT,
  MAX_TURNS,
  MIN_OBSERVATION_CHARS,
} from './limits.js';
import {
  EPISODE_PROTOCOLS,
  SYSTEM_PROMPTS,
  TOOL_PARSERS,
  type SystemPromptStyle,
  type Action,
  type AssistantMessage,
  type ChatToolCall,
  type EpisodeConfig,
  type EpisodeProtocol,
  type EpisodeTask,
  type ParsedRewardRequest,
  type ToolParser,
  type ParsedTurn,
} from '../wire/episodes.js';

const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Collects every problem of a request before refusing it, so one 400 names them all. */
export class Checker {
  readonly errors: FieldError[] = [];

  add(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  members(value: Json, path: string, known: readonly string[]): void {
    for (const key of Object.keys(value))
      if (!known.includes(key))
        this.add(`${path}/${pointerToken(key)}`, `is not a known member (known: ${known.join(', ')})`);
  }

  text(value: unknown, path: string, { empty = false } = {}): value is string {
    if (typeof value !== 'string') this.add(path, `must be a string, got ${kind(value)}`);
    else if (!empty && value.trim() === '') this.add(path, 'must not be empty');
    else if (value.length > MAX_TEXT) this.add(path, `must be at most ${MAX_TEXT} characters`);
    else return true;
    return false;
  }

  integer(value: unknown, path: string, min: number, max: number): value is number {
    if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max) return true;
    this.add(path, `must be an integer from ${min} to ${max}, got ${JSON.stringify(value) ?? kind(value)}`);
    return false;
  }
}

/** A JSON pointer token (RFC 6901). */
function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * `POST /v1/episodes` body → the config, tool ids deduplicated in order. `known(id)` says whether the library
 * holds a tool. Throws EpisodeError 400 listing every wrong member.
 */
export function parseConfig(body: unknown, known: (toolId: string) => boolean): EpisodeConfig {
  const check = new Checker();
  const raw = body === undefined ? {} : body;
  if (!isRecord(raw))
    throw invalidRequest('episode config', [{ path: '', message: `must be a JSON object, got ${kind(raw)}` }]);
  check.members(raw, '', CONFIG_MEMBERS);
  const config = readConfig(raw, check, known);
  if (check.errors.length > 0) throw invalidRequest('episode config', check.errors);
  return config;
}

/** `POST /v1/groups` body: `n`, a task, and any episode option. */
export function parseGroup(body: unknown, known: (toolId: string) => boolean): { n: number; config: EpisodeConfig } {
  const check = new Checker();
  if (!isRecord(body))
    throw invalidRequest('group', [
      { path: '', message: `must be a JSON object {"task", "n", …episode options}, got ${kind(body)}` },
    ]);
  check.members(body, '', ['n', ...CONFIG_MEMBERS]);
  if (body.task === undefined) check.add('/task', 'is required: a group is n rollouts of one task');
  const n = check.integer(body.n, '/n', 1, MAX_GROUP_SIZE) ? body.n : 0;
  const config = readConfig(body, check, known);
  if (check.errors.length > 0) throw invalidRequest('group', check.errors);
  return { n, config };
}

function readConfig(raw: Json, check: Checker, known: (toolId: string) => boolean): EpisodeConfig {
  const config: EpisodeConfig = {};
  if (raw.seed !== undefined) {
    if (typeof raw.seed === 'number' && Number.isSafeInteger(raw.seed)) config.seed = raw.seed;
    else
      check.add(
        '/seed',
        `must be an integer (a safe one: |seed| < 2^53), got ${JSON.stringify(raw.seed) ?? kind(raw.seed)}`,
      );
  }
  if (raw.error_rate !== undefined) {
    if (typeof raw.error_rate === 'number' && raw.error_rate >= 0 && raw.error_rate <= 1)
      config.error_rate = raw.error_rate;
    else
      check.add(
        '/error_rate',
        `must be a number from 0 to 1, got ${JSON.stringify(raw.error_rate) ?? kind(raw.error_rate)}`,
      );
  }
  if (raw.max_steps !== undefined && check.integer(raw.max_steps, '/max_steps', 1, MAX_STEPS))
    config.max_steps = raw.max_steps;
  if (raw.protocol !== undefined) {
    if (EPISODE_PROTOCOLS.includes(raw.protocol as EpisodeProtocol)) config.protocol = raw.protocol as EpisodeProtocol;
    else
      check.add(
        '/protocol',
        `must be one of ${EPISODE_PROTOCOLS.join(', ')}, got ${JSON.stringify(raw.protocol) ?? kind(raw.protocol)}`,
      );
  }
  if (raw.tool_parser !== undefined) {
    if (raw.protocol !== 'chat')
      check.add('/tool_parser', 'applies to protocol "chat" only (how a turn given as raw text is read)');
    else if (TOOL_PARSERS.includes(raw.tool_parser as ToolParser)) config.tool_parser = raw.tool_parser as ToolParser;
    else
      check.add(
        '/tool_parser',
        `must be one of ${TOOL_PARSERS.join(', ')}, got ${JSON.stringify(raw.tool_parser) ?? kind(raw.tool_parser)}`,
      );
  }
  if (raw.native_tools !== undefined) {
    if (raw.protocol !== 'chat')
      check.add('/native_tools', 'applies to protocol "chat" only (whether found tools become native functions)');
    else if (typeof raw.native_tools === 'boolean') config.native_tools = raw.native_tools;
    else
      check.add(
        '/native_tools',
        `must be true or false, got ${JSON.stringify(raw.native_tools) ?? kind(raw.native_tools)}`,
      );
  }
  if (raw.k !== undefined && check.integer(raw.k, '/k', 1, MAX_K)) config.k = raw.k;
  if (
    raw.max_calls_per_turn !== undefined &&
    check.integer(raw.max_calls_per_turn, '/max_calls_per_turn', 1, MAX_CALLS_PER_TURN)
  )
    config.max_calls_per_turn = raw.max_calls_per_turn;
  if (raw.max_turns !== undefined && check.integer(raw.max_turns, '/max_turns', 1, MAX_TURNS))
    config.max_turns = raw.max_turns;
  if (
    raw.max_observation_chars !== undefined &&
    check.integer(raw.max_observation_chars, '/max_observation_chars', MIN_OBSERVATION_CHARS, MAX_TURN_TEXT)
  ) {
    config.max_observation_chars = raw.max_observation_chars;
  }
  if (raw.system_prompt !== undefined) {
    if (SYSTEM_PROMPTS.includes(raw.system_prompt as SystemPromptStyle))
      config.system_prompt = raw.system_prompt as SystemPromptStyle;
    else
      check.add(
        '/system_prompt',
        `must be one of ${SYSTEM_PROMPTS.join(', ')}, got ${JSON.stringify(raw.system_prompt) ?? kind(raw.system_prompt)}`,
      );
  }
  if (raw.reward !== undefined) {
    const reward = parseCoefficients(raw.reward, '/reward', check);
    if (reward) config.reward = reward;
  }
  if (raw.task !== undefined) {
    const task = parseTask(raw.task, check, known);
    if (task) config.task = task;
  }
  if (raw.tools !== undefined) {
    const tools = parseTools(raw.tools, check, known);
    if (tools) config.tools = tools;
  }
  return config;
}

/** The members of an episode config (`POST /v1/groups` takes them too, beside its own). */
export const CONFIG_MEMBERS = [
  'seed',
  'error_rate',
  'task',
  'tools',
  'max_steps',
  'protocol',
  'tool_parser',
  'native_tools',
  'k',
  'max_calls_per_turn',
  'max_turns',
  'max_observation_chars',
  'system_prompt',
  'reward',
];

/** Table 7 overrides: known names, finite non-negative numbers. */
export function parseCoefficients(
  value: unknown,
  path: string,
  check: Checker,
): Partial<RewardCoefficients> | undefined {
  if (!isRecord(value)) {
    check.add(path, `must be an object of reward coefficients (${COEFFICIENT_NAMES.join(', ')}), got ${kind(value)}`);
    return undefined;
  }
  check.members(value, path, COEFFICIENT_NAMES);
  const out: Partial<RewardCoefficients> = {};
  for (const name of COEFFICIENT_NAMES) {
    const given = value[name];
    if (given === undefined) continue;
    if (typeof given === 'number' && given >= 0 && given <= MAX_COEFFICIENT) out[name] = given;
    else
      check.add(
        `${path}/${name}`,
        `must be a number from 0 to ${MAX_COEFFICIENT}, got ${JSON.stringify(given) ?? kind(given)}`,
      );
  }
  return out;
}

function parseTask(value: unknown, check: Checker, known: (toolId: string) => boolean): EpisodeTask | undefined {
  if (!isRecord(value)) {
    check.add('/task', `must be an object {id, query, reference_tools?, answer?}, got ${kind(value)}`);
    return undefined;
  }
  check.members(value, '/task', ['id', 'query', 'reference_tools', 'answer']);
  const ok = [check.text(value.id, '/task/id'), check.text(value.query, '/task/query', { empty: true })].every(Boolean);
  const task: EpisodeTask = { id: value.id as string, query: value.query as string };
  if (value.reference_tools !== undefined) {
    const refs = value.reference_tools;
    if (!Array.isArray(refs)) check.add('/task/reference_tools', `must be an array of tool ids, got ${kind(refs)}`);
    else if (refs.every((ref, i) => check.text(ref, `/task/reference_tools/${i}`))) {
      // A reference the library lacks could never be called: its recall and every reward built on it would be
      // silently capped. Refused, as an unknown tool in `tools` is.
      refs.forEach((ref: string, i) => {
        if (!known(ref))
          check.add(
            `/task/reference_tools/${i}`,
            `no tool ${JSON.stringify(ref)} in the library: the agent could never call it; use a library id (GET /v1/tools, POST /v1/search) or leave it out`,
          );
      });
      task.reference_tools = refs as string[];
    }
  }
  const answer = value.answer;
  if (answer !== undefined) {
    if (typeof answer === 'string' && answer.trim() !== '') task.answer = answer;
    else if (Array.isArray(answer) && answer.length > 0) {
      if (answer.every((part, i) => check.text(part, `/task/answer/${i}`))) task.answer = answer as string[];
    } else
      check.add(
        '/task/answer',
        `must be a non-empty string or a non-empty array of strings, got ${JSON.stringify(answer)?.slice(0, 40) ?? kind(answer)}`,
      );
  }
  return ok ? task : undefined;
}

function parseTools(value: unknown, check: Checker, known: (toolId: string) => boolean): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_EPISODE_TOOLS) {
    check.add(
      '/tools',
      `must be an array of 1 to ${MAX_EPISODE_TOOLS} tool ids, got ${Array.isArray(value) ? `${value.length} items` : kind(value)}`,
    );
    return undefined;
  }
  const tools = new Set<string>();
  value.forEach((id, i) => {
    if (!check.text(id, `/tools/${i}`)) return;
    if (!known(id)) check.add(`/tools/${i}`, `no tool ${JSON.stringify(id)} in the library`);
    else tools.add(id);
  });
  return [...tools];
}

/**
 * `POST /v1/episodes/{id}/step` body → its actions, defaults filled (`k`, `arguments`). Throws EpisodeError 400 whose
 * pointers name the actions at `actionsPointer` (a caller that built the step from its own request names its member).
 */
export function parseStep(body: unknown, actionsPointer = '/actions'): Action[] {
  const check = new Checker();
  if (!isRecord(body))
    throw invalidRequest('step', [
      { path: '', message: `must be a JSON object {"actions": [...]}, got ${kind(body)}` },
    ]);
  check.members(body, '', ['actions']);
  const actions = body.actions;
  if (!Array.isArray(actions) || actions.length === 0 || actions.length > MAX_ACTIONS) {
    check.add(
      actionsPointer,
      `must be an array of 1 to ${MAX_ACTIONS} actions, got ${Array.isArray(actions) ? `${actions.length}` : kind(actions)}`,
    );
    throw invalidRequest('step', check.errors);
  }
  const parsed = actions.map((action, i) => parseAction(action, `${actionsPointer}/${i}`, check));
  if (check.errors.length > 0) throw invalidRequest('step', check.errors);
  return parsed as Action[];
}

function parseAction(value: unknown, path: string, check: Checker): Action | undefined {
  if (!isRecord(value)) {
    check.add(path, `must be an action object, got ${kind(value)}`);
    return undefined;
  }
  const id = value.id;
  if (id !== undefined) check.text(id, `${path}/id`);
  const withId = <T extends object>(action: T) => (id === undefined ? action : { ...action, id: id as string });
  switch (value.type) {
    case 'search_tool': {
      check.members(value, path, ['type', 'query', 'k', 'id']);
      check.text(value.query, `${path}/query`);
      if (value.k !== undefined) check.integer(value.k, `${path}/k`, 1, MAX_SEARCH_K);
      return withId({
        type: 'search_tool' as const,
        query: value.query as string,
        k: (value.k as number | undefined) ?? DEFAULT_SEARCH_K,
      });
    }
    case 'tool_call': {
      check.members(value, path, ['type', 'tool', 'arguments', 'id', 'controls']);
      check.text(value.tool, `${path}/tool`);
      if (value.arguments !== undefined && !isRecord(value.arguments))
        check.add(`${path}/arguments`, `must be an object, got ${kind(value.arguments)}`);
      const controls =
        value.controls === undefined ? undefined : parseControls(value.controls, `${path}/controls`, check);
      const action = {
        type: 'tool_call' as const,
        tool: value.tool as string,
        arguments: (value.arguments as Json | undefined) ?? {},
      };
      return withId(controls ? { ...action, controls } : action);
    }
    default:
      check.add(`${path}/type`, `must be "search_tool" or "tool_call", got ${JSON.stringify(value.type) ?? 'nothing'}`);
      return undefined;
  }
}

function parseControls(value: unknown, path: string, check: Checker): CallControls | undefined {
  if (!isRecord(value)) {
    check.add(path, `must be an object {code?, example?, dynamic?}, got ${kind(value)}`);
    return undefined;
  }
  check.members(value, path, ['code', 'example', 'dynamic']);
  const controls: CallControls = {};
  if (value.code !== undefined && check.integer(value.code, `${path}/code`, 200, 599)) controls.code = value.code;
  if (value.example !== undefined && check.text(value.example, `${path}/example`)) controls.example = value.example;
  if (value.dynamic !== undefined) {
    if (typeof value.dynamic === 'boolean') controls.dynamic = value.dynamic;
    else check.add(`${path}/dynamic`, `must be true or false, got ${kind(value.dynamic)}`);
  }
  return controls;
}

/** `POST /v1/episodes/{id}/turns` body. */
export function parseTurn(body: unknown): ParsedTurn {
  const check = new Checker();
  if (!isRecord(body))
    throw invalidRequest('turn', [
      {
        path: '',
        message: `must be a JSON object {"text": "<the assistant message>"} (or, in a chat episode, {"message": {…}}), got ${kind(body)}`,
      },
    ]);
  check.members(body, '', ['text', 'message', 'state']);
  const request: ParsedTurn = {};
  if (body.text === undefined && body.message === undefined)
    check.add('/text', 'is required: the assistant message as a string (a chat episode takes {"message": …} instead)');
  else if (body.text !== undefined && body.message !== undefined)
    check.add('/message', 'give "text" or "message", not both');
  else if (body.text !== undefined) {
    if (typeof body.text !== 'string')
      check.add('/text', `must be the assistant message as a string, got ${kind(body.text)}`);
    else if (body.text.length > MAX_TURN_TEXT)
      check.add('/text', `must be at most ${MAX_TURN_TEXT} characters, got ${body.text.length}`);
    else request.text = body.text;
  } else {
    const message = parseAssistantMessage(body.message, '/message', check);
    if (message) request.message = message;
  }
  if (body.state !== undefined && typeof body.state !== 'boolean')
    check.add('/state', `must be true or false, got ${kind(body.state)}`);
  if (check.errors.length > 0) throw invalidRequest('turn', check.errors);
  if (body.state === true) request.state = true;
  return request;
}

/** Members an OpenAI SDK writes on an assistant message beside the ones read (`message.model_dump()` keeps them): accepted, not read. */
const IGNORED_MESSAGE_MEMBERS = [
  'refusal',
  'annotations',
  'audio',
  'function_call',
  'reasoning_content',
  'reasoning',
  'name',
];

/** An OpenAI assistant message: `content` a string, null or text parts; `tool_calls` with ids, names and arguments (a JSON string or an object). */
function parseAssistantMessage(value: unknown, path: string, check: Checker): AssistantMessage | undefined {
  if (!isRecord(value)) {
    check.add(path, `must be an assistant message {"role": "assistant", "content", "tool_calls"}, got ${kind(value)}`);
    return undefined;
  }
  const before = check.errors.length;
  check.members(value, path, ['role', 'content', 'tool_calls', ...IGNORED_MESSAGE_MEMBERS]);
  if (value.role !== undefined && value.role !== 'assistant')
    check.add(`${path}/role`, `must be "assistant", got ${JSON.stringify(value.role) ?? kind(value.role)}`);
  let content: string | null = null;
  if (typeof value.content === 'string') content = value.content;
  else if (
    Array.isArray(value.content) &&
    value.content.every((part) => isRecord(part) && part.type === 'text' && typeof part.text === 'string')
  ) {
    content = value.content.map((part) => (part as { text: string }).text).join('');
  } else if (value.content !== undefined && value.content !== null)
    check.add(`${path}/content`, `must be a string, null or a list of text parts, got ${kind(value.content)}`);
  if (content !== null && content.length > MAX_TURN_TEXT)
    check.add(`${path}/content`, `must be at most ${MAX_TURN_TEXT} characters, got ${content.length}`);
  const calls: ChatToolCall[] = [];
  if (value.tool_calls !== undefined && value.tool_calls !== null) {
    if (!Array.isArray(value.tool_calls))
      check.add(`${path}/tool_calls`, `must be a list of tool calls, got ${kind(value.tool_calls)}`);
    else if (value.tool_calls.length > MAX_ACTIONS)
      check.add(`${path}/tool_calls`, `must hold at most ${MAX_ACTIONS} calls, got ${value.tool_calls.length}`);
    else {
      value.tool_calls.forEach((call, i) => {
        const parsed = parseToolCall(call, `${path}/tool_calls/${i}`, check);
        if (parsed) calls.push(parsed);
      });
    }
  }
  if (check.errors.length > before) return undefined;
  return { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

function parseToolCall(value: unknown, path: string, check: Checker): ChatToolCall | undefined {
  if (!isRecord(value)) {
    check.add(
      path,
      `must be a tool call {"id", "type": "function", "function": {"name", "arguments"}}, got ${kind(value)}`,
    );
    return undefined;
  }
  const before = check.errors.length;
  check.members(value, path, ['id', 'type', 'function', 'index']);
  if (typeof value.id !== 'string' || value.id === '' || value.id.length > 256)
    check.add(
      `${path}/id`,
      `must be the call's id, a string of 1 to 256 characters, got ${JSON.stringify(value.id) ?? kind(value.id)}`,
    );
  if (value.type !== undefined && value.type !== 'function')
    check.add(`${path}/type`, `must be "function", got ${JSON.stringify(value.type) ?? kind(value.type)}`);
  const fn = value.function;
  if (!isRecord(fn)) check.add(`${path}/function`, `must be {"name", "arguments"}, got ${kind(fn)}`);
  else {
    check.members(fn, `${path}/function`, ['name', 'arguments']);
    if (typeof fn.name !== 'string' || fn.name === '' || fn.name.length > 256)
      check.add(
        `${path}/function/name`,
        `must be the function's name, got ${JSON.stringify(fn.name) ?? kind(fn.name)}`,
      );
    const args = fn.arguments;
    if (typeof args === 'string') {
      if (args.length > MAX_TURN_TEXT)
        check.add(`${path}/function/arguments`, `must be at most ${MAX_TURN_TEXT} characters, got ${args.length}`);
    } else if (args !== undefined && !isRecord(args))
      check.add(
        `${path}/function/arguments`,
        `must be a JSON string of the arguments (as OpenAI sends them) or an object, got ${kind(args)}`,
      );
  }
  if (check.errors.length > before) return undefined;
  const { name, arguments: args } = fn as { name: string; arguments?: string | Record<string, unknown> };
  return { id: value.id as string, type: 'function', function: { name, arguments: args ?? {} } };
}

/** `POST /v1/episodes/{id}/rewards` body (empty: as GET). */
export function parseRewardRequest(body: unknown): ParsedRewardRequest {
  const check = new Checker();
  const raw = body === undefined ? {} : body;
  if (!isRecord(raw))
    throw invalidRequest('reward request', [
      { path: '', message: `must be a JSON object {"verdicts"?, "judge"?}, got ${kind(raw)}` },
    ]);
  check.members(raw, '', ['verdicts', 'judge']);
  const request: ParsedRewardRequest = {};
  if (raw.verdicts !== undefined) {
    const verdicts = parseVerdicts(raw.verdicts, '/verdicts', check);
    if (verdicts) request.verdicts = verdicts;
  }
  if (raw.judge !== undefined) {
    if (raw.judge === false || (typeof raw.judge === 'string' && raw.judge.trim() !== '')) request.judge = raw.judge;
    else
      check.add(
        '/judge',
        `must be a judge spec "openai:MODEL@URL" or false, got ${JSON.stringify(raw.judge) ?? kind(raw.judge)}`,
      );
  }
  if (check.errors.length > 0) throw invalidRequest('reward request', check.errors);
  return request;
}

/** Quality, Faithfulness, Utility, each YES, PARTIAL or NO (case-insensitive on the way in). */
export function parseVerdicts(value: unknown, path: string, check: Checker): Verdicts | undefined {
  if (!isRecord(value)) {
    check.add(path, `must be an object {"quality", "faithfulness", "utility"}, got ${kind(value)}`);
    return undefined;
  }
  check.members(value, path, ['quality', 'faithfulness', 'utility']);
  const out: Partial<Verdicts> = {};
  for (const axis of ['quality', 'faithfulness', 'utility'] as const) {
    const given = value[axis];
    const verdict = verdictOf(given);
    if (verdict !== undefined) out[axis] = verdict;
    else
      check.add(`${path}/${axis}`, `must be one of ${VERDICTS.join(', ')}, got ${JSON.stringify(given) ?? 'nothing'}`);
  }
  return out.quality && out.faithfulness && out.utility ? (out as Verdicts) : undefined;
}

/** `POST /v1/advantages` body: groups of rollouts' three rewards, the mode, λ overrides. */
export function parseAdvantages(body: unknown): {
  groups: ComponentRewards[][];
  mode: AdvantageMode;
  lambdas: Partial<RewardCoefficients>;
} {
  const check = new Checker();
  if (!isRecord(body))
    throw invalidRequest('advantages request', [
      {
        path: '',
        message: `must be a JSON object {"groups": [[{"r_step", "r_phase", "r_traj"}, …], …]}, got ${kind(body)}`,
      },
    ]);
  check.members(body, '', ['groups', 'mode', 'lambda']);
  const groups: ComponentRewards[][] = [];
  if (!Array.isArray(body.groups) || body.groups.length === 0)
    check.add('/groups', `must be a non-empty array of groups, got ${kind(body.groups)}`);
  else {
    body.groups.forEach((group, g) => {
      if (!Array.isArray(group) || group.length === 0)
        return check.add(`/groups/${g}`, `must be a non-empty array of rollouts' rewards, got ${kind(group)}`);
      groups.push(group.map((item, i) => readComponents(item, `/groups/${g}/${i}`, check)));
    });
  }
  const mode = body.mode === undefined ? 'decoupled' : body.mode;
  if (!ADVANTAGE_MODES.includes(mode as AdvantageMode))
    check.add('/mode', `must be one of ${ADVANTAGE_MODES.join(', ')}, got ${JSON.stringify(mode)}`);
  const lambdas = body.lambda === undefined ? {} : (parseCoefficients(body.lambda, '/lambda', check) ?? {});
  for (const name of Object.keys(lambdas))
    if (!name.startsWith('lambda_'))
      check.add(`/lambda/${name}`, 'only the advantage weights lambda_traj, lambda_phase and lambda_step apply here');
  if (check.errors.length > 0) throw invalidRequest('advantages request', check.errors);
  return { groups, mode: mode as AdvantageMode, lambdas };
}

function readComponents(value: unknown, path: string, check: Checker): ComponentRewards {
  const out: ComponentRewards = { r_step: null, r_phase: null, r_traj: null };
  if (!isRecord(value)) {
    check.add(path, `must be an object {"r_step", "r_phase", "r_traj"}, got ${kind(value)}`);
    return out;
  }
  check.members(value, path, ['r_step', 'r_phase', 'r_traj']);
  for (const name of ['r_step', 'r_phase', 'r_traj'] as const) {
    const given = value[name];
    if (given === null || (typeof given === 'number' && Math.abs(given) <= MAX_REWARD_MAGNITUDE)) out[name] = given;
    else
      check.add(
        `${path}/${name}`,
        `must be a number of magnitude at most ${MAX_REWARD_MAGNITUDE}, or null for a flagged rollout, got ${JSON.stringify(given) ?? 'nothing'}`,
      );
  }
  return out;
}
