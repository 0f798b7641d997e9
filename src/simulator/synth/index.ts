import { CUT_KEYWORD } from '../../library/openapi/schema.js';
import type { Tool } from '../../library/tool.js';
import type { Arguments, Responded } from '../types.js';
import { echoFrom } from './echo.js';
import { reseed } from './faker.js';
import { callSeed } from './random.js';
import { generateRequired } from './schema.js';
import { documentedShape } from '../prior/shapes.js';
import { pathNoun } from './names.js';
import { shapeSchema } from './shape.js';
import { NOTHING, rootlessSite, type Site, type Walk } from './site.js';
import { newPersona, type Persona } from './values.js';
import type { ValuePrior } from '../prior/prior.js';
import { priorView } from './prior-values.js';
import type { CutExpander } from '../cut-schemas.js';

export { synthResponder } from './responder.js';

/**
 * The synthesized response of one call: `tool.response_status` (default 200) and a body satisfying
 * `tool.response_schema` (or, without one, a shape read from the tool's name and description). The same tool,
 * canonical arguments and seed always give the same body; a 204 has a null body.
 */
export function synthesize(
  tool: Tool,
  args: Arguments,
  seed: number,
  prior?: ValuePrior,
  expand?: CutExpander,
): Responded {
  const { status, body } = synthesizeChecked(tool, args, seed, prior, expand);
  return { status, body };
}

/**
 * `synthesize`, also saying whether the body met every constraint the synthesizer checked. False only for schemas
 * that admit no value (an allOf of two closed objects requiring different keys, a oneOf of identical branches…),
 * where the body is a best effort: the shape, with the impossible parts as close as they come.
 */
export function synthesizeChecked(
  tool: Tool,
  args: Arguments,
  seed: number,
  prior?: ValuePrior,
  expand?: CutExpander,
): Responded & { satisfied: boolean } {
  const status = tool.response_status ?? 200;
  if (status === 204) return { status, body: null, satisfied: true };
  reseed(callSeed(tool.id, args, seed));
  const echo = echoFrom(tool, args);
  let persona: Persona | undefined;
  // The body: a record of the tool's resource, repeating the request.
  const root: Site = {
    ...rootlessSite(),
    parent: [...echo.resources][0] ?? '',
    record: true,
    persona: () => (persona ??= newPersona()),
    mirror: echo.tree,
  };
  const api = tool.origin.format === 'openapi' ? tool.origin.api_id : '';
  const walk: Walk = {
    echo,
    nodes: 0,
    loose: false,
    lenient: false,
    faults: 0,
    prior: prior && priorView(prior, api, tool.category),
    expand: expand && api ? (pointer) => expand(api, pointer) : undefined,
  };
  // Without a response schema, or with one that says only "an object", the shape the API's own documented bodies show;
  // else, without one, a shape read from the tool's name.
  const noun = tool.origin.format === 'openapi' ? (pathNoun(tool.origin.path) ?? '') : '';
  const shape = freeForm(tool.response_schema) ? documentedShape(prior?.shapes, api, noun) : undefined;
  const documented =
    tool.response_schema === undefined || (shape as { type?: unknown } | undefined)?.type === 'object'
      ? shape
      : undefined;
  const schema = documented ?? tool.response_schema ?? shapeSchema(tool, args);
  const body = generateRequired([schema], root, walk);
  return { status, body: body === NOTHING ? null : body, satisfied: walk.faults === 0 && body !== NOTHING };
}

/** Keywords that only annotate: a schema of these alone (and `type: object`) says nothing of what a body holds. */
const ANNOTATIONS = new Set([
  'type',
  'title',
  'description',
  'nullable',
  'readOnly',
  'writeOnly',
  'deprecated',
  'examples',
]);

/** No response schema, or one that takes any object (`{type: object}`, `{}`): nothing says what the body holds. */
function freeForm(schema: Tool['response_schema']): boolean {
  if (schema === undefined) return true;
  if (typeof schema !== 'object') return false;
  const { type } = schema as { type?: unknown };
  return (
    (type === undefined || type === 'object') &&
    Object.keys(schema).every((key) => ANNOTATIONS.has(key) || (key.startsWith('x-') && key !== CUT_KEYWORD))
  );
}
