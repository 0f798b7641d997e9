import { LRUCache } from 'lru-cache';

export interface OperationSource {
  /** The REST operations of one API (LibraryStore.apiOperations). */
  apiOperations(apiId: string): { path: string }[];
}

/**
 * Which path parameter names an item of each collection (`/pets` → `petId`, `/user` → `username`), per API, read
 * from the API's operations on first use and kept in an LRU shared by every episode: it tells world state which
 * member of a created resource is the id later reads will ask for.
 */
export class ItemParams {
  private readonly byApi = new LRUCache<string, Map<string, string>>({ max: 512 });

  constructor(private readonly library: OperationSource) {}

  readonly lookup = (api: string, template: string): string | undefined => {
    let params = this.byApi.get(api);
    if (!params) {
      params = new Map();
      for (const { path } of this.library.apiOperations(api)) {
        const segments = path.replace(/\/+$/, '').split('/');
        const item = /^\{([^}]+)\}$/.exec(segments[segments.length - 1] ?? '')?.[1];
        const collection = segments
          .slice(0, -1)
          .join('/')
          .replace(/\{[^}]+\}/g, '{}');
        if (item !== undefined && !params.has(collection)) params.set(collection, item);
      }
      this.byApi.set(api, params);
    }
    return params.get(template);
  };
}
