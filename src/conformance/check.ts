/**
 * One answer of the REST surface held against the document the server serves for its API, as a contract tester
 * (Schemathesis) does: its status declared, its media type documented, its JSON body valid against the schema of that
 * status and media type.
 */
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../library/ajv.js';
import { deref, isObject } from '../library/openapi/refs.js';
import { convertSchema, dialectOf } from '../library/openapi/schema.js';
import { baseType, mediaKind } from '../server/rest/negotiate.js';
import {
  declaresClientError,
  documentedTypes,
  type OperationFacts,
  operationFacts,
} from '../server/rest/operation-facts.js';
import { NOT_REFUSALS } from '../simulator/vendor-error.js';

/**
 * Wide limits: the served document's schema whole, as a client generated from it reads it; only recursion stops
 * (where the converter leaves a placeholder).
 */
const CHECK_LIMITS = { maxDepth: 64, maxNodes: 100_000 };

export interface AnswerCheck {
  /** The status is one the operation declares (its code, its class, or `default`). */
  declared: boolean;
  /** The operation declares no 4xx (nor `default`). */
  noClientErrors: boolean;
  /**
   * The operation declares no 4xx this answer's kind can take: a refusal of credentials (401, 403) where it declares
   * neither, a refusal of arguments where its only 4xx are statuses no such refusal takes (401, 403, 407, 408, 429).
   */
  unfit: boolean;
  /** The content type is one documented for the status; undefined when the answer has no body or none is documented. */
  mediaDocumented: boolean | undefined;
  /** The JSON body satisfies the documented schema; undefined when there is no JSON body or no schema to hold it to. */
  valid: boolean | undefined;
  /** What the schema found wrong, when invalid (a few of ajv's errors). */
  errors?: string;
}

export class DocumentChecker {
  private readonly ajv = createAjv();
  private readonly validators = new Map<string, ValidateFunction | undefined>();

  constructor(private readonly document: Record<string, unknown>) {}

  check(path: string, method: string, status: number, contentType: string | null, text: string): AnswerCheck {
    const facts = operationFacts(this.document, path, method);
    const documented = documentedTypes(facts, status);
    const noClientErrors = !declaresClientError(facts);
    const result: AnswerCheck = {
      declared: documented !== undefined,
      noClientErrors,
      unfit: !declaresFitting(facts, status),
      mediaDocumented: undefined,
      valid: undefined,
    };
    if (text === '' || contentType === null || documented === undefined || documented.types.length === 0) return result;
    const media = documented.types.find((type) => covers(type, contentType));
    result.mediaDocumented = media !== undefined;
    if (media === undefined || mediaKind(contentType) !== 'json') return result;
    const validate = this.validator(path, method, documented.key, media);
    if (validate === undefined) return result;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return { ...result, valid: false, errors: 'not JSON' };
    }
    result.valid = validate(body);
    if (!result.valid) result.errors = this.ajv.errorsText(validate.errors?.slice(0, 3));
    return result;
  }

  private validator(path: string, method: string, key: string, media: string): ValidateFunction | undefined {
    const id = `${method} ${path} ${key} ${media}`;
    if (this.validators.has(id)) return this.validators.get(id);
    let validate: ValidateFunction | undefined;
    const schema = this.schemaOf(path, method, key, media);
    if (schema !== undefined) {
      try {
        validate = this.ajv.compile(
          convertSchema(schema, {
            document: this.document,
            dialect: dialectOf(this.document),
            usage: 'response',
            limits: CHECK_LIMITS,
          }) as object,
        );
      } catch {
        validate = undefined;
      }
    }
    this.validators.set(id, validate);
    return validate;
  }

  private schemaOf(path: string, method: string, key: string, media: string): unknown {
    const paths = isObject(this.document.paths) ? this.document.paths : {};
    const item = deref(this.document, paths[path]);
    const operation = isObject(item) ? deref(this.document, item[method.toLowerCase()]) : undefined;
    const responses = isObject(operation) && isObject(operation.responses) ? operation.responses : {};
    const written = Object.keys(responses).find((k) => k.toLowerCase() === key.toLowerCase());
    const response = written === undefined ? undefined : deref(this.document, responses[written]);
    const content = isObject(response) && isObject(response.content) ? response.content : {};
    const entry = content[media];
    return isObject(entry) ? entry.schema : undefined;
  }
}

/** Whether the operation declares a 4xx (or `4XX`, `default`) that an answer of `status` can take. */
function declaresFitting(facts: OperationFacts, status: number): boolean {
  if (status < 400 || status >= 500) return declaresClientError(facts);
  const credentials = status === 401 || status === 403;
  for (const key of facts.responses.keys()) {
    if (key === '4XX' || key === 'default') return true;
    const code = Number(key);
    if (code >= 400 && code < 500 && (credentials ? code === 401 || code === 403 : !NOT_REFUSALS.has(code)))
      return true;
  }
  return false;
}

/** Whether a documented media type (maybe a range such as `image/*`) covers the answer's content type. */
export function covers(documented: string, contentType: string): boolean {
  const range = baseType(documented);
  const type = baseType(contentType);
  if (range === type || range === '*/*') return true;
  return range.endsWith('/*') && type.startsWith(range.slice(0, -1));
}
