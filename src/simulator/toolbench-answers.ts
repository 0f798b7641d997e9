import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Tool } from '../library/tool.js';
import { canonicalJson } from './canonical.js';
import { CacheError } from './cache-error.js';
import type { ImportEntry } from './cache-types.js';
import { changeName, parseLoose, readBody, standardize } from './stablebench.js';
import { isJsonObject, type Rules } from './validate.js';
import { REAL_SOURCE } from './upstream/mode.js';

/**
 * ToolBench answer trajectories (`data/answer/G1_answer/*.json`, StableToolBench's converted answers): each file's
 * `answer_generation.train_messages` holds the conversations, where an assistant's function call is followed by the
 * function's observation `{"error": "", "response": "…"}` that RapidAPI gave. Those request–response pairs are real
 * answers; mapped onto library tools and validated arguments they enter the cache as source `real`.
 */

/** The length ToolBench cuts function names to (OpenAI's limit), keeping their end. */
const FUNCTION_NAME_LENGTH = 64;

/** ToolBench's function name of an API: `<api>_for_<tool>`, standardized, its last 64 characters. */
export function toolbenchFunctionName(toolName: string, apiName: string): string {
  return `${changeName(standardize(apiName))}_for_${standardize(toolName)}`.slice(-FUNCTION_NAME_LENGTH);
}

/**
 * Library tools by the function names a trajectory may call them by: ToolBench's name of a ToolBench-imported tool,
 * else a tool id.
 */
export class FunctionIndex {
  private readonly byName = new Map<string, string>();

  /** `toolbenchTools`: the library's tools of ToolBench origin; `hasTool`: whether an id is a library tool. */
  constructor(
    toolbenchTools: Iterable<Tool>,
    private readonly hasTool: (id: string) => boolean,
  ) {
    for (const tool of toolbenchTools) {
      if (tool.origin.format !== 'toolbench') continue;
      const name = toolbenchFunctionName(tool.origin.tool_name, tool.origin.api_name);
      // Two tools cut to the same 64 characters: the name no longer says which one, so it maps to neither.
      this.byName.set(name, this.byName.has(name) && this.byName.get(name) !== tool.id ? '' : tool.id);
    }
  }

  /** The tool a function name stands for; undefined when none (or an ambiguous cut name). */
  tool(name: string): string | undefined {
    const named = this.byName.get(name);
    if (named !== undefined) return named || undefined;
    return this.hasTool(name) ? name : undefined;
  }
}

/** What an import of trajectories found, and why calls were left out. */
export interface ToolbenchAnswersReport {
  files: number;
  /** Function calls with an observation, Finish excluded. */
  calls: number;
  /** Calls mapped to a library tool with arguments the tool accepts: the entries imported. */
  mapped: number;
  skipped: {
    /** The trajectory's own `Finish` (the answer, not an API call). */
    finish: number;
    /** Function names no library tool answers to, with how often each was called. */
    unknown_function: Record<string, number>;
    /** Arguments that are not a JSON object or that the tool's parameter schema refuses. */
    invalid_arguments: number;
    /** Observations whose `error` is set (a failed call, not an API answer). */
    recorded_errors: number;
    /** The same call (tool and arguments) seen again: the first observation is kept. */
    duplicates: number;
  };
}

export function emptyReport(): ToolbenchAnswersReport {
  return {
    files: 0,
    calls: 0,
    mapped: 0,
    skipped: { finish: 0, unknown_function: {}, invalid_arguments: 0, recorded_errors: 0, duplicates: 0 },
  };
}

/** Every `.json` file under the given files and directories, in sorted order. */
export function answerFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (path: string) => {
    if (!statSync(path).isDirectory()) return void files.push(path);
    for (const entry of readdirSync(path).sort()) {
      const child = join(path, entry);
      if (statSync(child).isDirectory() || entry.endsWith('.json')) walk(child);
    }
  };
  for (const path of paths) walk(path);
  return files;
}

/** One function call and the observation that answered it. */
interface Observed {
  name: string;
  arguments: unknown;
  content: unknown;
}

