import { LRUCache } from 'lru-cache';
import type { LibraryStore } from '../../library/store.js';
import { isPlainObject } from '../json-body.js';
import { servedDocument } from './document.js';
import { apiFacts, type ApiFacts } from './operation-facts.js';
import { compileRoutes, type ApiRoutes, type Operation } from './matcher.js';
import { apiSecurity, type ApiSecurity } from './security.js';

/** Longest api_id tried, in path segments (`amazonaws.com/acm` has two). */
export const MAX_API_ID_SEGMENTS = 6;

/**
 * What the REST surface knows about the library's APIs, loaded lazily and kept in bounded LRUs: which api_ids
 * exist, each API's compiled routes, and each served OpenAPI document (serialized, per server URL).
 */
export class RestCatalog {
  private readonly store: LibraryStore;
  private readonly known = new LRUCache<string, boolean>({ max: 8192 });
  private readonly compiled = new LRUCache<string, ApiRoutes>({ max: 512 });
  private readonly secured = new LRUCache<string, ApiSecurity>({ max: 512 });
  private readonly described = new LRUCache<string, ApiFacts>({ max: 256 });
  private readonly documents = new LRUCache<string, string>({
    maxSize: 64 * 1024 * 1024,
    sizeCalculation: (text) => text.length || 1,
  });

  constructor(store: LibraryStore) {
    this.store = store;
  }

  /** Splits decoded path segments into the longest known api_id and the path after it. */
  resolve(segments: readonly string[]): { apiId: string; rest: string[] } | undefined {
    for (let k = Math.min(segments.length, MAX_API_ID_SEGMENTS); k >= 1; k--) {
      const apiId = segments.slice(0, k).join('/');
      if (this.exists(apiId)) return { apiId, rest: segments.slice(k) };
    }
    return undefined;
  }

  routes(apiId: string): ApiRoutes {
    let routes = this.compiled.get(apiId);
    if (!routes) this.compiled.set(apiId, (routes = compileRoutes(this.store.apiOperations(apiId).map(this.limited))));
    return routes;
  }

  /** An operation whose path has touching parameters (`{name}{ext}`), with the enums of its path parameters. */
  private readonly limited = (op: { id: string; method: string; path: string }): Operation => {
    if (!op.path.includes('}{')) return op;
    const tool = this.store.get(op.id);
    const values: Record<string, string[]> = {};
    for (const [property, binding] of Object.entries(tool?.bindings ?? {})) {
      const schema = tool!.parameters.properties[property];
      if (binding.in === 'path' && isPlainObject(schema) && Array.isArray(schema.enum))
        values[binding.name] = schema.enum.filter((value): value is string => typeof value === 'string');
    }
    return { ...op, values };
  };

  /** Each operation's declared security (`serve --security enforce` checks it). */
  security(apiId: string): ApiSecurity {
    let security = this.secured.get(apiId);
    if (!security)
      this.secured.set(apiId, (security = apiSecurity(this.store.apiDocument(apiId), this.store.apiOperations(apiId))));
    return security;
  }

  /** What each operation's document says of its media types and request body (read once per API, on first use). */
  facts(apiId: string): ApiFacts {
    let facts = this.described.get(apiId);
    if (!facts)
      this.described.set(apiId, (facts = apiFacts(this.store.apiDocument(apiId), this.store.apiOperations(apiId))));
    return facts;
  }

  /**
   * The API's document with `serverUrl` as its server (apiBaseUrl's, or a port's root), or undefined when the API has
   * none.
   */
  document(apiId: string, serverUrl: string): string | undefined {
    const key = `${serverUrl}\n${apiId}`;
    const cached = this.documents.get(key);
    if (cached !== undefined) return cached;
    const document = this.store.apiDocument(apiId);
    if (!isPlainObject(document)) return undefined;
    const text = JSON.stringify(servedDocument(document, this.store.apiOperations(apiId), serverUrl));
    this.documents.set(key, text);
    return text;
  }

  private exists(apiId: string): boolean {
    let known = this.known.get(apiId);
    if (known === undefined) this.known.set(apiId, (known = this.store.api(apiId) !== undefined));
    return known;
  }
}

/** Where an API's REST surface lives on this server: `http://host:port/apis/amazonaws.com:acm`. */
export function apiBaseUrl(baseUrl: string, apiId: string): string {
  return `${baseUrl}/apis/${apiId.split('/').map(encodeSegment).join('/')}`;
}

/**
 * Percent-encodes what a path segment cannot hold, keeping the sub-delimiters, ':' and '@' that RFC 3986 allows there.
 */
function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(/%(3A|40|21|24|26|27|28|29|2A|2B|2C|3B|3D)/g, (kept) =>
    decodeURIComponent(kept),
  );
}
