import type { ErrorObject, ValidateFunction } from 'ajv';
import { LRUCache } from 'lru-cache';
import type { Tool } from '../library/tool.js';
import { createAjv } from '../library/ajv.js';
import { laxArguments, type Coercion, type CoercionMode } from './lax.js';
import { NearestIds } from './nearest.js';
import { problem, type Problem } from './problem.js';
import type { Arguments } from './types.js';
import { argumentHint, unknownArguments, withoutArguments, type UnknownArgumentsMode } from './unknown-arguments.js';

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

/** A call the rules let through: the arguments to answer (coerced, or without ignored names) and what was changed. */
export interface RuleAccepted {
  ok: true;
  tool: Tool;
  args: Arguments;
  /** Values the lax mode changed. */
  coerced?: Coercion[];
  /** Undeclared arguments the ignore mode dropped. */
  ignored?: string[];
}

export type RuleOutcome = RuleAccepted | { ok: false; problem: Problem };

export interface RulesOptions {
  /** Compiled validators kept at once (least recently used are dropped); default 2048. */
  maxValidators?: number;
  /**
   * Called when a tool's parameter schema does not compile; the tool's calls are then checked for required parameters
   * only.
   */
  onCompileFailure?: (toolId: string, error: Error) => void;
  /** Top-level arguments the tool does not declare: refused (default) or dropped. */
  unknownArguments?: UnknownArgumentsMode;
  /** Values of the wrong JSON type: refused (default) or coerced where pydantic-style servers would. */
  coercion?: CoercionMode;
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
  // Made on the first compile: a server starts without loading ajv.
  private madeAjv: ReturnType<typeof createAjv> | undefined;
  private readonly validators: LRUCache<string, Compiled>;
  private readonly onCompileFailure: ((toolId: string, error: Error) => void) | undefined;
  readonly unknownArguments: UnknownArgumentsMode;
  readonly coercion: CoercionMode;
  private nearest: NearestIds | undefined;

  constructor(store: ToolSource, options: RulesOptions = {}) {
    this.store = store;
    this.onCompileFailure = options.onCompileFailure;
    this.unknownArguments = options.unknownArguments ?? 'reject';
    this.coercion = options.coercion ?? 'strict';
    // ajv keeps every compiled schema in its own cache: evicting ours must evict ajv's too, or memory grows anyway.
    this.validators = new LRUCache<string, Compiled>({
      max: options.maxValidators ?? 2048,
      dispose: (compiled) => {
        if (typeof compiled.schema === 'object') this.ajv().removeSchema(compiled.schema);
      },
    });
  }

  private ajv(): ReturnType<typeof createAjv> {
    return (this.madeAjv ??= createAjv());
  }

  /** Validators currently compiled. */
  get compiled(): number {
    return this.validators.size;
  }

  /**
   * Checks one call. `args` undefined counts as `{}` (a call without arguments); anything else must be a JSON object.
   */
  check(toolId: string, args: unknown): RuleOutcome {
    const tool = this.store.get(toolId);
    if (!tool) return { ok: false, problem: this.unknownTool(toolId) };
    const given = args === undefined ? {} : args;
    if (!isJsonObject(given)) {
      const kind = given === null ? 'null' : Array.isArray(given) ? 'an array' : `a ${typeof given}`;
      return {
        ok: false,
        problem: invalidArguments(tool.id, `arguments must be a JSON object, got ${kind}`, [
          { path: '', message: 'must be object' },
        ]),
      };
    }
    const unknown = unknownArguments(tool, given);
    if (unknown.length > 0 && this.unknownArguments === 'ignore') {
      const accepted = this.checkDeclared(tool, withoutArguments(given, unknown));
      return accepted.ok ? { ...accepted, ignored: [...unknown] } : accepted;
    }
    if (unknown.length > 0) return { ok: false, problem: this.unknownProblem(tool, given, unknown) };
    return this.checkDeclared(tool, given);
  }

