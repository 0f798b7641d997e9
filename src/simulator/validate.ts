import type { ErrorObject, ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import type { Tool } from '../library/tool.js';
import { createAjv } from './ajv.js';
import { NearestIds } from './nearest.js';
import { problem, type Problem } from './problem.js';
import type { Arguments } from './types.js';

/** What the Rule layer needs from a library: `LibraryStore` satisfies it, and so does any in-memory map. */
export interface ToolSource {
  get(id: string): Tool | undefined;
  ids(): readonly string[];
}

/** One thing wrong with a call's arguments: a JSON Pointer into the arguments and what must change there. */
export interface ArgumentError {
  path: string;
  message: string;
}

export type RuleOutcome = { ok: true; tool: Tool; args: Arguments } | { ok: false; problem: Problem };

export interface RulesOptions {
  /** Compiled validators kept at once (least recently used are dropped); default 2048. */
  maxValidators?: number;
  /** Called when a tool's parameter schema does not compile; the tool's calls are then checked for required parameters only. */
  onCompileFailure?: (toolId: string, error: Error) => void;
}

interface Compiled {
  schema: object | boolean;
  validate: ValidateFunction | undefined;
}

/**
 * The Rule layer: the tool exists, the arguments are a JSON object, and they satisfy the tool's parameter schema.
 * Validators compile on a tool's first call and live in a bounded LRU, so memory stays flat over 50,011 tools.
 */
export class Rules {
  private readonly store: ToolSource;
  private readonly ajv = createAjv();
  private readonly validators: LRUCache<string, Compiled>;
  private readonly onCompileFailure: ((toolId: string, error: Error) => void) | undefined;
  private nearest: NearestIds | undefined;

  constructor(store: ToolSource, options: RulesOptions = {}) {
    this.store = store;
    this.onCompileFailure = options.onCompileFailure;
    // ajv keeps every compiled schema in its own cache: evicting ours must evict ajv's too, or memory grows anyway.
    this.validators = new LRUCache<string, Compiled>({
      max: options.maxValidators ?? 2048,
      dispose: (compiled) => {
        if (typeof compiled.schema === 'object') this.ajv.removeSchema(compiled.schema);
      },
    });
  }

  /** Validators currently compiled. */
  get compiled(): number {
    return this.validators.size;
  }

  /** Checks one call. `args` undefined counts as `{}` (a call without arguments); anything else must be a JSON object. */
  check(toolId: string, args: unknown): RuleOutcome {
    const tool = this.store.get(toolId);
    if (!tool) return { ok: false, problem: this.unknownTool(toolId) };
    const given = args === undefined ? {} : args;
    if (!isJsonObject(given)) {
      const kind = given === null ? 'null' : Array.isArray(given) ? 'an array' : `a ${typeof given}`;
      return {
        ok: false,
        problem: invalidArguments(tool.id, `arguments must be a JSON object, got ${kind}`, [{ path: '', message: 'must be object' }]),
      };
    }
    const errors = this.argumentErrors(tool, given);
    if (errors.length > 0) {
      const summary = errors.map((e) => `${e.path || '(arguments)'} ${e.message}`).join('; ');
      return { ok: false, problem: invalidArguments(tool.id, summary, errors) };
    }
    return { ok: true, tool, args: given };
  }

  /** The `n` library ids nearest to `toolId`; the index is built on first use and rebuilt when the library's id list changes. */
  suggestions(toolId: string, n = 3): string[] {
    const ids = this.store.ids();
    if (this.nearest?.ids !== ids) this.nearest = new NearestIds(ids);
    return this.nearest.find(toolId, n);
  }

  private unknownTool(toolId: string): Problem {
    const suggestions = this.suggestions(toolId);
    const hint = suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => JSON.stringify(s)).join(', ')}?` : '';
    return problem(404, 'Unknown tool', `no tool with id ${JSON.stringify(toolId)}${hint}`, { tool: toolId, suggestions });
  }

  private argumentErrors(tool: Tool, args: Arguments): ArgumentError[] {
    const { validate } = this.validator(tool);
    if (!validate) return missingRequired(tool, args);
    if (validate(args)) return [];
    return describeErrors(validate.errors ?? [], tool);
  }

  private validator(tool: Tool): Compiled {
    const cached = this.validators.get(tool.id);
    if (cached) return cached;
    const schema = tool.parameters as object | boolean;
    let compiled: Compiled;
    try {
      compiled = { schema, validate: this.ajv.compile(schema) };
    } catch (error) {
      // A schema ajv rejects (invalid keywords, unresolvable $ref…) leaves the tool callable: only `required` is enforced.
      if (typeof schema === 'object') this.ajv.removeSchema(schema);
      compiled = { schema, validate: undefined };
      this.onCompileFailure?.(tool.id, error instanceof Error ? error : new Error(String(error)));
    }
    this.validators.set(tool.id, compiled);
    return compiled;
  }
}

export function isJsonObject(value: unknown): value is Arguments {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalidArguments(toolId: string, detail: string, errors: ArgumentError[]): Problem {
  return problem(400, 'Invalid arguments', detail, { tool: toolId, errors });
}

function missingRequired(tool: Tool, args: Arguments): ArgumentError[] {
  const required = Array.isArray(tool.parameters?.required) ? tool.parameters.required : [];
  return required.filter((name) => !Object.hasOwn(args, name)).map((name) => ({ path: pointer('', name), message: 'is required' }));
}

function pointer(base: string, property: string): string {
  return `${base}/${property.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** ajv's errors, reworded where ajv is vague ("must be equal to one of the allowed values") and deduplicated. */
export function describeErrors(errors: ErrorObject[], tool?: Tool): ArgumentError[] {
  const seen = new Set<string>();
  const out: ArgumentError[] = [];
  for (const error of errors) {
    const described = describe(error, tool);
    const key = `${described.path}\u0000${described.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(described);
  }
  return out;
}

function describe(error: ErrorObject, tool: Tool | undefined): ArgumentError {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: pointer(error.instancePath, String(params.missingProperty)), message: 'is required' };
    case 'dependentRequired':
      return {
        path: pointer(error.instancePath, String(params.missingProperty)),
        message: `is required when ${JSON.stringify(params.property)} is present`,
      };
    case 'type': {
      const type = Array.isArray(params.type) ? params.type.join(' or ') : String(params.type).split(',').join(' or ');
      return { path: error.instancePath, message: `must be ${type}` };
    }
    case 'enum':
      return { path: error.instancePath, message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { path: error.instancePath, message: `must be ${JSON.stringify(params.allowedValue)}` };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const property = String(params.additionalProperty ?? params.unevaluatedProperty);
      const known = error.instancePath === '' && tool ? Object.keys(tool.parameters.properties ?? {}) : [];
      const hint = known.length > 0 ? ` (parameters: ${known.join(', ')})` : '';
      return { path: pointer(error.instancePath, property), message: `is not an allowed property${hint}` };
    }
    default:
      return { path: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
  }
}
