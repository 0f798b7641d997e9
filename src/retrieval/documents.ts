import type { Tool } from '../library/tool.js';

/** The searchable fields of a tool, weighted separately by BM25F. */
export const FIELDS = ['name', 'operation', 'api', 'description', 'params', 'category'] as const;
export type Field = (typeof FIELDS)[number];
export type FieldTexts = Record<Field, string>;

/** Long descriptions (some are whole manuals) add length, not findability. */
const MAX_DESCRIPTION = 2000;

/** The name of the API or server a tool belongs to, from its origin when the API record has none. */
export function apiName(tool: Tool, apiTitle: string | undefined): string {
  switch (tool.origin.format) {
    case 'openapi':
      return apiTitle ?? tool.origin.api_id;
    case 'toolbench':
      return apiTitle ?? tool.origin.tool_name;
    case 'mcp':
    case 'openai':
      return apiTitle ?? '';
  }
}

function operationText(tool: Tool): string {
  const o = tool.origin;
  switch (o.format) {
    case 'openapi':
      return [o.operation_id ?? '', o.method, o.path.replace(/[{}]/g, ' ')].join(' ');
    case 'toolbench':
      return o.api_name;
    case 'mcp':
    case 'openai':
      return o.name;
  }
}

function paramNames(tool: Tool): string {
  return Object.keys(tool.parameters.properties ?? {}).join(' ');
}

export function toolFields(tool: Tool, apiTitle?: string): FieldTexts {
  return {
    name: tool.name,
    operation: operationText(tool),
    api: apiName(tool, apiTitle),
    description: tool.description.slice(0, MAX_DESCRIPTION),
    params: paramNames(tool),
    category: tool.category,
  };
}

/** One passage per tool for sentence encoders: what it does first, since encoders truncate. */
export function toolPassage(tool: Tool, apiTitle: string | undefined, maxChars = 600): string {
  const api = apiName(tool, apiTitle);
  const head = api && !tool.name.toLowerCase().includes(api.toLowerCase()) ? `${tool.name} (${api})` : tool.name;
  const description = tool.description && tool.description !== tool.name ? `: ${tool.description}` : '';
  const params = paramNames(tool);
  const text = `${head}${description}${params ? `. Parameters: ${params.split(' ').join(', ')}` : ''}`;
  return text.length > maxChars ? text.slice(0, maxChars) : text;
}
