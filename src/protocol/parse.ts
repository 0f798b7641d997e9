import { blockErrors } from './block-schemas.js';
import { escapeControlCharacters, parseJsonValues, stripFence } from './lenient-json.js';
import {
  MAX_JSON_DEPTH,
  type CallRequest,
  type CapabilitySlot,
  type ExecutionPlan,
  type ExplorationPlan,
  type ParsedMessage,
  type Plan,
  type SearchRequest,
} from './protocol.js';
import { extractBlocks } from './tags.js';

/**
 * Reads one assistant message: its tagged blocks, the JSON inside them, each block checked against its schema.
 * Tolerates what models get wrong in form (see tags.ts and lenient-json.ts) and reports what they get wrong in
 * substance as `problems`, each naming the block. Protocol rules that need the run's state (known tools, the DAG,
 * references, one phase per turn) are checked afterwards by check.ts.
 */
export function parseMessage(text: string): ParsedMessage {
  const blocks = extractBlocks(text);
  const form = {
    think: blocks.some((b) => b.name === 'think' && b.closed && b.content.trim() !== ''),
    unclosed: blocks.filter((b) => !b.closed).map((b) => b.name),
    plan: blocks.some((b) => b.name === 'plan'),
  };
  const message: ParsedMessage = { searches: [], calls: [], problems: [], form };
  const count = { plan: 0, answer: 0, search_tool: 0, tool_call: 0, think: 0 };
  const total = { plan: 0, answer: 0, search_tool: 0, tool_call: 0, think: 0 };
  for (const block of blocks) total[block.name]++;
  for (const block of blocks) {
    const n = ++count[block.name];
    const label = total[block.name] > 1 ? `<${block.name}> #${n}` : `<${block.name}>`;
    switch (block.name) {
      case 'think':
        message.think = [message.think, block.content.trim()].filter(Boolean).join('\n');
        break;
      case 'answer': {
        const answer = block.content.trim();
        if (count.answer > 1) message.problems.push('more than one <answer>: give one final answer');
        else if (answer === '') message.problems.push('<answer> is empty');
        else message.answer = answer;
        break;
      }
      case 'plan': {
        if (count.plan > 1) {
          message.problems.push('more than one <plan>: one plan per message');
          break;
        }
        const plan = readPlan(block.content, message.problems);
        if (plan) message.plan = plan;
        break;
      }
      case 'search_tool':
        message.searches.push(...readSearches(block.content, label, message.problems));
        break;
      case 'tool_call':
        message.calls.push(...readCalls(block.content, label, message.problems));
        break;
    }
  }
  return message;
}

function readPlan(content: string, problems: string[]): Plan | undefined {
  const parsed = parseJsonValues(content);
  if (!parsed.ok) return void problems.push(`<plan>: ${parsed.error}`);
  if (tooDeep(parsed.values)) return void problems.push(`<plan>: nests deeper than ${MAX_JSON_DEPTH} levels`);
  if (parsed.values.length !== 1)
    return void problems.push(
      `<plan>: holds ${parsed.values.length === 0 ? 'nothing' : `${parsed.values.length} JSON values`}; ` +
        'write one JSON object',
    );
  const value = parsed.values[0];
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return void problems.push('<plan>: must be a JSON object');
  const raw = { ...(value as Record<string, unknown>) };
  if (raw.phase === undefined) {
    if ('slots' in raw && !('calls' in raw)) raw.phase = 'exploration';
    else if ('calls' in raw && !('slots' in raw)) raw.phase = 'execution';
  }
  if (raw.phase === 'execution' && Array.isArray(raw.calls)) raw.calls = raw.calls.map((c) => renameToolMember(c));
  const errors = blockErrors('plan', raw);
  if (errors.length > 0) return void problems.push(...errors.map((e) => `<plan>: ${e}`));
  if (raw.phase === 'exploration') {
    const slots = (raw.slots as (string | { capability: string; query?: string })[]).map(
      (s): CapabilitySlot =>
        typeof s === 'string'
          ? { capability: s.trim(), query: s.trim() }
          : { capability: s.capability.trim(), query: (s.query ?? s.capability).trim() },
    );
    return { phase: 'exploration', slots } satisfies ExplorationPlan;
  }
  const calls = (
    raw.calls as { id: string; tool: string; arguments?: Record<string, unknown>; depends_on?: string[] }[]
  ).map((c) => ({
    id: c.id,
    tool: c.tool,
    arguments: c.arguments ?? {},
    depends_on: c.depends_on ?? [],
  }));
  const plan: ExecutionPlan = {
    phase: 'execution',
    tools: (raw.tools as string[] | undefined) ?? [...new Set(calls.map((c) => c.tool))],
    calls,
  };
  if (raw.layers !== undefined) plan.layers = raw.layers as string[][];
  return plan;
}

