import type { Tool } from './tool.js';

export interface HttpRequestShape {
  method: string;
  /** The path with path parameters filled in and the query string appended. */
  url: string;
  headers: Record<string, string>;
  body?: unknown;
}

/** Headers the HTTP client computes itself; a document that declares them as parameters cannot set them. */
const COMPUTED_HEADERS = new Set(['content-length', 'host', 'connection', 'transfer-encoding']);

/**
 * The real HTTP request a call to an OpenAPI tool stands for, built from the merged arguments through `tool.bindings`.
 */
export function toHttpRequest(tool: Tool, args: Record<string, unknown>): HttpRequestShape | undefined {
  if (tool.origin.format !== 'openapi') return undefined;
  const { method, path } = tool.origin;
  const query = new URLSearchParams();
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  let body: Record<string, unknown> | unknown;
  // Path keys like `/#X-Amz-Target=Svc.Op` or `/jobs?op=LIST` tell apart operations sharing a path by a fixed value
  // that a real client sends as a header (X-…) or a query parameter, never as a URL fragment.
  const cut = path.search(/[#?]/);
  let filled = cut === -1 ? path : path.slice(0, cut);
  if (cut !== -1) {
    for (const [name, value] of new URLSearchParams(path.slice(cut + 1))) {
      if (value === '' || /^\{.*\}$/.test(value)) continue;
      if (/^x-/i.test(name)) headers[name] = value;
      else query.append(name, value);
    }
  }
  for (const [property, value] of Object.entries(args)) {
    const binding = tool.bindings?.[property];
    if (!binding || value === undefined) continue;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    switch (binding.in) {
      case 'path':
        filled = filled.replaceAll(`{${binding.name}}`, encodeURIComponent(text));
        break;
      case 'query':
        for (const item of Array.isArray(value) ? value : [value])
          query.append(binding.name, typeof item === 'string' ? item : JSON.stringify(item));
        break;
      case 'header':
        if (!COMPUTED_HEADERS.has(binding.name.toLowerCase())) headers[binding.name] = text;
        break;
      case 'cookie':
        cookies.push(`${binding.name}=${encodeURIComponent(text)}`);
        break;
      case 'body':
        if (binding.name === '') body = value;
        else body = { ...(body as Record<string, unknown> | undefined), [binding.name]: value };
        break;
    }
  }
  if (cookies.length) headers.cookie = cookies.join('; ');
  const search = query.toString();
  return {
    method: method.toUpperCase(),
    url: search ? `${filled}?${search}` : filled,
    headers,
    ...(body === undefined ? {} : { body }),
  };
}
