/** The tool record: what every part of ToolEnv reads. Published as schemas/tool.schema.json. */

export type JsonSchema = { [keyword: string]: unknown } | boolean;
export type JsonSchemaObject = {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required?: string[];
  [keyword: string]: unknown;
};

/**
 * Where one property of `parameters` goes in the real HTTP request. `name` is the wire name; '' with `in: "body"` means
 * the whole body.
 */
export type ParamLocation = 'path' | 'query' | 'header' | 'cookie' | 'body';
export interface ParamBinding {
  in: ParamLocation;
  name: string;
}

/**
 * An operation's declared error responses: response key (`404`, `422`, `4XX`, `5XX`, `default`) → the JSON schema of
 * its body, or null when it declares none. The REST surface answers errors in this shape
 * (src/simulator/vendor-error.ts).
 */
export type ErrorResponses = Record<string, JsonSchema | null>;

export interface ToolExample {
  name?: string;
  status: number;
  body: unknown;
}

/** The methods an OpenAPI path item may hold an operation under. */
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'options' | 'head' | 'trace';

export type Origin =
  | {
      format: 'openapi';
      api_id: string;
      method: HttpMethod;
      path: string;
      operation_id: string | null;
      server: string | null;
    }
  | { format: 'toolbench'; category: string; tool_name: string; api_name: string }
  | { format: 'mcp'; name: string }
  | { format: 'openai'; name: string };

export type OriginFormat = Origin['format'];

export interface Tool {
  /** Unique, stable across rebuilds, ≤ 64 of [A-Za-z0-9_-]: a valid OpenAI and MCP function name. */
  id: string;
  name: string;
  description: string;
  category: string;
  /** One object schema merging path, query, header and cookie parameters and the request body. */
  parameters: JsonSchemaObject;
  /** For tools with a REST shape: property of `parameters` → where it goes on the wire. */
  bindings?: Record<string, ParamBinding>;
  /** HTTP status of the success response the simulator answers with (default 200). */
  response_status?: number;
  response_schema?: JsonSchema;
  examples: ToolExample[];
  /**
   * OpenAPI tools of libraries built since the REST surface answers vendor-shaped errors; absent before, and when
   * nothing is declared.
   */
  error_responses?: ErrorResponses;
  origin: Origin;
}

/** An API (one OpenAPI document, one ToolBench tool, one MCP server file…) that tools belong to. */
export interface ApiRecord {
  api_id: string;
  title: string;
  provider: string;
  category: string;
  format: OriginFormat;
  /** The source document (OpenAPI documents only), kept to serve the API's REST surface. */
  document?: unknown;
}

/** What an importer or the default build hands to the store. */
export interface LibraryBatch {
  apis: ApiRecord[];
  tools: Tool[];
}