function readSearches(content: string, label: string, problems: string[]): SearchRequest[] {
  const body = stripFence(content);
  if (body === '') return reject(problems, `${label}: empty; write what to search for`);
  // Plain text is the query itself, as in the paper's examples; JSON is an object, a string or an array of those.
  if (!/^[[{"]/.test(body)) return [{ query: body.replace(/\s+/g, ' ') }];
  const parsed = parseJsonValues(body);
  if (!parsed.ok) return reject(problems, `${label}: ${parsed.error}`);
  const before = problems.length;
  const out: SearchRequest[] = [];
  for (const value of parsed.values.flatMap((v) => (Array.isArray(v) ? v : [v]))) {
    const search = typeof value === 'string' ? { query: value } : value;
    const errors = blockErrors('search_tool', search);
    if (errors.length > 0) problems.push(...errors.map((e) => `${label}: ${e}`));
    else out.push({ ...(search as SearchRequest), query: (search as SearchRequest).query.trim() });
  }
  if (out.length === 0 && problems.length === before) problems.push(`${label}: holds no search`);
  return out;
}

function readCalls(content: string, label: string, problems: string[]): CallRequest[] {
  const parsed = parseJsonValues(content);
  if (!parsed.ok) return reject(problems, `${label}: ${parsed.error}`);
  if (tooDeep(parsed.values)) return reject(problems, `${label}: nests deeper than ${MAX_JSON_DEPTH} levels`);
  const values = parsed.values.flatMap((v) => (Array.isArray(v) ? v : [v]));
  if (values.length === 0) return reject(problems, `${label}: empty; write {"tool": ID, "arguments": {...}}`);
  const out: CallRequest[] = [];
  for (const value of values) {
    const call = renameToolMember(value);
    if (call !== null && typeof call === 'object' && typeof (call as { arguments?: unknown }).arguments === 'string') {
      try {
        (call as { arguments: unknown }).arguments = JSON.parse(
          escapeControlCharacters((call as { arguments: string }).arguments),
        );
        if (tooDeep([(call as { arguments: unknown }).arguments])) {
          problems.push(`${label}: "arguments" nests deeper than ${MAX_JSON_DEPTH} levels`);
          continue;
        }
      } catch (error) {
        problems.push(`${label}: "arguments" is a string that is not JSON (${(error as Error).message})`);
        continue;
      }
    }
    const errors = blockErrors('tool_call', call);
    if (errors.length > 0) problems.push(...errors.map((e) => `${label}: ${e}`));
    else out.push(call as CallRequest);
  }
  return out;
}

/** OpenAI-style `name` read as `tool`; both at once is a contradiction the schema then reports. */
function renameToolMember(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !('name' in value) || 'tool' in value)
    return value;
  const record = { ...(value as Record<string, unknown>) };
  if ('name' in record && !('tool' in record)) {
    record.tool = record.name;
    delete record.name;
  }
  return record;
}

/** Whether any value nests arrays and objects deeper than MAX_JSON_DEPTH (the recursion stops there). */
function tooDeep(values: readonly unknown[], depth = 1): boolean {
  for (const value of values) {
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_JSON_DEPTH) return true;
    if (tooDeep(Array.isArray(value) ? value : Object.values(value), depth + 1)) return true;
  }
  return false;
}

function reject(problems: string[], problem: string): [] {
  problems.push(problem);
  return [];
}
