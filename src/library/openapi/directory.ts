/**
 * The two things the default build does to one document of the directory: rank its operations on cheap features, and
 * convert the ones kept.
 */
import { readFileSync } from 'node:fs';
import type { Tool } from '../tool.js';
import { apiIdentity, type ApiIdentity } from './document.js';
import { listOperations, operationTool } from './operations.js';
import { pruneDocument } from './prune.js';
import { isObject, type JsonObject } from './refs.js';
import { responseFeatures } from './responses.js';
import { conversionStats, dialectOf, type ConversionStats, type SchemaLimits } from './schema.js';
import { quality } from './select.js';

export interface ScanJob {
  file: string;
  /** The file's path inside the source, the API's name of last resort. */
  name: string;
}

export interface ScannedOperation {
  method: string;
  path: string;
  /** Has a summary or a description. */
  described: boolean;
  /** Same for the same operation in another API of the provider: provider, method, path, operationId. */
  repeat: string;
  quality: number;
}

export type ScannedDocument =
  | { skipped: true }
  | { skipped: false; identity: ApiIdentity; operations: ScannedOperation[] };

/** A document's identity and its operations' features, or `skipped` when the file is not OpenAPI 3 JSON. */
export function scanDocument(job: ScanJob): ScannedDocument {
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(job.file, 'utf8'));
  } catch {
    return { skipped: true };
  }
  if (!isObject(document) || typeof document.openapi !== 'string' || !document.openapi.startsWith('3.'))
    return { skipped: true };
  const identity = apiIdentity(document, job.name);
  const operations = listOperations(document).map(({ method, path, operation }): ScannedOperation => {
    const response = responseFeatures(document, operation);
    return {
      method,
      path,
      described: [operation.summary, operation.description].some(
        (text) => typeof text === 'string' && text.trim() !== '',
      ),
      repeat: `${identity.provider} ${method} ${path} ${String(operation.operationId ?? '')}`,
      quality: quality({
        responseSchema: response.schema,
        examples: response.examples,
        deprecated: operation.deprecated === true,
      }),
    };
  });
  return { skipped: false, identity, operations };
}

export interface ConvertJob {
  file: string;
  apiId: string;
  title: string;
  category: string;
  /** `method path` of the operations to convert. */
  keep: string[];
  limits: SchemaLimits;
}

export interface ConvertedDocument {
  /** In document order. */
  tools: Tool[];
  /** The document cut down to the kept operations. */
  document: JsonObject;
  stats: ConversionStats;
}

/** `taken` holds the ids given so far in the library; the new tools' ids are added to it. */
export function convertDocument(job: ConvertJob, taken: Set<string>): ConvertedDocument {
  const document = JSON.parse(readFileSync(job.file, 'utf8')) as JsonObject;
  const keep = new Set(job.keep);
  const stats = conversionStats();
  const context = {
    document,
    dialect: dialectOf(document),
    limits: job.limits,
    stats,
    apiId: job.apiId,
    title: job.title,
    category: job.category,
  };
  const tools = listOperations(document)
    .filter(({ method, path }) => keep.has(`${method} ${path}`))
    .map((operation) => operationTool(context, operation, taken));
  return { tools, document: pruneDocument(document, keep), stats };
}