/**
 * The entries of answer trajectory files, for `CacheBackend.import` (one transaction). `rules` checks the arguments
 * as a call would be checked; the entry is keyed by the arguments the rules hand on. A file that is not a ToolBench
 * answer throws a CacheError naming it: the import then stores nothing.
 */
export function* readToolbenchAnswers(
  files: readonly string[],
  index: FunctionIndex,
  rules: Rules,
  report: ToolbenchAnswersReport,
): Generator<ImportEntry> {
  const seen = new Set<string>();
  for (const file of files) {
    report.files++;
    for (const call of observations(file)) {
      if (call.name === 'Finish') {
        report.skipped.finish++;
        continue;
      }
      report.calls++;
      const toolId = index.tool(call.name);
      if (toolId === undefined) {
        report.skipped.unknown_function[call.name] = (report.skipped.unknown_function[call.name] ?? 0) + 1;
        continue;
      }
      const observation = typeof call.content === 'string' ? (parseLoose(call.content) ?? call.content) : call.content;
      const { error, response } =
        isJsonObject(observation) && 'response' in observation
          ? observation
          : { error: undefined, response: observation };
      if (typeof error === 'string' ? error.trim() !== '' : error !== undefined && error !== null) {
        report.skipped.recorded_errors++;
        continue;
      }
      const args =
        typeof call.arguments === 'string'
          ? call.arguments.trim() === ''
            ? {}
            : parseLoose(call.arguments)
          : call.arguments;
      const checked = rules.check(toolId, args ?? {});
      if (!checked.ok) {
        report.skipped.invalid_arguments++;
        continue;
      }
      const key = `${toolId}\u0000${canonicalJson(checked.args)}`;
      if (seen.has(key)) {
        report.skipped.duplicates++;
        continue;
      }
      seen.add(key);
      report.mapped++;
      yield {
        tool: toolId,
        arguments: checked.args,
        status: checked.tool.response_status ?? 200,
        body: readBody(response),
        source: REAL_SOURCE,
      };
    }
  }
}

/**
 * The calls of one file's conversations, each once: `train_messages` repeats a conversation's prefix for every step.
 */
function observations(file: string): Observed[] {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CacheError(`${file}: not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  const generation = isJsonObject(value) ? value.answer_generation : undefined;
  const messages = isJsonObject(generation) ? generation.train_messages : undefined;
  if (!Array.isArray(messages))
    throw new CacheError(`${file}: not a ToolBench answer (expected answer_generation.train_messages)`);
  const conversations = messages.every(Array.isArray) ? (messages as unknown[][]) : [messages];
  const calls = new Map<string, Observed>();
  for (const conversation of conversations) {
    conversation.forEach((message, i) => {
      for (const call of pairs(conversation, message, i)) {
        const key = JSON.stringify([call.name, call.arguments, call.content]);
        if (!calls.has(key)) calls.set(key, call);
      }
    });
  }
  return [...calls.values()];
}

/**
 * The calls an assistant message makes and the observations that follow it: `function_call` then a `function`
 * message (ToolBench), or `tool_calls` then `tool` messages by `tool_call_id` (the OpenAI tools format).
 */
function pairs(conversation: unknown[], message: unknown, at: number): Observed[] {
  if (!isJsonObject(message) || message.role !== 'assistant') return [];
  const next = conversation.slice(at + 1);
  const call = message.function_call;
  if (isJsonObject(call) && typeof call.name === 'string') {
    const answer = next[0];
    if (!isJsonObject(answer) || answer.role !== 'function') return [];
    return [{ name: call.name, arguments: call.arguments, content: answer.content }];
  }
  if (!Array.isArray(message.tool_calls)) return [];
  return message.tool_calls.flatMap((toolCall): Observed[] => {
    const fn = isJsonObject(toolCall) ? toolCall.function : undefined;
    if (!isJsonObject(toolCall) || !isJsonObject(fn) || typeof fn.name !== 'string') return [];
    const answer = next.find((m) => isJsonObject(m) && m.role === 'tool' && m.tool_call_id === toolCall.id);
    return isJsonObject(answer) ? [{ name: fn.name, arguments: fn.arguments, content: answer.content }] : [];
  });
}
