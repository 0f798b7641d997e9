import { parseJsonValues } from '../protocol/lenient-json.js';
import type { AssistantMessage, ToolParser } from '../wire/episodes.js';

/** One call of an assistant message, read: its arguments as an object, or why they could not be read. */
export interface ChatCall {
  id: string;
  name: string;
  arguments?: Record<string, unknown>;
  problem?: string;
}

/**
 * An assistant message, read: its text (tool-call markup removed), its calls in order, and what could not be read at
 * all.
 */
export interface ReadMessage {
  content: string;
  calls: ChatCall[];
  problems: string[];
}

const THINK = /<think>[\s\S]*?(<\/think>|$)/g;

/**
 * The part of a message's text that answers the user: its reasoning (`<think>…</think>`, as Qwen3 writes it) left out.
 */
export function answerText(content: string): string {
  return content.replace(THINK, '').trim();
}

/** An OpenAI assistant message (its shape already validated): `arguments` parsed where they are a JSON string. */
export function readAssistantMessage(message: AssistantMessage): ReadMessage {
  const calls = (message.tool_calls ?? []).map(({ id, function: fn }) => ({
    id,
    name: fn.name,
    ...argumentsOf(fn.arguments, `tool call ${id} (${fn.name})`),
  }));
  return { content: message.content ?? '', calls, problems: [] };
}

/** Raw model output in its native tool-call format; calls get ids `call_<turn>_<n>` (the text carries none). */
export function readToolText(text: string, parser: ToolParser, turn: number): ReadMessage {
  const read = PARSERS[parser](text);
  return { ...read, calls: read.calls.map((call, i) => ({ ...call, id: `call_${turn}_${i + 1}` })) };
}

type Parsed = { content: string; calls: Omit<ChatCall, 'id'>[]; problems: string[] };

const PARSERS: Record<ToolParser, (text: string) => Parsed> = { hermes, llama3, mistral };

/** Hermes / Qwen: `<tool_call>{"name": …, "arguments": {…}}</tool_call>` blocks anywhere in the text. */
function hermes(text: string): Parsed {
  const calls: Parsed['calls'] = [];
  const problems: string[] = [];
  const content: string[] = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf('<tool_call>', at);
    if (open < 0) break;
    content.push(text.slice(at, open));
    const close = text.indexOf('</tool_call>', open);
    if (close < 0) {
      problems.push(`<tool_call> #${calls.length + 1} is not closed: end it with </tool_call>`);
      at = text.length;
      break;
    }
    calls.push(
      callObject(text.slice(open + '<tool_call>'.length, close), 'arguments', `<tool_call> #${calls.length + 1}`),
    );
    at = close + '</tool_call>'.length;
  }
  content.push(text.slice(at));
  return { content: content.join('').trim(), calls, problems };
}

/**
 * Llama 3.1+ JSON tool calling: the message is `{"name": …, "parameters": {…}}` (after an optional `<|python_tag|>`),
 * several of them separated by `;` or new lines. A message that does not start so is text.
 */
function llama3(text: string): Parsed {
  const tagged = text.trimStart().startsWith('<|python_tag|>');
  const body = text
    .trim()
    .replace(/^<\|python_tag\|>/, '')
    .replace(/<\|eom_id\|>$|<\|eot_id\|>$/, '')
    .trim();
  if (!tagged && !/^\{\s*"name"\s*:/.test(body)) return { content: text.trim(), calls: [], problems: [] };
  const values = parseJsonValues(body.replace(/\}\s*;\s*(?=\{)/g, '}\n'));
  if (!values.ok) return { content: '', calls: [], problems: [`the tool calls are not JSON: ${values.error}`] };
  return {
    content: '',
    calls: values.values.map((value, i) => callValue(value, 'parameters', `call #${i + 1}`)),
    problems: [],
  };
}

/**
 * Mistral: text, then `[TOOL_CALLS]` and a JSON array of `{"name", "arguments"}` (v3 templates), or one or more
 * `[TOOL_CALLS]name[ARGS]{…}` (v11 and later).
 */
function mistral(text: string): Parsed {
  const marker = '[TOOL_CALLS]';
  const first = text.indexOf(marker);
  if (first < 0) return { content: text.trim(), calls: [], problems: [] };
  const content = text.slice(0, first).trim();
  const rest = text
    .slice(first + marker.length)
    .replace(/<\/s>\s*$/, '')
    .trim();
  if (rest.startsWith('[')) {
    const values = parseJsonValues(rest);
    if (!values.ok)
      return { content, calls: [], problems: [`[TOOL_CALLS] is not a JSON array of calls: ${values.error}`] };
    const list = values.values.length === 1 && Array.isArray(values.values[0]) ? values.values[0] : values.values;
    return { content, calls: list.map((value, i) => callValue(value, 'arguments', `call #${i + 1}`)), problems: [] };
  }
  const calls = rest.split(marker).map((part, i): Omit<ChatCall, 'id'> => {
    const args = part.indexOf('[ARGS]');
    const label = `call #${i + 1}`;
    if (args < 0) return { name: part.trim().slice(0, 64), problem: `${label}: write the call as NAME[ARGS]{…}` };
    return { name: part.slice(0, args).trim(), ...argumentsOf(part.slice(args + '[ARGS]'.length).trim(), label) };
  });
  return { content, calls, problems: [] };
}

/** A call written as one JSON object `{"name", "<argsKey>"}` (the other usual key accepted too). */
function callObject(json: string, argsKey: string, label: string): Omit<ChatCall, 'id'> {
  const values = parseJsonValues(json);
  if (!values.ok) return { name: '', problem: `${label} is not JSON: ${values.error}` };
  if (values.values.length !== 1)
    return { name: '', problem: `${label} holds ${values.values.length} JSON values; write one call per block` };
  return callValue(values.values[0], argsKey, label);
}

function callValue(value: unknown, argsKey: string, label: string): Omit<ChatCall, 'id'> {
  if (!isObject(value)) return { name: '', problem: `${label} must be a JSON object {"name", "${argsKey}"}` };
  if (typeof value.name !== 'string' || value.name === '')
    return { name: '', problem: `${label} has no "name": the function to call` };
  const args = value[argsKey] ?? value[argsKey === 'arguments' ? 'parameters' : 'arguments'];
  return { name: value.name, ...argumentsOf(args ?? {}, `${label} (${value.name})`) };
}

/** Arguments as an object: given so, or a JSON string of one (OpenAI's form; an empty string is no arguments). */
function argumentsOf(raw: unknown, label = 'the call'): Pick<ChatCall, 'arguments' | 'problem'> {
  if (typeof raw === 'string') {
    if (raw.trim() === '') return { arguments: {} };
    const values = parseJsonValues(raw);
    if (!values.ok) return { problem: `${label}: the arguments are not JSON: ${values.error}` };
    if (values.values.length !== 1) return { problem: `${label}: the arguments must be one JSON object` };
    raw = values.values[0];
  }
  if (!isObject(raw)) return { problem: `${label}: the arguments must be a JSON object` };
  return { arguments: raw };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
