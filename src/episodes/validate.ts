import type { AdvantageMode, ComponentRewards } from '../rl/advantages.js';
import { verdictOf, type RewardCoefficients, type Verdicts } from '../wire/rewards.js';
import type {
  AdvantagesRequest,
  AssistantMessage as AssistantMessageRequest,
  GroupRequest,
  RewardRequest,
  StepRequest,
  TurnRequest,
  VerdictsInput,
} from '../wire/schema-types.js';
import type { Action, AssistantMessage, EpisodeConfig, ParsedRewardRequest, ParsedTurn } from '../wire/episodes.js';
import { invalidRequest, type FieldError } from './errors.js';
import { DEFAULT_SEARCH_K, MAX_TURN_TEXT } from './limits.js';
import { requestErrors, type RequestShape } from '../wire/request-errors.js';
import type { Json } from './resource-body.js';

/**
 * The episode and reward routes' request bodies. Each is checked against its schema in schemas/ (the one statement
 * of its shape and bounds); what is written here is only what a schema cannot say: the library's tool ids, the
 * length of text parts joined, and the forms the code holds after parsing (defaults filled, verdicts upper-cased).
 */

/** Collects every problem of a request before refusing it, so one 400 names them all. */
export class Checker {
  readonly errors: FieldError[] = [];

