import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from '../paths.js';

/**
 * The studio's files: its own modules (compiled by tsconfig.studio.json into dist/src/studio/web), its stylesheet
 * (shipped as source), and uPlot from its npm package. Nothing is fetched from elsewhere: the page's import map
 * points `uplot` at /studio/assets/uplot.js.
 */
export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  /** The same bytes gzipped once, for browsers that take it (uPlot's 145 KB module goes as 42 KB). */
  gzip: Uint8Array<ArrayBuffer>;
  type: string;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

const webDir = join(packageRoot, 'dist', 'src', 'studio', 'web');
const styleDir = join(packageRoot, 'src', 'studio', 'web');
const require = createRequire(import.meta.url);

/** Where a served asset name is read from; undefined for any other name, so no request reaches another file. */
function assetFile(name: string): string | undefined {
  if (name === 'uplot.js') return require.resolve('uplot/dist/uPlot.esm.js');
  if (name === 'uplot.css') return require.resolve('uplot/dist/uPlot.min.css');
  if (name === 'studio.css') return join(styleDir, 'studio.css');
  if (/^[a-z][a-z-]*\.js(\.map)?$/.test(name)) return join(webDir, name);
  return undefined;
}

const loaded = new Map<string, Asset | null>();

/** An asset by its name under /studio/assets/, read once; undefined when there is none. */
export function studioAsset(name: string): Asset | undefined {
  let asset = loaded.get(name);
  if (asset === undefined) {
    const file = assetFile(name);
    asset = null;
    if (file) {
      try {
        const body = new Uint8Array(readFileSync(file));
        asset = { body, gzip: new Uint8Array(gzipSync(body)), type: TYPES[name.slice(name.lastIndexOf('.'))]! };
      } catch {
        asset = null;
      }
    }
    loaded.set(name, asset);
  }
  return asset ?? undefined;
}

const IMPORT_MAP = '{"imports": {"uplot": "/studio/assets/uplot.js"}}';

/**
 * The page runs only the studio's own scripts and talks only to this server: tool descriptions and schemas come
 * from third-party documents, and although every view writes them as text, nothing they could hold would run.
 * Inline styles stay allowed (the views size bars and indents with them).
 */
export const STUDIO_CSP = [
  "default-src 'none'",
  `script-src 'self' 'sha256-${createHash('sha256').update(IMPORT_MAP).digest('base64')}'`,
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The one HTML page: a shell that holds no data and no key; every view fetches what it shows from the API. */
export const STUDIO_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ToolEnv studio</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/studio/assets/uplot.css">
<link rel="stylesheet" href="/studio/assets/studio.css">
<script type="importmap">${IMPORT_MAP}</script>
<script type="module" src="/studio/assets/main.js"></script>
</head>
<body>
<header>
  <a class="brand" href="#/library">ToolEnv studio</a>
  <nav>
    <a href="#/library" data-view="library">Library</a>
    <a href="#/episodes" data-view="episodes">Episodes</a>
    <a href="#/runs" data-view="runs">Runs</a>
    <a href="#/server" data-view="server">Server</a>
  </nav>
  <form id="key-form" autocomplete="off">
    <input id="key" type="password" placeholder="API key (serve --api-key)" aria-label="API key">
    <button type="submit">Use key</button>
  </form>
</header>
<main id="view"></main>
</body>
</html>
`;
