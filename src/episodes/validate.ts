import type { CallControls } from '../simulator/types.js';
import { invalidRequest, type FieldError } from './errors.js';
import { isRecord, type Json } from './resource-body.js';
import { DEFAULT_SEARCH_K, MAX_ACTIONS, MAX_EPISODE_TOOLS, MAX_SEARCH_K, MAX_STEPS, MAX_TEXT } from './limits.js';
import type { Action, EpisodeConfig, EpisodeTask } from './types.js';

const kind = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Collects every problem of a request before refusing it, so one 400 names them all. */
class Checker {
  readonly errors: FieldError[] = [];

  add(path: string, message: string): void {
    this.errors.push({ path, message });
  }

  members(value: Json, path: string, known: readonly string[]): void {
    for (const key of Object.keys(value)) if (!known.includes(key)) this.add(`${path}/${escape(key)}`, `is not a known member (known: ${known.join(', ')})`);
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
function escape(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

/**
 * `POST /v1/episodes` body → the config, tool ids deduplicated in order. `known(id)` says whether the library
 * holds a tool. Throws EpisodeError 400 listing every wrong member.
 */
export function parseConfig(body: unknown, known: (toolId: string) => boolean): EpisodeConfig {
  const check = new Checker();
  const raw = body === undefined ? {} : body;
  if (!isRecord(raw)) throw invalidRequest('episode config', [{ path: '', message: `must be a JSON object, got ${kind(raw)}` }]);
  check.members(raw, '', ['seed', 'error_rate', 'task', 'tools', 'max_steps']);
  const config: EpisodeConfig = {};
  if (raw.seed !== undefined) {
    if (typeof raw.seed === 'number' && Number.isSafeInteger(raw.seed)) config.seed = raw.seed;
    else check.add('/seed', `must be an integer (a safe one: |seed| < 2^53), got ${JSON.stringify(raw.seed) ?? kind(raw.seed)}`);
  }
  if (raw.error_rate !== undefined) {
    if (typeof raw.error_rate === 'number' && raw.error_rate >= 0 && raw.error_rate <= 1) config.error_rate = raw.error_rate;
    else check.add('/error_rate', `must be a number from 0 to 1, got ${JSON.stringify(raw.error_rate) ?? kind(raw.error_rate)}`);
  }
  if (raw.max_steps !== undefined && check.integer(raw.max_steps, '/max_steps', 1, MAX_STEPS)) config.max_steps = raw.max_steps;
  if (raw.task !== undefined) {
    const task = parseTask(raw.task, check);
    if (task) config.task = task;
  }
  if (raw.tools !== undefined) {
    const tools = parseTools(raw.tools, check, known);
    if (tools) config.tools = tools;
  }
  if (check.errors.length > 0) throw invalidRequest('episode config', check.errors);
  return config;
}

function parseTask(value: unknown, check: Checker): EpisodeTask | undefined {
  if (!isRecord(value)) {
    check.add('/task', `must be an object {id, query, reference_tools?}, got ${kind(value)}`);
    return undefined;
  }
  check.members(value, '/task', ['id', 'query', 'reference_tools']);
  const ok = [check.text(value.id, '/task/id'), check.text(value.query, '/task/query', { empty: true })].every(Boolean);
  const task: EpisodeTask = { id: value.id as string, query: value.query as string };
  if (value.reference_tools !== undefined) {
    const refs = value.reference_tools;
    if (!Array.isArray(refs)) check.add('/task/reference_tools', `must be an array of tool ids, got ${kind(refs)}`);
    else if (refs.every((ref, i) => check.text(ref, `/task/reference_tools/${i}`))) task.reference_tools = refs as string[];
  }
  return ok ? task : undefined;
}

function parseTools(value: unknown, check: Checker, known: (toolId: string) => boolean): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_EPISODE_TOOLS) {
    check.add('/tools', `must be an array of 1 to ${MAX_EPISODE_TOOLS} tool ids, got ${Array.isArray(value) ? `${value.length} items` : kind(value)}`);
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
  if (!isRecord(body)) throw invalidRequest('step', [{ path: '', message: `must be a JSON object {"actions": [...]}, got ${kind(body)}` }]);
  check.members(body, '', ['actions']);
  const actions = body.actions;
  if (!Array.isArray(actions) || actions.length === 0 || actions.length > MAX_ACTIONS) {
    check.add(actionsPointer, `must be an array of 1 to ${MAX_ACTIONS} actions, got ${Array.isArray(actions) ? `${actions.length}` : kind(actions)}`);
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
      return withId({ type: 'search_tool' as const, query: value.query as string, k: (value.k as number | undefined) ?? DEFAULT_SEARCH_K });
    }
    case 'tool_call': {
      check.members(value, path, ['type', 'tool', 'arguments', 'id', 'controls']);
      check.text(value.tool, `${path}/tool`);
      if (value.arguments !== undefined && !isRecord(value.arguments)) check.add(`${path}/arguments`, `must be an object, got ${kind(value.arguments)}`);
      const controls = value.controls === undefined ? undefined : parseControls(value.controls, `${path}/controls`, check);
      const action = { type: 'tool_call' as const, tool: value.tool as string, arguments: (value.arguments as Json | undefined) ?? {} };
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