  add(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  members(value: Json, path: string, known: readonly string[]): void {
    for (const key of Object.keys(value))
      if (!known.includes(key))
        this.add(
          `${path}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`,
          `is not a known member (known: ${known.join(', ')})`,
        );
  }
}

/** What a body of each shape looks like, for the refusal of one that is not a JSON object at all. */
const OUTLINES = {
  EpisodeConfig: '{"task"?, "tools"?, "seed"?, …}',
  GroupRequest: '{"task", "n", …episode options}',
  StepRequest: '{"actions": [...]}',
  TurnRequest: '{"text": "<the assistant message>"} (or, in a chat episode, {"message": {…}})',
  RewardRequest: '{"verdicts"?, "judge"?}',
  VerdictsInput: '{"quality", "faithfulness", "utility"}',
  AdvantagesRequest: '{"groups": [[{"r_step", "r_phase", "r_traj"}, …], …]}',
} satisfies Partial<Record<RequestShape, string>>;

/** The body's schema errors, a wrong top-level kind named with the shape it should have. */
function schemaErrors(shape: keyof typeof OUTLINES, body: unknown): FieldError[] {
  return requestErrors(shape, body).map((error) =>
    error.path === '' && error.message.startsWith('must be an object')
      ? {
          path: '',
          message: `must be a JSON object ${OUTLINES[shape]}${error.message.slice('must be an object'.length)}`,
        }
      : error,
  );
}

/**
 * `POST /v1/episodes` body → the config, tool ids deduplicated in order. `known(id)` says whether the library
 * holds a tool. Throws EpisodeError 400 listing every wrong member, or 404 when the config is well formed but names
 * tools the library lacks.
 */
export function parseConfig(body: unknown, known: (toolId: string) => boolean): EpisodeConfig {
  const raw = body === undefined ? {} : body;
  refuse('episode config', schemaErrors('EpisodeConfig', raw), unknownTools(raw, known));
  return configOf(raw as EpisodeConfig);
}

/** `POST /v1/groups` body: `n`, a task, and any episode option. */
export function parseGroup(body: unknown, known: (toolId: string) => boolean): { n: number; config: EpisodeConfig } {
  refuse('group', schemaErrors('GroupRequest', body), unknownTools(body, known));
  const { n, ...config } = body as GroupRequest;
  return { n, config: configOf(config) };
}

/** A body that breaks its schema is a 400 (unknown tools listed beside); one that only names missing tools, a 404. */
function refuse(what: string, malformed: FieldError[], unknown: FieldError[]): void {
  if (malformed.length > 0) throw invalidRequest(what, [...malformed, ...unknown]);
  if (unknown.length > 0) throw invalidRequest(what, unknown, 404);
}

function configOf(config: EpisodeConfig): EpisodeConfig {
  return config.tools ? { ...config, tools: [...new Set(config.tools)] } : { ...config };
}

/**
 * Tool ids the library lacks, in `tools` and the task's `reference_tools`: a reference that could never be called
 * would silently cap its recall and every reward built on it, so it is refused as an unknown tool in `tools` is.
 */
function unknownTools(body: unknown, known: (toolId: string) => boolean): FieldError[] {
  const config = (typeof body === 'object' && body !== null ? body : {}) as { tools?: unknown; task?: unknown };
  const ids = (value: unknown): [string, number][] =>
    Array.isArray(value) ? value.flatMap((id, i) => (typeof id === 'string' && id.trim() !== '' ? [[id, i]] : [])) : [];
  const errors: FieldError[] = [];
  for (const [id, i] of ids(config.tools))
    if (!known(id)) errors.push({ path: `/tools/${i}`, message: `no tool ${JSON.stringify(id)} in the library` });
  const task = (typeof config.task === 'object' && config.task !== null ? config.task : {}) as Json;
  for (const [id, i] of ids(task.reference_tools))
    if (!known(id))
      errors.push({
        path: `/task/reference_tools/${i}`,
        message:
          `no tool ${JSON.stringify(id)} in the library: the agent could never call it; use a library id (GET ` +
          '/v1/tools, POST /v1/search) or leave it out',
      });
  return errors;
}

/**
 * `POST /v1/episodes/{id}/step` body → its actions, defaults filled (`k`, `arguments`). Throws EpisodeError 400 whose
 * pointers name the actions at `actionsPointer` (a caller that built the step from its own request names its member).
 */
export function parseStep(body: unknown, actionsPointer = '/actions'): Action[] {
  const errors = schemaErrors('StepRequest', body).map((error) =>
    error.path.startsWith('/actions')
      ? { ...error, path: actionsPointer + error.path.slice('/actions'.length) }
      : error,
  );
  if (errors.length > 0) throw invalidRequest('step', errors);
  // Built member by member (an object rest spread costs more than the check): the schema allows no other members.
  return (body as StepRequest).actions.map((action): Action => {
    if (action.type === 'search_tool') {
      const search: Action = { type: 'search_tool', query: action.query, k: action.k ?? DEFAULT_SEARCH_K };
      if (action.id !== undefined) search.id = action.id;
      return search;
    }
    const call: Action = { type: 'tool_call', tool: action.tool, arguments: action.arguments ?? {} };
    if (action.controls !== undefined) call.controls = action.controls;
    if (action.id !== undefined) call.id = action.id;
    return call;
  });
}

/** `POST /v1/episodes/{id}/turns` body. */
export function parseTurn(body: unknown): ParsedTurn {
  const errors = schemaErrors('TurnRequest', body);
  if (errors.length > 0) throw invalidRequest('turn', errors);
  const { text, message, state } = body as TurnRequest;
  const request: ParsedTurn = {};
  if (text !== undefined) request.text = text;
  else request.message = assistantMessage(message!);
  if (state === true) request.state = true;
  return request;
}

/** An OpenAI assistant message as the episode reads it: text parts joined, tool calls without their stream index. */
function assistantMessage(message: AssistantMessageRequest): AssistantMessage {
  const content = Array.isArray(message.content)
    ? message.content.map((part) => part.text).join('')
    : (message.content ?? null);
  // The schema bounds a string's length; text parts are bounded once joined.
  if (content !== null && content.length > MAX_TURN_TEXT)
    throw invalidRequest('turn', [
      { path: '/message/content', message: `must be at most ${MAX_TURN_TEXT} characters, got ${content.length}` },
    ]);
  const calls = (message.tool_calls ?? []).map(({ id, function: { name, arguments: args } }) => ({
    id,
    type: 'function' as const,
    function: { name, arguments: args ?? {} },
  }));
  return { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

/** `POST /v1/episodes/{id}/rewards` body (empty: as GET). */
export function parseRewardRequest(body: unknown): ParsedRewardRequest {
  const raw = body === undefined ? {} : body;
  const errors = schemaErrors('RewardRequest', raw);
  if (errors.length > 0) throw invalidRequest('reward request', errors);
  const { verdicts, judge } = raw as RewardRequest;
  return {
    ...(verdicts === undefined ? {} : { verdicts: upperCased(verdicts) }),
    ...(judge === undefined ? {} : { judge }),
  };
}

/** Quality, Faithfulness, Utility, each YES, PARTIAL or NO (case-insensitive on the way in). */
export function parseVerdicts(value: unknown, path: string, check: Checker): Verdicts | undefined {
  const errors = schemaErrors('VerdictsInput', value);
  for (const error of errors) check.add(path + error.path, error.message);
  return errors.length > 0 ? undefined : upperCased(value as VerdictsInput);
}

const upperCased = (verdicts: VerdictsInput): Verdicts => ({
  quality: verdictOf(verdicts.quality)!,
  faithfulness: verdictOf(verdicts.faithfulness)!,
  utility: verdictOf(verdicts.utility)!,
});

/** `POST /v1/advantages` body: groups of rollouts' three rewards, the mode, λ overrides. */
export function parseAdvantages(body: unknown): {
  groups: ComponentRewards[][];
  mode: AdvantageMode;
  lambdas: Partial<RewardCoefficients>;
} {
  const errors = schemaErrors('AdvantagesRequest', body);
  if (errors.length > 0) throw invalidRequest('advantages request', errors);
  const { groups, mode = 'decoupled', lambda = {} } = body as AdvantagesRequest;
  return { groups, mode, lambdas: lambda };
}
