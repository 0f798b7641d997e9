import { Option, type Command } from 'commander';
import { defaultCacheFile, defaultLibraryDir } from '../paths.js';
import { DEFAULT_EPISODE_TTL_MS, DEFAULT_MAX_EPISODE_BYTES, DEFAULT_MAX_EPISODES } from '../episodes/limits.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from '../mcp/limits.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_HOST, DEFAULT_PORT } from '../server/defaults.js';
import { CACHE_MODES, type CacheMode } from '../simulator/cache-mode.js';
import { DEFAULT_ERROR_RATE } from '../simulator/error-rate.js';
import { addModelOptions, closeModels, MODEL_RESPONDERS, modelServeOptions, respondersFromFlags, startModels, type ModelFlags } from './model.js';
import { intFlag, numberFlag, printJson, printLine, UsageError } from './output.js';

interface ServeFlags extends ModelFlags {
  host: string;
  port: string;
  library: string;
  cache: string;
  cacheMode: string;
  seed: string;
  errorRate: string;
  responder: string;
  apiKey?: string;
  bodyLimit: string;
  maxEpisodes: string;
  episodeTtl: string;
  episodeMemory: string;
  maxMcpSessions: string;
  mcpSessionTtl: string;
  json?: boolean;
}

export function registerServe(program: Command): void {
  const serve = program
    .command('serve')
    .description('serve the library over HTTP: /v1 tool calls, each API’s REST surface under /apis, /metrics, /openapi.json')
    .option('--host <host>', 'interface to bind', DEFAULT_HOST)
    .option('--port <port>', 'port to listen on (0 picks a free one)', String(DEFAULT_PORT))
    .option('--library <dir>', 'library directory (the default one is built when missing)', defaultLibraryDir())
    .option('--cache <file>', 'response cache file', defaultCacheFile())
    .option('--cache-mode <mode>', `cache mode: ${CACHE_MODES.join(', ')}`, 'read-write')
    .option('--seed <n>', 'seed of error injection and synthesis', '0')
    .option('--error-rate <r>', 'probability of an injected error per call (0 turns injection off)', String(DEFAULT_ERROR_RATE))
    .option('--responder <names>', `responders asked in order, comma-separated: example, synth, ${MODEL_RESPONDERS.join(', ')} (synth is always the last fallback)`, 'example,synth')
    .addOption(new Option('--api-key <key>', 'require Authorization: Bearer KEY on every route but /healthz').env('TOOLENV_API_KEY'))
    .option('--body-limit <bytes>', 'largest request body (larger ones are answered 413)', String(DEFAULT_BODY_LIMIT))
    .option('--max-episodes <n>', 'live episodes at most; creating one more is answered 429', String(DEFAULT_MAX_EPISODES))
    .option('--episode-ttl <seconds>', 'idle time after which an episode is dropped', String(DEFAULT_EPISODE_TTL_MS / 1000))
    .option('--episode-memory <MiB>', 'JSON all live episodes may hold together; past it new episodes are answered 429', String(DEFAULT_MAX_EPISODE_BYTES / 2 ** 20))
    .option('--max-mcp-sessions <n>', 'live MCP sessions at most; initializing one more is answered 429', String(DEFAULT_MAX_SESSIONS))
    .option('--mcp-session-ttl <seconds>', 'idle time after which an MCP session is closed and the episode it opened ended', String(DEFAULT_SESSION_IDLE_MS / 1000))
    .option('--json', 'print {url, tools, startup_ms} as one JSON line once listening');
  addModelOptions(serve).action(async (flags: ServeFlags, command: Command) => {
    const port = intFlag('--port', flags.port, { min: 0, max: 65535 });
    const seed = intFlag('--seed', flags.seed);
    const errorRate = numberFlag('--error-rate', flags.errorRate, { min: 0, max: 1 });
    const bodyLimit = intFlag('--body-limit', flags.bodyLimit, { min: 1 });
    const maxEpisodes = intFlag('--max-episodes', flags.maxEpisodes, { min: 1 });
    const episodeTtlMs = numberFlag('--episode-ttl', flags.episodeTtl, { min: 0.001, max: 365 * 24 * 3600 }) * 1000;
    const episodeMaxBytes = numberFlag('--episode-memory', flags.episodeMemory, { min: 1, max: 2 ** 20 }) * 2 ** 20;
    const maxSessions = intFlag('--max-mcp-sessions', flags.maxMcpSessions, { min: 1 });
    const idleMs = numberFlag('--mcp-session-ttl', flags.mcpSessionTtl, { min: 0.001, max: 365 * 24 * 3600 }) * 1000;
    if (!CACHE_MODES.includes(flags.cacheMode as CacheMode)) {
      throw new UsageError(`--cache-mode must be one of ${CACHE_MODES.join(', ')}, got ${JSON.stringify(flags.cacheMode)}`);
    }
    // Loaded together, so that their file reads overlap.
    const [{ LibraryStore }, { startServer }, { examplesResponder }, { synthResponder }] = await Promise.all([
      import('../library/store.js'),
      import('../server/serve.js'),
      import('../simulator/examples.js'),
      import('../simulator/synth/index.js'),
    ]);
    const responders = await respondersFromFlags(flags.responder, flags, { example: examplesResponder, synth: synthResponder });
    if (flags.apiKey !== undefined && flags.apiKey.trim() === '') throw new UsageError('--api-key (or TOOLENV_API_KEY) is empty');

    // Only the default library is built on demand: a missing --library given by hand is a mistake to report.
    const isDefault = command.getOptionValueSource('library') === 'default' && process.env.TOOLENV_LIBRARY === undefined;
    if (isDefault && !LibraryStore.exists(flags.library)) {
      process.stderr.write(`toolenv: no library at ${flags.library}; building the default library first (this takes a few minutes)\n`);
      // Loaded only here: the converter is a large import that a normal start does not need.
      const { buildDefaultLibrary } = await import('../library/build.js');
      const summary = await buildDefaultLibrary({ dir: flags.library });
      process.stderr.write(`toolenv: built ${summary.tools} tools in ${(summary.duration_ms / 1000).toFixed(1)} s\n`);
    }

    const server = await startServer({
      library: flags.library,
      cache: flags.cache,
      cacheMode: flags.cacheMode as CacheMode,
      responders,
      seed,
      errorRate,
      apiKey: flags.apiKey,
      bodyLimit,
      maxEpisodes,
      episodeTtlMs,
      episodeMaxBytes,
      mcp: { maxSessions, idleMs },
      host: flags.host,
      port,
      ...(await modelServeOptions(responders)),
    });
    startModels(responders, server.simulator.cache, (line) => process.stderr.write(`${line}\n`));
    // Since the process started: what someone waiting for the server sees.
    const startup_ms = Math.round(performance.now());
    if (flags.json) printJson({ url: server.url, tools: server.tools, startup_ms });
    else printLine(`toolenv listening on ${server.url} (${server.tools} tools, ready in ${startup_ms} ms)`);

    await new Promise<void>((resolve) => {
      const stop = (signal: NodeJS.Signals) => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        // A second signal while closing ends the process at once.
        process.once(signal, () => process.exit(130));
        Promise.all([server.close(), closeModels(responders)]).then(() => resolve(), (error: unknown) => {
          process.stderr.write(`toolenv: error while closing: ${error instanceof Error ? error.message : String(error)}\n`);
          resolve();
        });
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
    });
  });
}
