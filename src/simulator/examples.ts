import type { Tool, ToolExample } from '../library/tool.js';
import { conformExample } from './conform.js';
import { callSeed } from './synth/random.js';
import type { Arguments, RespondContext, Responded, Responder } from './types.js';

/** The examples responder's context: `exampleName` asks for one named example (`Prefer: example=NAME`). */
export interface ExampleContext extends RespondContext {
  exampleName?: string;
}

/** The tool's example called `name`, whatever its status. */
export function exampleNamed(tool: Tool, name: string): ToolExample | undefined {
  return tool.examples.find((example) => example.name === name);
}

/**
 * The example a call gets without asking for one by name: one with the tool's success status (else any 2xx),
 * chosen by the call's seed when there are several, so the same call always gets the same example.
 */
export function successExample(tool: Tool, args: Arguments, seed: number): ToolExample | undefined {
  const status = tool.response_status ?? 200;
  let candidates = tool.examples.filter((example) => example.status === status);
  if (candidates.length === 0) candidates = tool.examples.filter((example) => example.status >= 200 && example.status < 300);
  if (candidates.length <= 1) return candidates[0];
  return candidates[callSeed(tool.id, args, seed) % candidates.length];
}

/**
 * Answers with the tool's spec examples: the named one when `exampleName` is given, as the spec wrote it, else a
 * success example made to agree with the request (`conformExample`: the user asked for is the user answered).
 * Resolves to undefined when there is none (or no example has that name), so the next responder answers.
 * The body is a copy: callers may change it without touching the tool record.
 */
export const examplesResponder = {
  name: 'example',
  respond(tool: Tool, args: Arguments, ctx: ExampleContext): Promise<Responded | undefined> {
    if (ctx.exampleName !== undefined) {
      const named = exampleNamed(tool, ctx.exampleName);
      return Promise.resolve(named && { status: named.status, body: structuredClone(named.body) });
    }
    const example = successExample(tool, args, ctx.seed);
    return Promise.resolve(example && { status: example.status, body: conformExample(tool, args, structuredClone(example.body)) });
  },
} satisfies Responder;
