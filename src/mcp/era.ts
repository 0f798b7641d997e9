/**
 * Which MCP era a POST to `/mcp` belongs to. 2026-07-28 is stateless: every request names its protocol version in
 * `params._meta` and in the `MCP-Protocol-Version` header, and no session is opened. Earlier versions open a session
 * with `initialize`. One endpoint serves both, so the era is read off each request.
 */

export const MODERN_VERSIONS: readonly string[] = ['2026-07-28'];
/** The versions that open a session with `initialize` (2024-10-07 only the TypeScript SDK's v1 knows). */
const HANDSHAKE_VERSIONS: readonly string[] = ['2024-10-07', '2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'];

/** The `params._meta` keys of the 2026 request envelope, and the result's server identity. */
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
export const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

export const VERSION_HEADER = 'mcp-protocol-version';
export const METHOD_HEADER = 'mcp-method';
export const NAME_HEADER = 'mcp-name';

/**
 * Whether a POST is stateless-era: its body claims a protocol version in `params._meta`, or its
 * `MCP-Protocol-Version` header names anything but a handshake version — an unknown one too, so that it is answered
 * "unsupported version" rather than "no session". The header alone decides for a body that is not JSON.
 */
export function isModern(headers: Headers, message?: unknown): boolean {
  const version = headers.get(VERSION_HEADER);
  if (version !== null && !HANDSHAKE_VERSIONS.includes(version)) return true;
  return (
    isObject(message) &&
    isObject(message.params) &&
    isObject(message.params._meta) &&
    PROTOCOL_VERSION_KEY in message.params._meta
  );
}

const SENTINEL = /^=\?base64\?(.*)\?=$/;

/**
 * A routing header's value as the client meant it: a value that is not printable ASCII travels as
 * `=?base64?…?=`. Undefined for a sentinel that does not decode to canonical base64 of UTF-8, so a corrupt header
 * never matches.
 */
export function decodeHeaderValue(value: string): string | undefined {
  const match = SENTINEL.exec(value);
  if (match === null) return value;
  const payload = match[1]!;
  const bytes = Buffer.from(payload, 'base64');
  if (bytes.toString('base64') !== payload) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
