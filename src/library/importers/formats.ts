/**
 * What `library import --format` accepts; apart from the converters so that the CLI can list them without loading them.
 */
export const IMPORT_FORMATS = ['openapi', 'toolbench', 'mcp', 'openai'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
