/** What converting one document's operations shares: the document, its dialect, the schema limits and counters. */
import type { JsonSchema } from '../tool.js';
import { isObject, type JsonObject } from './refs.js';
import {
  convertSchema,
  type ConversionStats,
  type SchemaDialect,
  type SchemaLimits,
  type SchemaUsage,
} from './schema.js';

export interface DocumentContext {
  document: JsonObject;
  dialect: SchemaDialect;
  limits?: SchemaLimits;
  stats?: ConversionStats;
}

/** `pointer`: where `schema` sits in the document, when known (see ConvertOptions). */
export function convert(context: DocumentContext, schema: unknown, usage: SchemaUsage, pointer?: string): JsonSchema {
  return convertSchema(schema, {
    document: context.document,
    dialect: context.dialect,
    usage,
    limits: context.limits,
    stats: context.stats,
    pointer,
  });
}

/** Media types whose bodies are JSON. `*` is how converted Swagger 2.0 documents without `produces` say "anything". */
export function isJsonMediaType(mediaType: string): boolean {
  const type = mediaType.split(';')[0]!.trim().toLowerCase();
  return (
    type === 'application/json' ||
    type.endsWith('+json') ||
    type.endsWith('/json') ||
    type === '*/*' ||
    type === 'application/*'
  );
}

/** The media type of a `content` map a JSON client would pick: application/json first, then other JSON, then `*\/*`. */
export function pickJsonMediaType(content: unknown): string | undefined {
  if (!isObject(content)) return undefined;
  const types = Object.keys(content);
  return (
    types.find((t) => t.split(';')[0]!.trim().toLowerCase() === 'application/json') ??
    types.find((t) => isJsonMediaType(t) && !t.includes('*')) ??
    types.find((t) => isJsonMediaType(t))
  );
}
