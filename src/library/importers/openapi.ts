/**
 * Importing OpenAPI 3.x and Swagger 2.0 documents (JSON or YAML, one file or a folder of them): every operation a tool.
 */
import { basename } from 'node:path';
import { apiIdentity, loadDocument } from '../openapi/document.js';
import { documentTools } from '../openapi/operations.js';
import { dialectOf } from '../openapi/schema.js';
import type { LibraryBatch } from '../tool.js';
import { ImportError } from './errors.js';
import { listFiles } from './source.js';

export const OPENAPI_EXTENSIONS = ['.json', '.yaml', '.yml'] as const;

/**
 * Converts PATH (a document, or every .json/.yaml/.yml document under a folder, in sorted order) into one batch.
 * A file that is not an OpenAPI document throws an ImportError naming it. Documents keep their APIs.guru id
 * (`x-providerName:x-serviceName`) when they have one; two documents that would share an id get `_2`, `_3`….
 */
export async function importOpenapi(path: string): Promise<LibraryBatch> {
  const batch: LibraryBatch = { apis: [], tools: [] };
  const taken = new Set<string>();
  const apiIds = new Set<string>();
  for (const file of listFiles(path, OPENAPI_EXTENSIONS)) {
    const document = await loadDocument(file);
    const identity = apiIdentity(document, basename(file));
    let apiId = identity.api_id;
    for (let n = 2; apiIds.has(apiId); n++) apiId = `${identity.api_id}_${n}`;
    apiIds.add(apiId);
    let tools;
    try {
      tools = documentTools(
        { document, dialect: dialectOf(document), apiId, title: identity.title, category: identity.category },
        taken,
      );
    } catch (error) {
      throw new ImportError(`${file}: cannot convert: ${(error as Error).message}`, { cause: error });
    }
    if (tools.length === 0) continue;
    batch.apis.push({
      api_id: apiId,
      title: identity.title,
      provider: identity.provider,
      category: identity.category,
      format: 'openapi',
      document,
    });
    batch.tools.push(...tools);
  }
  return batch;
}
