/**
 * MCP: the result of `tools/list` ({tools: [{name, description, inputSchema, outputSchema?}]}), a bare array of such
 * tools, or the whole JSON-RPC response.
 */
import type { LibraryBatch } from '../tool.js';
import { namedFunctionsBatch, type NamedFunction } from './named.js';
import { parametersSchema, responseSchema } from './schema.js';
import { invalid, isObject, kind, pointer, readDocument, text } from './source.js';

export const MCP_EXTENSIONS = ['.json', '.yaml', '.yml'] as const;

export function importMcpFile(file: string): LibraryBatch {
  return convertMcp(readDocument(file), file);
}

export function convertMcp(doc: unknown, file: string): LibraryBatch {
  const [list, at] = toolList(doc, file);
  const functions = list.map((tool, i): NamedFunction => {
    const where = pointer(at, i);
    if (!isObject(tool))
      throw invalid(file, where, `expected an MCP tool {name, description, inputSchema}, got ${kind(tool)}`);
    if (typeof tool.name !== 'string' || tool.name.trim() === '')
      throw invalid(file, pointer(where, 'name'), 'missing: every MCP tool needs a name');
    const annotations = isObject(tool.annotations) ? tool.annotations : {};
    return {
      name: tool.name,
      description: text(tool.description) ?? text(tool.title) ?? text(annotations.title),
      parameters: parametersSchema(tool.inputSchema, file, pointer(where, 'inputSchema')),
      response_schema: responseSchema(tool.outputSchema, file, pointer(where, 'outputSchema')),
      at: where,
    };
  });
  return namedFunctionsBatch('mcp', file, functions);
}

function toolList(doc: unknown, file: string): [unknown[], string] {
  if (Array.isArray(doc)) return [doc, ''];
  if (isObject(doc)) {
    if (Array.isArray(doc.tools)) return [doc.tools, '/tools'];
    if (isObject(doc.result) && Array.isArray(doc.result.tools)) return [doc.result.tools, '/result/tools'];
    if (doc.tools !== undefined) throw invalid(file, '/tools', `must be an array of tools, got ${kind(doc.tools)}`);
  }
  throw invalid(
    file,
    '',
    'expected an MCP tools/list result {"tools": [...]} or an array of tools, got ' +
      `${kind(doc)}${isObject(doc) ? ' without "tools"' : ''}`,
  );
}
