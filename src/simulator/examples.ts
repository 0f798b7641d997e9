import type { Tool, ToolExample } from '../library/tool.js';
import { conformExample } from './conform.js';
import { violations } from './synth/check.js';
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
  if (candidates.length === 0)
    candidates = tool.examples.filter((example) => example.status >= 200 && example.status < 300);
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
    const body = example && validExample(tool, structuredClone(example.body));
    return Promise.resolve(
      example && body !== undefined
        ? { status: example.status, body: conformExample(tool, args, body.value) }
        : undefined,
    );
  },
} satisfies Responder;

/** Rounds of taking out undeclared members: each round's errors show the members the previous one uncovered. */
const REPAIR_ROUNDS = 3;

/**
 * The example as the response schema accepts it: as written, or with the members the schema forbids taken out
 * (Slack's `chat.postMessage` example carries an attachment property its schema does not allow). One that still
 * breaks the schema (a required member missing, a wrong type) is not served: the synthesizer answers instead, since a
 * client would read an answer its API's own document says cannot happen. A schema that does not compile checks nothing.
 */
export function validExample(tool: Tool, body: unknown): { value: unknown } | undefined {
  const schema = tool.response_schema;
  if (schema === undefined) return { value: body };
  let errors = violations(schema, body);
  for (let round = 0; errors !== undefined && errors.length > 0; round++) {
    const undeclared = errors.filter(
      (e) => e.keyword === 'additionalProperties' || e.keyword === 'unevaluatedProperties',
    );
    if (round === REPAIR_ROUNDS || undeclared.length === 0) return undefined;
    for (const error of undeclared) {
      const holder = at(body, error.instancePath);
      const name =
        (error.params as { additionalProperty?: string; unevaluatedProperty?: string }).additionalProperty ??
        (error.params as { unevaluatedProperty?: string }).unevaluatedProperty;
      if (holder !== null && typeof holder === 'object' && !Array.isArray(holder) && name !== undefined)
        delete (holder as Record<string, unknown>)[name];
    }
    errors = violations(schema, body);
  }
  return { value: body };
}

/** The value a JSON Pointer (ajv's `instancePath`) points at. */
function at(value: unknown, pointer: string): unknown {
  let current = value;
  for (const token of pointer.split('/').slice(1)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[token.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return current;
}
