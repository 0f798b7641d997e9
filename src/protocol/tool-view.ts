import type { JsonSchema, Tool } from '../library/tool.js';
import { deref } from '../graph/schema-walk.js';

/**
 * How a tool is shown to the agent after a search: its parameters in one line each and the fields its response carries.
 */

const MAX_DESCRIPTION = 240;
const MAX_PARAM_NOTE = 80;
const MAX_FIELDS = 16;

export interface ToolSummary {
  id: string;
  name: string;
  description: string;
  /** Parameter → `type[, required][, one of a|b][: description]`. */
  parameters: Record<string, string>;
  /** Field paths of the success response (`id`, `items[].id`, `owner.login`), as references address them. */
  returns?: string[];
}

export function summarizeTool(tool: Tool): ToolSummary {
  const required = new Set(tool.parameters.required ?? []);
  const parameters: Record<string, string> = {};
  for (const [name, schema] of Object.entries(tool.parameters.properties ?? {})) {
    const node = deref(schema, tool.parameters) ?? {};
    const parts = [typeName(node)];
    if (required.has(name)) parts.push('required');
    if (Array.isArray(node.enum))
      parts.push(`one of ${node.enum.slice(0, 8).map(String).join('|')}${node.enum.length > 8 ? '|…' : ''}`);
    let text = parts.join(', ');
    if (typeof node.description === 'string' && node.description.trim() !== '')
      text += `: ${clip(node.description.trim(), MAX_PARAM_NOTE)}`;
    parameters[name] = text;
  }
  const summary: ToolSummary = {
    id: tool.id,
    name: tool.name,
    description: clip(tool.description, MAX_DESCRIPTION),
    parameters,
  };
  const returns = responseFields(tool.response_schema);
  if (returns.length > 0) summary.returns = returns;
  return summary;
}

/**
 * Scalar fields of a response schema as paths (`id`, `[].name`, `data.items[].id`), breadth first so the fields
 * nearest the root come first, at most `limit` of them.
 */
export function responseFields(schema: JsonSchema | undefined, limit = MAX_FIELDS): string[] {
  if (schema === undefined || typeof schema === 'boolean') return [];
  const out: string[] = [];
  const queue: { node: unknown; path: string; depth: number }[] = [{ node: schema, path: '', depth: 0 }];
  while (queue.length > 0 && out.length < limit) {
    const { node: raw, path, depth } = queue.shift()!;
    const node = deref(merge(raw, schema), schema);
    if (!node) continue;
    const type = typeName(node);
    if (type === 'array' || (node.items !== undefined && type === 'any')) {
      if (depth < 4) queue.push({ node: node.items, path: `${path}[]`, depth: depth + 1 });
      continue;
    }
    const props = node.properties;
    if (props && typeof props === 'object') {
      for (const [name, child] of Object.entries(props as Record<string, unknown>)) {
        const childPath = path === '' ? name : `${path}.${name}`;
        const childNode = deref(child, schema);
        const childType = childNode ? typeName(childNode) : 'any';
        if (childType === 'object' || childType === 'array') {
          if (depth < 4) queue.push({ node: child, path: childPath, depth: depth + 1 });
        } else if (out.length < limit) {
          out.push(childPath);
        }
      }
    }
  }
  return out;
}

/** An allOf of objects read as one object, which is how converted OpenAPI schemas compose. */
function merge(raw: unknown, root: JsonSchema): unknown {
  const node = deref(raw, root);
  if (!node || !Array.isArray(node.allOf)) return raw;
  const properties: Record<string, unknown> = { ...((node.properties as Record<string, unknown>) ?? {}) };
  for (const part of node.allOf)
    Object.assign(properties, (deref(part, root)?.properties as Record<string, unknown>) ?? {});
  return { type: 'object', properties };
}

function typeName(node: Record<string, unknown>): string {
  const t = node.type;
  if (typeof t === 'string') return t;
  if (Array.isArray(t)) return t.filter((x) => x !== 'null').join('|') || 'null';
  if (node.properties) return 'object';
  if (node.items) return 'array';
  if (Array.isArray(node.enum)) return typeof node.enum[0] === 'number' ? 'number' : 'string';
  return 'any';
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
