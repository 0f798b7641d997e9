import type { ValidateFunction } from 'ajv';
import { createAjv } from '../library/ajv.js';
import { schemaDefinition, schemaFile, type SchemaName } from './schemas.js';
import { describeSchemaErrors, type FieldError } from './schema-errors.js';

/** The request bodies the routes check, by their definition's name in schemas/ and its file. */
const REQUESTS = {
  EpisodeConfig: 'trajectory',
  StepRequest: 'trajectory',
  TurnRequest: 'trajectory',
  GroupRequest: 'rewards',
  RewardRequest: 'rewards',
  VerdictsInput: 'rewards',
  AdvantagesRequest: 'rewards',
  SearchRequest: 'server',
  SubgraphRequest: 'server',
} as const satisfies Record<string, SchemaName>;

export type RequestShape = keyof typeof REQUESTS;

const compiled = new Map<RequestShape, ValidateFunction>();
let ajv: ReturnType<typeof createAjv> | undefined;

/**
 * What is wrong with a request body by its published schema, as the field errors a 400 lists (none when it
 * conforms). Validators compile on first use, so a server that never sees an episode request compiles none.
 */
export function requestErrors(shape: RequestShape, body: unknown): FieldError[] {
  let validate = compiled.get(shape);
  if (!validate) {
    if (!ajv) {
      ajv = createAjv({ verbose: true, discriminator: true });
      ajv.addSchema(schemaFile('trajectory'));
      ajv.addSchema(schemaFile('rewards'));
      ajv.addSchema(schemaFile('tool'));
      ajv.addSchema(schemaFile('server'));
    }
    validate = ajv.getSchema(`${schemaFile(REQUESTS[shape]).$id}#/$defs/${shape}`)!;
    compiled.set(shape, validate);
  }
  return validate(body) ? [] : describeSchemaErrors(validate.errors ?? [], schemaDefinition);
}