  private checkDeclared(tool: Tool, args: Arguments): RuleOutcome {
    const { validate } = this.validator(tool);
    if (!validate) {
      const missing = missingRequired(tool, args);
      return missing.length > 0
        ? { ok: false, problem: invalidArguments(tool.id, summarize(missing), missing) }
        : { ok: true, tool, args };
    }
    if (validate(args)) return { ok: true, tool, args };
    const failed = validate.errors ?? [];
    if (this.coercion === 'lax') {
      const mended = laxArguments(args, failed, validate);
      if (mended) return { ok: true, tool, args: mended.args, coerced: mended.coerced };
    }
    const errors = describeErrors(failed, tool);
    return { ok: false, problem: invalidArguments(tool.id, summarize(errors), errors) };
  }

  /**
   * Names the undeclared arguments, where each probably belongs, and what the tool takes; declared ones are checked
   * too, so one answer says everything.
   */
  private unknownProblem(tool: Tool, args: Arguments, unknown: readonly string[]): Problem {
    const allowed = Object.keys(tool.parameters.properties ?? {});
    const errors: ArgumentError[] = unknown.map((name) => {
      const hint = argumentHint(tool, name);
      const suggestion = hint === undefined ? '' : `; did you mean ${JSON.stringify(hint)}?`;
      return {
        path: pointer('', name),
        message: `is not a parameter of ${tool.id}${suggestion}`,
      };
    });
    const declared = this.checkDeclared(tool, withoutArguments(args, unknown));
    if (!declared.ok && Array.isArray(declared.problem.errors))
      errors.push(...(declared.problem.errors as ArgumentError[]));
    const names = unknown.map((n) => JSON.stringify(n)).join(', ');
    const detail =
      `unknown argument${unknown.length === 1 ? '' : 's'} ${names} for ${tool.id}; its parameters: ` +
      `${allowed.join(', ') || '(none)'}`;
    return problem(400, 'Unknown arguments', detail, { tool: tool.id, unknown, allowed, errors });
  }

  /**
   * The `n` library ids nearest to `toolId`; the index is built on first use and rebuilt when the library's id list
   * changes.
   */
  suggestions(toolId: string, n = 3): string[] {
    const ids = this.store.ids();
    if (this.nearest?.ids !== ids) this.nearest = new NearestIds(ids);
    return this.nearest.find(toolId, n);
  }

  private unknownTool(toolId: string): Problem {
    const suggestions = this.suggestions(toolId);
    const hint =
      suggestions.length > 0 ? `; did you mean ${suggestions.map((s) => JSON.stringify(s)).join(', ')}?` : '';
    return problem(404, 'Unknown tool', `no tool with id ${JSON.stringify(toolId)}${hint}`, {
      tool: toolId,
      suggestions,
    });
  }

  private validator(tool: Tool): Compiled {
    const cached = this.validators.get(tool.id);
    if (cached) return cached;
    const schema = tool.parameters as object | boolean;
    let compiled: Compiled;
    try {
      compiled = { schema, validate: this.ajv().compile(schema) };
    } catch (error) {
      // A schema ajv rejects (invalid keywords, unresolvable $ref…) leaves the tool callable: only `required` is
      // enforced.
      if (typeof schema === 'object') this.ajv().removeSchema(schema);
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

function summarize(errors: readonly ArgumentError[]): string {
  return errors.map((e) => `${e.path || '(arguments)'} ${e.message}`).join('; ');
}

function invalidArguments(toolId: string, detail: string, errors: ArgumentError[]): Problem {
  return problem(400, 'Invalid arguments', detail, { tool: toolId, errors });
}

function missingRequired(tool: Tool, args: Arguments): ArgumentError[] {
  const required = Array.isArray(tool.parameters?.required) ? tool.parameters.required : [];
  return required
    .filter((name) => !Object.hasOwn(args, name))
    .map((name) => ({ path: pointer('', name), message: 'is required' }));
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
      return {
        path: error.instancePath,
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
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
