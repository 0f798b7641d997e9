import { readFileSync } from 'node:fs';
import picomatch from 'picomatch';
import type { Tool } from '../../library/tool.js';

/** A map file that cannot be used: named with what is wrong, for a one-line CLI error. */
export class UpstreamMapError extends Error {}

/** `--upstream-map FILE`: api id or glob → base URL, in file order. */
export interface UpstreamMap {
  file: string;
  entries: { pattern: string; matches: (apiId: string) => boolean; url: string }[];
}

/**
 * Reads a JSON object mapping API ids or globs (picomatch's: `*` within a `/`-separated segment of the id, `**`
 * across them, `{a,b}` either) to absolute http(s) base URLs: `{"github.com:api.github.com": "http://127.0.0.1:9000",
 * "googleapis.com:*": "https://…"}`.
 */
export function readUpstreamMap(file: string): UpstreamMap {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    const why =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : `not JSON (${(error as Error).message})`;
    throw new UpstreamMapError(`--upstream-map ${file}: ${why}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UpstreamMapError(`--upstream-map ${file}: expected a JSON object mapping API ids or globs to base URLs`);
  }
  const entries = Object.entries(value).map(([pattern, url]) => {
    if (typeof url !== 'string' || !isHttpUrl(url))
      throw new UpstreamMapError(
        `--upstream-map ${file}: ${JSON.stringify(pattern)} must map to an http:// or https:// URL, got ` +
          `${JSON.stringify(url)}`,
      );
    const glob = picomatch(pattern, { dot: true });
    return { pattern, matches: (apiId: string) => pattern === apiId || glob(apiId), url };
  });
  return { file, entries };
}

/** Where a tool's calls go: a base URL, or why there is none. */
export type BaseUrl = { url: string } | { reason: string };

/**
 * The base URL of a tool's API: the first map entry matching its api id, else the spec's server (`origin.server`,
 * a protocol-relative one taken as https). A relative or missing server needs a map entry.
 */
export function baseUrl(tool: Tool, map: UpstreamMap | undefined): BaseUrl {
  if (tool.origin.format !== 'openapi')
    return { reason: `${tool.id} was imported from ${tool.origin.format}, which records no HTTP request to forward` };
  const apiId = tool.origin.api_id;
  const mapped = map?.entries.find((entry) => entry.matches(apiId));
  if (mapped) return { url: mapped.url };
  const server = tool.origin.server;
  if (server?.startsWith('//')) return { url: `https:${server}` };
  if (server && isHttpUrl(server)) return { url: server };
  const given = server ? `a relative server URL (${JSON.stringify(server)})` : 'no server URL';
  return {
    reason:
      `the API document of ${apiId} declares ${given}; map ${JSON.stringify(apiId)} to a base URL in ` +
      '--upstream-map',
  };
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}
