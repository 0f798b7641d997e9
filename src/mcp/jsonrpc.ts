/**
 * JSON-RPC errors and answers as MCP 2026-07-28 sends them over HTTP, apart from the SDK so that the stateless era
 * never loads it.
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const HEADER_MISMATCH = -32020;
export const UNSUPPORTED_VERSION = -32022;

export type RequestId = string | number;

/**
 * A JSON-RPC error a handler throws. The legacy SDK server sends any thrown error's `code`, `message` and `data` as
 * they are, so the same error serves both eras.
 */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * The HTTP status of an error answer, as the reference servers pick it: a client's mistake is a 400, an unknown
 * method a 404. A stateless client reads a 400's body to tell a 2026 server from an older one, so every rejection
 * is a JSON-RPC body, never a problem.
 */
function statusOf(code: number): 400 | 404 | 200 {
  if (code === METHOD_NOT_FOUND) return 404;
  return [PARSE_ERROR, INVALID_REQUEST, INVALID_PARAMS, HEADER_MISMATCH, UNSUPPORTED_VERSION].includes(code)
    ? 400
    : 200;
}

export function resultResponse(
  id: RequestId,
  result: Record<string, unknown>,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ jsonrpc: '2.0', id, result }, { headers });
}

export function errorResponse(
  id: RequestId | null,
  error: JsonRpcError,
  headers: Record<string, string> = {},
): Response {
  const body = { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) };
  return Response.json({ jsonrpc: '2.0', id, error: body }, { status: statusOf(error.code), headers });
}
