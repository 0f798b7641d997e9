/** Importing files into a library: find them, convert each, give every tool a free id, write all in one transaction. */
import { uniqueId } from '../ids.js';
import { LibraryStore } from '../store.js';
import type { LibraryBatch, Origin, Tool } from '../tool.js';
import { ImportError } from './errors.js';
import { IMPORT_FORMATS, type ImportFormat } from './formats.js';
import { importMcpFile, MCP_EXTENSIONS } from './mcp.js';
import { importOpenaiFile, OPENAI_EXTENSIONS } from './openai.js';
import { listFiles } from './source.js';
import { importToolbenchFile, TOOLBENCH_EXTENSIONS } from './toolbench.js';

export { IMPORT_FORMATS, type ImportFormat };

interface Converter {
  extensions: readonly string[];
  convert(file: string): LibraryBatch | Promise<LibraryBatch>;
}

const CONVERTERS: Record<ImportFormat, Converter> = {
  // Loaded on use: the OpenAPI converter pulls in swagger2openapi, which no other command needs.
  openapi: {
    extensions: ['.json', '.yaml', '.yml'],
    convert: async (file) => (await import('./openapi.js')).importOpenapi(file),
  },
  toolbench: { extensions: TOOLBENCH_EXTENSIONS, convert: importToolbenchFile },
  mcp: { extensions: MCP_EXTENSIONS, convert: importMcpFile },
  openai: { extensions: OPENAI_EXTENSIONS, convert: importOpenaiFile },
};

export interface SkippedFile {
  file: string;
  error: string;
}

export interface ReadOptions {
  /** Leave out files that cannot be imported (reported in `skipped`) instead of failing on the first. */
  skipInvalid?: boolean;
  /** Called with 0 done once the files are known, then after each file: for progress bars. */
  onFile?: (done: number, total: number) => void;
}

export interface ReadResult {
  batch: LibraryBatch;
  files: number;
  skipped: SkippedFile[];
}

/**
 * Converts PATH (one file, or every file of the format's extensions under a folder) into one batch. Nothing is
 * written: a bad file throws an ImportError naming it, unless `skipInvalid` asks to leave it out.
 */
export async function readImport(path: string, format: ImportFormat, options: ReadOptions = {}): Promise<ReadResult> {
  const converter = CONVERTERS[format];
  const files = listFiles(path, converter.extensions);
  const batch: LibraryBatch = { apis: [], tools: [] };
  const skipped: SkippedFile[] = [];
  const apiIds = new Set<string>();
  options.onFile?.(0, files.length);
  for (const [i, file] of files.entries()) {
    try {
      const part = await converter.convert(file);
      claimApiIds(part, apiIds);
      batch.apis.push(...part.apis);
      batch.tools.push(...part.tools);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (options.skipInvalid) skipped.push({ file, error: message });
      else if (error instanceof ImportError) throw error;
      else throw new Error(`${file}: ${message}`, { cause: error });
    }
    options.onFile?.(i + 1, files.length);
  }
  return { batch, files: files.length, skipped };
}

/**
 * Keeps API ids unique within one import, the way importOpenapi does across the documents of one call (two
 * versions of one API in a folder share an id): a later file's taken id gets `_2`, `_3`…, and the origins of its
 * OpenAPI tools follow, so that each tool still points at its own document.
 */
function claimApiIds(part: LibraryBatch, taken: Set<string>): void {
  for (const api of part.apis) {
    const original = api.api_id;
    for (let n = 2; taken.has(api.api_id); n++) api.api_id = `${original}_${n}`;
    taken.add(api.api_id);
    if (api.api_id === original) continue;
    for (const tool of part.tools) {
      if (tool.origin.format === 'openapi' && tool.origin.api_id === original)
        tool.origin = { ...tool.origin, api_id: api.api_id };
    }
  }
}

export interface WriteResult {
  imported: number;
  apis: number;
  /** Tools that replaced an earlier import of the same source tool. */
  replaced: number;
  tools_total: number;
}

/**
 * Writes the batch into the library at `dir` (created when missing) in one transaction. A tool whose id is taken
 * by the same source tool (an earlier import of it) replaces it; one whose id is taken by a different tool gets
 * a new id instead, so an import never overwrites another source's tools.
 */
export function writeImport(dir: string, batch: LibraryBatch): WriteResult {
  const store = LibraryStore.openWritable(dir);
  try {
    const replaced = assignIds(batch.tools, (id) => store.get(id));
    store.write(batch);
    return { imported: batch.tools.length, apis: batch.apis.length, replaced, tools_total: store.count() };
  } finally {
    store.close();
  }
}

/**
 * Makes every id in `tools` distinct within the batch and free of clashes with `existing` tools from another
 * source, changing ids in place (a hash of the source identity appended, so the change is stable). Returns how
 * many tools will replace an existing one of the same source.
 */
export function assignIds(tools: Tool[], existing: (id: string) => Tool | undefined): number {
  const taken = new Set<string>();
  let replaced = 0;
  for (const tool of tools) {
    const key = sourceKey(tool.origin);
    let id = uniqueId(tool.id, key, taken);
    let current = existing(id);
    while (current && sourceKey(current.origin) !== key) {
      id = uniqueId(tool.id, key, taken);
      current = existing(id);
    }
    if (current) replaced++;
    tool.id = id;
  }
  return replaced;
}

/** What makes a tool the same tool across imports, whatever its id. */
function sourceKey(origin: Origin): string {
  switch (origin.format) {
    case 'openapi':
      return `openapi ${origin.api_id} ${origin.method.toLowerCase()} ${origin.path}`;
    case 'toolbench':
      return `toolbench ${origin.category}/${origin.tool_name}/${origin.api_name}`;
    case 'mcp':
    case 'openai':
      return `${origin.format} ${origin.name}`;
  }
}
