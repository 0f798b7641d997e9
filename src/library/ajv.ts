import type { Options } from 'ajv';
import type * as Ajv from 'ajv/dist/2020.js';
import type AjvFormats from 'ajv-formats';
import { lazyRequire } from '../lazy-require.js';
import { SafePattern } from './safe-pattern.js';

// Loaded by the first createAjv: a server starts without them, validators compiling on a tool's first call.
const ajvPackage = lazyRequire<typeof Ajv>('ajv/dist/2020.js');
const formatsPackage = lazyRequire<typeof AjvFormats>('ajv-formats');

/** OpenAPI's float and binary formats: annotations that constrain nothing a JSON value can break. */
const OPENAPI_FORMATS = ['float', 'double', 'byte', 'binary', 'password'] as const;

/**
 * OpenAPI's integer formats bound the value as the API's own types do (a Java `int` refuses 2^31). Checked on numbers
 * only; an int64 past 2^53 is still in range as JSON reads it.
 */
export const INTEGER_FORMAT_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [-(2 ** 63), 2 ** 63 - 1],
};

/**
 * `pattern` keywords run through SafePattern: a spec pattern with catastrophic backtracking must not let one agent's
 * argument hang the server.
 */
const safeRegExp = Object.assign((pattern: string) => new SafePattern(pattern), { code: 'SafePattern' });

/**
 * The one ajv configuration the project validates with: JSON Schema 2020-12 (converted OpenAPI schemas target it),
 * every error reported, standard formats checked, patterns run without catastrophic backtracking, and unknown
 * keywords and formats tolerated because real documents are full of vendor extensions. `extra`: ajv's `verbose`
 * (errors carry their schema and data, for messages that say what was expected) and `discriminator`.
 */
export function createAjv(extra: Pick<Options, 'verbose' | 'discriminator'> = {}): Ajv.Ajv2020 {
  const ajv = new (ajvPackage().Ajv2020)({
    ...extra,
    allErrors: true,
    strict: false,
    validateFormats: true,
    logger: false,
    code: { regExp: safeRegExp },
  });
  formatsPackage().default(ajv);
  for (const format of OPENAPI_FORMATS) ajv.addFormat(format, true);
  for (const [format, [min, max]] of Object.entries(INTEGER_FORMAT_RANGES))
    ajv.addFormat(format, { type: 'number', validate: (n: number) => n >= min && n <= max });
  return ajv;
}
