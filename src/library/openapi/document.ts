/** Reading OpenAPI documents: JSON or YAML files, Swagger 2.0 upgraded to 3.0, and who the API is. */
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { createRequire } from 'node:module';
import { parse as parseYaml } from 'yaml';
import { apiCategory } from '../categories.js';
import { slug } from '../ids.js';
import { ImportError } from '../importers/errors.js';
import { isObject, type JsonObject } from './refs.js';
import { plainText } from './text.js';

/** Reads an OpenAPI 3.x or Swagger 2.0 document (JSON or YAML) and returns it as OpenAPI 3. */
export async function loadDocument(file: string): Promise<JsonObject> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ImportError(`${file}: cannot read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return openapiDocument(parseText(file, text.replace(/^\uFEFF/, '')), file);
}

function parseText(file: string, text: string): unknown {
  const json = extname(file).toLowerCase() === '.json' || /^\s*[{[]/.test(text);
  let value: unknown;
  try {
    value = json ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 10_000 });
  } catch (error) {
    throw new ImportError(`${file}: not valid ${json ? 'JSON' : 'YAML'}: ${(error as Error).message.split('\n')[0]}`);
  }
  if (!json) {
    const cycle = cyclePath(value);
    if (cycle !== undefined)
      throw new ImportError(`${file}: a YAML alias at ${cycle || '/'} contains itself; a document must be a tree`);
  }
  return value;
}

/** The JSON pointer of a node that contains itself (a YAML anchor whose alias sits inside it), or undefined. */
function cyclePath(root: unknown): string | undefined {
  const open = new Set<object>();
  const done = new WeakSet<object>();
  const visit = (node: unknown, path: string): string | undefined => {
    if (typeof node !== 'object' || node === null || done.has(node)) return undefined;
    if (open.has(node)) return path;
    open.add(node);
    for (const [key, child] of Object.entries(node)) {
      const found = visit(child, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (found !== undefined) return found;
    }
    open.delete(node);
    done.add(node);
    return undefined;
  };
  return visit(root, '');
}

/** Checks that a parsed value is an OpenAPI 3.x or Swagger 2.0 document; Swagger 2.0 comes back as OpenAPI 3.0. */
export async function openapiDocument(value: unknown, file: string): Promise<JsonObject> {
  if (!isObject(value)) throw new ImportError(`${file}: not an OpenAPI document (the top level must be an object)`);
  if (typeof value.openapi === 'string') {
    if (!/^3\.\d+/.test(value.openapi))
      throw new ImportError(
        `${file}: unsupported OpenAPI version ${JSON.stringify(value.openapi)} (3.x and Swagger 2.0 are read)`,
      );
    if (value.paths !== undefined && !isObject(value.paths)) throw new ImportError(`${file}: /paths must be an object`);
    return value;
  }
  if (value.swagger !== undefined) {
    if (String(value.swagger) !== '2.0')
      throw new ImportError(
        `${file}: unsupported Swagger version ${JSON.stringify(value.swagger)} (2.0 and OpenAPI 3.x are read)`,
      );
    if (!isObject(value.paths)) throw new ImportError(`${file}: /paths must be an object`);
    return upgradeSwagger(value, file);
  }
  throw new ImportError(`${file}: not an OpenAPI document (no "openapi" or "swagger" version field)`);
}

interface Swagger2Openapi {
  convertObj(document: unknown, options: Record<string, unknown>): Promise<{ openapi: JsonObject }>;
}

async function upgradeSwagger(document: JsonObject, file: string): Promise<JsonObject> {
  // Loaded on first use: only Swagger 2.0 input needs it.
  const converter = createRequire(import.meta.url)('swagger2openapi') as Swagger2Openapi;
  try {
    // patch: repair the small mistakes real documents make; warnOnly: report the rest instead of rejecting.
    return (await converter.convertObj(structuredClone(document), { patch: true, warnOnly: true, resolve: false }))
      .openapi;
  } catch (error) {
    throw new ImportError(`${file}: cannot convert Swagger 2.0 to OpenAPI 3: ${(error as Error).message}`);
  }
}

export interface ApiIdentity {
  api_id: string;
  title: string;
  provider: string;
  category: string;
}

/**
 * Who the API is. The id is APIs.guru's (`x-providerName`, then `:x-serviceName`) when the document has them,
 * else a slug of the title, else of `fallbackName` (the file name); characters a URL path segment would have
 * to escape become '_', so the id can sit in `/apis/{api_id}/…` as it is.
 */
export function apiIdentity(document: JsonObject, fallbackName: string): ApiIdentity {
  const info = isObject(document.info) ? document.info : {};
  const provider = typeof info['x-providerName'] === 'string' ? info['x-providerName'].trim() : '';
  const service = typeof info['x-serviceName'] === 'string' ? info['x-serviceName'].trim() : '';
  const title = plainText(info.title) || basename(fallbackName, extname(fallbackName));
  const named = [provider, service].filter(Boolean).join(':');
  const api_id =
    urlSafe(named) ||
    slug(title).toLowerCase() ||
    slug(basename(fallbackName, extname(fallbackName))).toLowerCase() ||
    'api';
  const text = `${title} ${title} ${plainText(info.description).slice(0, 1000)} ${tagNames(document).join(' ')}`;
  const category = apiCategory(info['x-apisguru-categories'], text);
  return { api_id, title, provider: provider || hostOf(document) || api_id, category };
}

const urlSafe = (text: string) => text.replace(/[^A-Za-z0-9._~:-]+/g, '_').replace(/^_+|_+$/g, '');

function tagNames(document: JsonObject): string[] {
  return Array.isArray(document.tags) ? document.tags.filter(isObject).map((tag) => String(tag.name ?? '')) : [];
}

function hostOf(document: JsonObject): string | undefined {
  const url = Array.isArray(document.servers) && isObject(document.servers[0]) ? document.servers[0].url : undefined;
  if (typeof url !== 'string') return undefined;
  try {
    return new URL(url).hostname || undefined;
  } catch {
    return undefined;
  }
}
