import {
  CLIENT_CAPABILITIES_KEY,
  METHOD_HEADER,
  MODERN_VERSIONS,
  NAME_HEADER,
  PROTOCOL_VERSION_KEY,
  VERSION_HEADER,
  decodeHeaderValue,
  isObject,
} from './era.js';
import {
  HEADER_MISMATCH,
  INVALID_PARAMS,
  INVALID_REQUEST,
  JsonRpcError,
  UNSUPPORTED_VERSION,
  type RequestId,
} from './jsonrpc.js';

/** A stateless-era POST, read: a request to answer, a notification to accept, or a rejection to send. */
export type ModernMessage =
  | { kind: 'request'; id: RequestId; method: string; params: Record<string, unknown> }
  | { kind: 'notification' }
  | { kind: 'rejected'; id: RequestId | null; error: JsonRpcError };

/** The body member whose value a request repeats in `Mcp-Name`, by method. */
const NAMED_BY: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/**
 * Checks one POST body and its headers against the 2026-07-28 transport, first failure wins, in the order the
 * reference servers check: the message's shape, the `_meta` envelope, the routing headers against the body, the
 * version. Which methods exist is the caller's to say.
 */
export function readModernMessage(headers: Headers, message: unknown): ModernMessage {
  if (
    !isObject(message) ||
    message.jsonrpc !== '2.0' ||
    typeof message.method !== 'string' ||
    (message.params !== undefined && !isObject(message.params))
  ) {
    return rejected(
      null,
      INVALID_REQUEST,
      'the body must be one JSON-RPC 2.0 request or notification: {"jsonrpc": "2.0", "id", "method", "params"}; ' +
        'batches are not part of 2026-07-28',
    );
  }
  if (!('id' in message)) {
    const version = headers.get(VERSION_HEADER);
    return version === null || MODERN_VERSIONS.includes(version)
      ? { kind: 'notification' }
      : unsupported(null, version);
  }
  const { id, method } = message;
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))))
    return rejected(null, INVALID_REQUEST, 'the request id must be a string or an integer');
  const params = message.params ?? {};
  const meta = params._meta;
  if (!isObject(meta))
    return rejected(
      id,
      INVALID_PARAMS,
      'params._meta must be an object carrying the ' +
        `${PROTOCOL_VERSION_KEY} and ${CLIENT_CAPABILITIES_KEY} envelope keys`,
    );
  const missing = [PROTOCOL_VERSION_KEY, CLIENT_CAPABILITIES_KEY].filter((key) => !(key in meta));
  if (missing.length > 0)
    return rejected(id, INVALID_PARAMS, `params._meta is missing the required envelope key(s): ${missing.join(', ')}`);
  const version = meta[PROTOCOL_VERSION_KEY];
  const versionHeader = headers.get(VERSION_HEADER);
  if (versionHeader !== version)
    return mismatch(
      id,
      'MCP-Protocol-Version',
      versionHeader,
      `the envelope's protocol version ${JSON.stringify(version)}`,
    );
  const methodHeader = headers.get(METHOD_HEADER);
  if (methodHeader !== method)
    return mismatch(id, 'Mcp-Method', methodHeader, `the body's method ${JSON.stringify(method)}`);
  const nameKey = NAMED_BY[method];
  const name = nameKey === undefined ? undefined : params[nameKey];
  if (typeof name === 'string') {
    const nameHeader = headers.get(NAME_HEADER);
    if (nameHeader === null || decodeHeaderValue(nameHeader) !== name)
      return mismatch(id, 'Mcp-Name', nameHeader, `the body's ${nameKey} ${JSON.stringify(name)}`);
  }
  if (!MODERN_VERSIONS.includes(version as string)) return unsupported(id, version as string);
  if (!isObject(meta[CLIENT_CAPABILITIES_KEY]))
    return rejected(id, INVALID_PARAMS, `params._meta ${CLIENT_CAPABILITIES_KEY} must be an object`);
  return { kind: 'request', id, method, params };
}

function rejected(id: RequestId | null, code: number, message: string, data?: unknown): ModernMessage {
  return { kind: 'rejected', id, error: new JsonRpcError(code, message, data) };
}

/** A duplicated header arrives joined with ", ", and so mismatches too. */
function mismatch(id: RequestId, header: string, sent: string | null, expected: string): ModernMessage {
  const got = sent === null ? 'is missing' : `is ${JSON.stringify(sent)}`;
  return rejected(id, HEADER_MISMATCH, `the ${header} header ${got}; it must repeat ${expected}`);
}

function unsupported(id: RequestId | null, requested: string): ModernMessage {
  return rejected(id, UNSUPPORTED_VERSION, 'Unsupported protocol version', { supported: MODERN_VERSIONS, requested });
}
