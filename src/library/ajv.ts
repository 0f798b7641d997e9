import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { SafePattern } from './safe-pattern.js';

/** OpenAPI's numeric and binary formats: annotations that constrain nothing a JSON value can break (int64 beyond 2^53 included). */
const OPENAPI_FORMATS = ['int32', 'int64', 'float', 'double', 'byte', 'binary', 'password'] as const;

/** `pattern` keywords run through SafePattern: a spec pattern with catastrophic backtracking must not let one agent's argument hang the server. */
const safeRegExp = Object.assign((pattern: string) => new SafePattern(pattern), { code: 'SafePattern' });

/**
 * The one ajv configuration the project validates with: JSON Schema 2020-12 (converted OpenAPI schemas target it),
 * every error reported, standard formats checked, patterns run without catastrophic backtracking, and unknown
 * keywords and formats tolerated because real documents are full of vendor extensions.
 */
export function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true, logger: false, code: { regExp: safeRegExp } });
  addFormats.default(ajv);
  for (const format of OPENAPI_FORMATS) ajv.addFormat(format, true);
  return ajv;
}
