import { ID_KEYS, nameKey } from './names.js';
import type { Site, Walk } from './site.js';

/**
 * A record repeats the request's value of a field it holds (`model` of a completion is the model asked for), where
 * the value its schema's drawn branch gave differs: an anyOf of a free string and a list of known names may have
 * drawn a name from the list. `replace` keeps the request's value only where the field's schema takes it.
 */
export function repeatRequest(
  out: Record<string, unknown>,
  site: Site,
  walk: Walk,
  replace: (key: string, want: unknown) => boolean,
): void {
  if (!site.record || site.inList || walk.echo.byKey.size === 0) return;
  for (const key in out) {
    const value = out[key];
    if (value === null || typeof value === 'object') continue;
    const name = nameKey(key);
    // A record's id is the addressed resource's (`echoFor`), not whatever else the request called `id`.
    if (ID_KEYS.has(name)) continue;
    const sent = walk.echo.byKey.get(name);
    if (typeof sent === 'string' && typeof value === 'string' && sent !== value) replace(key, sent);
  }
}
