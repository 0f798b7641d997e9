import type { JsonSchemaObject, Tool } from '../library/tool.js';
import { synthesize } from '../simulator/synth/index.js';
import type { Arguments } from '../simulator/types.js';
import type { Rules } from '../simulator/validate.js';

/**
 * A request the Rule layer accepts, made by the synthesizer's value layer from the parameter schema (as task
 * synthesis makes its arguments): first every declared parameter, then only the required ones when the full object
 * is refused (a dependency or a format the value layer misses). Undefined when neither passes.
 */
export function validRequest(tool: Tool, rules: Rules, seed: number): Arguments | undefined {
  const properties = tool.parameters.properties ?? {};
  const required = (tool.parameters.required ?? []).filter((name) => Object.hasOwn(properties, name));
  const attempts: JsonSchemaObject[] = [
    tool.parameters,
    { type: 'object', required, properties: Object.fromEntries(required.map((name) => [name, properties[name]!])) },
  ];
  for (const schema of attempts) {
    const { body } = synthesize(
      { ...tool, id: `${tool.id}#fidelity`, response_status: 200, response_schema: schema, examples: [] },
      {},
      seed,
    );
    if (body === null || typeof body !== 'object' || Array.isArray(body)) continue;
    const checked = rules.check(tool.id, body);
    if (checked.ok) return checked.args;
  }
  return undefined;
}
