import { toolFeatures } from '../../graph/features.js';
import type { Tool } from '../../library/tool.js';
import { responseFields } from '../../protocol/tool-view.js';

/**
 * Where a required parameter's value can come from in another tool's response: the dependency graph's dataflow key
 * (`petId` ↔ a pet's `id`, via graph/features) first, then a response field of the same name. The answer is a
 * reference path into the producer's result (`c1.body.id`, `c1.body[0].id`, `c1.body.data[0].user_id`).
 */
export function linkPath(consumer: Tool, param: string, producer: Tool): string | undefined {
  const input = featuresOf(consumer).inputs.find((i) => i.param === param);
  if (input) {
    const output = featuresOf(producer).outputs.find((o) => o.key === input.key);
    if (output) return `body${fieldPath(output.field)}`;
  }
  const wanted = normalize(param);
  const field = responseFields(producer.response_schema, 64).find(
    (f) => normalize(f.split('.').pop()!.replace(/\[\]$/, '')) === wanted,
  );
  return field === undefined ? undefined : `body${fieldPath(field)}`;
}

const features = new WeakMap<Tool, ReturnType<typeof toolFeatures>>();

/** A record's graph features, read once per record: a policy asks about the same tools turn after turn. */
function featuresOf(tool: Tool): ReturnType<typeof toolFeatures> {
  let found = features.get(tool);
  if (!found) features.set(tool, (found = toolFeatures(tool)));
  return found;
}

/**
 * A field as graph features and tool views write it (`data[].items[].id`, `[].id`) → reference steps
 * (`.data[0].items[0].id`, `[0].id`).
 */
export function fieldPath(field: string): string {
  return field
    .split('.')
    .map((part) => {
      const name = part.replace(/\[\]/g, '');
      const indexes = '[0]'.repeat((part.match(/\[\]/g) ?? []).length);
      const step = name === '' ? '' : /^[A-Za-z_$][\w$-]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
      return `${step}${indexes}`;
    })
    .join('');
}

function normalize(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, '');
}
