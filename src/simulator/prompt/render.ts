import { CUT_KEYWORD } from '../../library/openapi/schema.js';
import type { Tool } from '../../library/tool.js';
import type { Arguments } from '../types.js';
import type { FewShotExample } from './few-shot.js';
import { TOOL_RESPONSE_V1, type PromptTemplate } from './tool-response.v1.js';

export interface RenderOptions {
  /** Candidate few-shot examples, best first; as many are kept as fit the budget. */
  examples?: readonly FewShotExample[];
  /** Tokens the system and user messages may take together; examples are dropped, never the call, to stay under it. */
  budgetTokens: number;
  /** The generator's tokenizer (or an estimate of it). */
  countTokens: (text: string) => number;
  /** Longer tool descriptions are cut to this many characters; default 2000. */
  maxDescriptionChars?: number;
  template?: PromptTemplate;
}

export interface RenderedPrompt {
  /** The template's version, for logs and benchmarks. */
  version: string;
  system: string;
  user: string;
  /** How many of the candidate examples fit. */
  examples: number;
  /** Tokens of system + user, as `countTokens` counts them. */
  tokens: number;
}

/** Renders the prompt for one call: the tool, its schemas, as many examples as the budget allows, the arguments. */
export function renderToolPrompt(tool: Tool, args: Arguments, options: RenderOptions): RenderedPrompt {
  const template = options.template ?? TOOL_RESPONSE_V1;
  const maxDescription = options.maxDescriptionChars ?? 2000;
  const description =
    tool.description.length > maxDescription ? `${tool.description.slice(0, maxDescription)}…` : tool.description;
  const fields = {
    name: tool.name,
    id: tool.id,
    description: description || tool.name,
    parameters: JSON.stringify(tool.parameters),
    status: String(tool.response_status ?? 200),
    response_schema:
      tool.response_schema === undefined ? template.noSchema : JSON.stringify(tool.response_schema, withoutCutMarks),
    arguments: JSON.stringify(args),
  };

  const system = template.system;
  const bare = fill(template.user, { ...fields, examples: '' });
  let used = options.countTokens(system) + options.countTokens(bare);
  const shown: string[] = [];
  for (const example of options.examples ?? []) {
    const text = fill(template.example, {
      arguments: example.arguments === undefined ? template.unrecordedArguments : JSON.stringify(example.arguments),
      body: JSON.stringify(example.body),
    });
    const cost = options.countTokens(text);
    if (used + cost > options.budgetTokens) continue;
    used += cost;
    shown.push(text);
  }
  return {
    version: template.version,
    system,
    user: fill(template.user, { ...fields, examples: shown.join('') }),
    examples: shown.length,
    tokens: used,
  };
}

/** Replaces every {{name}} in `text`; a placeholder without a value is a bug in the template, so it throws. */
function fill(text: string, values: Record<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`prompt template: no value for {{${name}}}`);
    return value;
  });
}

/** A model reads the schema as the API documents it: where the library cut it is no part of that. */
const withoutCutMarks = (key: string, value: unknown) => (key === CUT_KEYWORD ? undefined : value);
