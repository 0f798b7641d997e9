import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { defaultCacheFile, defaultLibraryDir, LIBRARY_FILE } from '../paths.js';
import { DEFAULT_EPISODE_TTL_MS, DEFAULT_MAX_EPISODE_BYTES, LIVE_EPISODE_BYTES } from '../episodes/limits.js';
import { DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from '../mcp/limits.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_HOST, DEFAULT_PORT } from '../server/defaults.js';
import { SECURITY_MODES } from '../server/rest/security.js';
import { CACHE_MODES } from '../simulator/cache-mode.js';
import { DEFAULT_MAX_ENTRY_BYTES } from '../simulator/cache-limits.js';
import { DEFAULT_ERROR_RATE } from '../simulator/error-rate.js';
import {
  addModelOptions,
  checkResponders,
  closeModels,
  MODEL_RESPONDERS,
  modelServeOptions,
  respondersFromFlags,
  startModels,
  type ModelFlags,
} from './model.js';
import { choiceFlag, intFlag, numberFlag, openaiSpecFlag, printJson, printLine } from './output.js';
import { ReportedFailure, UsageError } from '../terminal/errors.js';
import { placementFromEnv } from '../server/cluster/placement.js';
import { workersFlag } from './workers.js';
import { addRuleOptions, ruleOptions, type RuleFlags } from './rule-flags.js';
import { addUpstreamOptions, upstreamSettings, type UpstreamFlags } from './upstream-flags.js';
import type { EpisodeTask } from '../wire/episodes.js';
import { missingLibrary } from '../library/errors.js';
import type { FailedMessage } from '../server/cluster/primary.js';
import { describeFailure } from './failure.js';
import { embedFlagOptions, embedOptions, type EmbedFlags } from './search/options.js';

/** The responders every server has; the model ones are built from their flags. */
const EMBEDDED_RESPONDERS = ['example', 'synth'] as const;

interface ServeFlags extends ModelFlags, RuleFlags, UpstreamFlags, EmbedFlags {
  host: string;
  port: string;
  library: string;
  cache: string;
  cacheMode: string;
  cacheMaxEntry: string;
  cacheMaxSize: string;
  replica?: string;
  seed: string;
  errorRate: string;
  responder: string;
  apiKey?: string;
  allowedHosts?: string;
  bodyLimit: string;
  security: string;
  apiPort: string[];
  maxEpisodes?: string;
  episodeTtl: string;
  episodeMemory: string;
  maxMcpSessions: string;
  mcpSessionTtl: string;
  workers: string;
  judge?: string;
  judgeApiKey?: string;
  openenvTasks?: string;
  runs?: string;
  json?: boolean;
}

export function registerServe(program: Command): void {
  const serve = program
    .command('serve')
    .description(
      'serve the library over HTTP: /v1 tool calls, each API’s REST surface under /apis, /metrics, /openapi.json',
    )
    .option('--host <host>', 'interface to bind', DEFAULT_HOST)
    .option('--port <port>', 'port to listen on (0 picks a free one)', String(DEFAULT_PORT))
    .option(
      '--allowed-hosts <names>',
      'Host names answered, comma-separated, or * for any (default: ' +
        'the loopback names when bound to loopback, any otherwise)',
    )
    .option('--library <dir>', 'library directory (the default one is built when missing)', defaultLibraryDir())
    .option(
      '--cache <file|url>',
      'response cache: a SQLite file, or a postgres://user:pass@host/db URL that replicas share (docs/deploy.md)',
      defaultCacheFile(),
    )
    .option('--cache-mode <mode>', `cache mode: ${CACHE_MODES.join(', ')}`, 'read-write')
    .option(
      '--cache-max-entry <bytes>',
      'answers whose entry (canonical arguments + body JSON) is larger are served but not cached',
      String(DEFAULT_MAX_ENTRY_BYTES),
    )
    .option(
      '--cache-max-size <MiB>',
      'past this size on disk the cache takes no new entries (hits go on, nothing is evicted); 0: no bound',
      '0',
    )
    .option('--seed <n>', 'seed of error injection and synthesis', '0')
    .option(
      '--error-rate <r>',
      'probability of an injected error per call (0 turns injection off)',
      String(DEFAULT_ERROR_RATE),
    )
    .option(
      '--responder <names>',
      `responders asked in order, comma-separated: ${[...EMBEDDED_RESPONDERS, ...MODEL_RESPONDERS].join(', ')} ` +
        '(synth is always the last fallback)',
      'example,synth',
    )
    .addOption(
      new Option('--api-key <key>', 'require Authorization: Bearer KEY on every route but /healthz').env(
        'TOOLENV_API_KEY',
      ),
    )
    .option('--body-limit <bytes>', 'largest request body (larger ones are answered 413)', String(DEFAULT_BODY_LIMIT))
    .option(
      '--security <mode>',
      `the security each operation declares, on the REST surface: ${SECURITY_MODES.join(' or ')} (a request without ` +
        "the credentials it names, or with malformed ones, gets the API's own 401, or its 403 where it declares only that)",
      'ignore',
    )
    .option(
      '--api-port <api=port>',
      'also serve one API’s REST surface at the root of a port of its own, for SDKs that take only a host and port ' +
        '(stripe-node): stripe.com=8081; repeatable',
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option(
      '--max-episodes <n>',
      'live episodes at most; creating one more is answered 429 (default: --episode-memory over ' +
        `${LIVE_EPISODE_BYTES / 1024} KiB, ${DEFAULT_MAX_EPISODE_BYTES / LIVE_EPISODE_BYTES} for its default)`,
    )
    .option(
      '--episode-ttl <seconds>',
      'idle time after which an episode is dropped',
      String(DEFAULT_EPISODE_TTL_MS / 1000),
    )
    .option(
      '--episode-memory <MiB>',
      'JSON all live episodes may hold together; past it new episodes are answered 429',
      String(DEFAULT_MAX_EPISODE_BYTES / 2 ** 20),
    )
    .option(
      '--max-mcp-sessions <n>',
      'live MCP sessions at most; initializing one more is answered 429',
      String(DEFAULT_MAX_SESSIONS),
    )
    .option(
      '--mcp-session-ttl <seconds>',
      'idle time after which an MCP session is closed and the episode it opened ended',
      String(DEFAULT_SESSION_IDLE_MS / 1000),
    )
    .option(
      '--judge <spec>',
      'the answer judge of the rewards (R_ans): openai:MODEL@URL, any OpenAI-compatible chat endpoint',
    )
    .addOption(
      new Option('--judge-api-key <key>', 'key sent to the judge as a Bearer token').env('TOOLENV_JUDGE_API_KEY'),
    )
    .option(
      '--workers <n>',
      'server processes sharing the port, or auto (one per core); each episode stays with the worker that made it; ' +
        '--max-episodes and --max-mcp-sessions hold per worker, --episode-memory is split among them',
      '1',
    )
    .option(
      '--replica <n>',
      "this server's number among replicas behind one proxy: episode, group and MCP session ids carry rN- for the " +
        'proxy to route by (docs/deploy.md)',
    )
    .option(
      '--openenv-tasks <file>',
      'tasks an OpenEnv reset without one plays (own JSON Lines; tasks[seed mod n], else in turn)',
    )
    .option(
      '--runs <dir>',
      'eval and train run directories (one run, or runs up to two levels below) the studio at /studio shows',
    )
    .option('--json', 'print {url, tools, startup_ms, workers, api_urls?} as one JSON line once listening');
  addModelOptions(addUpstreamOptions(addRuleOptions(embedFlagOptions(serve)))).action(
    async (flags: ServeFlags, command: Command) => {
      const rules = ruleOptions(flags);
      const retrieval = embedOptions(flags);
      if (retrieval.embedModel !== undefined) {
        const { onnxWeights, ModelDirError } = await import('../retrieval/onnx-embedder.js');
        try {
          onnxWeights(retrieval.embedModel, retrieval.embedDtype);
        } catch (error) {
          if (error instanceof ModelDirError) throw new UsageError(`--embed-model: ${error.message}`);
          throw error;
        }
      }
      const port = intFlag('--port', flags.port, { min: 0, max: 65535 });
      const seed = intFlag('--seed', flags.seed);
      const errorRate = numberFlag('--error-rate', flags.errorRate, { min: 0, max: 1 });
      const bodyLimit = intFlag('--body-limit', flags.bodyLimit, { min: 1 });
      const apiPorts = flags.apiPort.map(apiPortFlag);
      const security = choiceFlag('--security', flags.security, SECURITY_MODES);
      const maxEpisodes =
        flags.maxEpisodes === undefined ? undefined : intFlag('--max-episodes', flags.maxEpisodes, { min: 1 });
      const episodeTtlMs = numberFlag('--episode-ttl', flags.episodeTtl, { min: 0.001, max: 365 * 24 * 3600 }) * 1000;
      const episodeMaxBytes = numberFlag('--episode-memory', flags.episodeMemory, { min: 1, max: 2 ** 20 }) * 2 ** 20;
      const maxSessions = intFlag('--max-mcp-sessions', flags.maxMcpSessions, { min: 1 });
      const idleMs = numberFlag('--mcp-session-ttl', flags.mcpSessionTtl, { min: 0.001, max: 365 * 24 * 3600 }) * 1000;
      const workers = workersFlag(flags.workers);
      if (apiPorts.length > 0 && workers > 1)
        throw new UsageError(
          '--api-port cannot be served with --workers above 1: the workers listen on no port of their own',
        );
      const cacheMaxEntryBytes = intFlag('--cache-max-entry', flags.cacheMaxEntry, { min: 0 });
      const cacheMaxBytes = numberFlag('--cache-max-size', flags.cacheMaxSize, { min: 0, max: 2 ** 30 }) * 2 ** 20;
      const replica =
        flags.replica === undefined ? undefined : intFlag('--replica', flags.replica, { min: 0, max: 9999 });
      const cacheMode = choiceFlag('--cache-mode', flags.cacheMode, CACHE_MODES);
      const upstream = await upstreamSettings(flags, command, cacheMode);
      if (workers > 1 && flags.responder.split(',').some((name) => name.trim() === 'llama')) {
        throw new UsageError(
          '--workers above 1 cannot serve --responder llama: every worker would load its own copy of the model; ' +
            'serve it with --workers 1, or put it behind --responder openai',
        );
      }
      if (flags.apiKey !== undefined && flags.apiKey.trim() === '')
        throw new UsageError('--api-key (or TOOLENV_API_KEY) is empty');
      if (flags.judge !== undefined) await openaiSpecFlag('--judge', flags.judge);
      const allowedHosts = flags.allowedHosts === undefined ? undefined : await allowedHostsFlag(flags.allowedHosts);
      const openenvTasks = flags.openenvTasks === undefined ? undefined : await readOpenEnvTasks(flags.openenvTasks);
      const runs = flags.runs === undefined ? undefined : runsDir(flags.runs);
      const placement = placementFromEnv();
      // Ctrl-C reaches the whole process group; in a cluster the primary alone decides when workers stop.
      if (placement) process.on('SIGINT', () => {});

      // Only the default library is built on demand: a missing --library given by hand is a mistake to report.
      const isDefault =
        command.getOptionValueSource('library') === 'default' && process.env.TOOLENV_LIBRARY === undefined;
      if (placement === undefined && isDefault && !existsSync(join(flags.library, LIBRARY_FILE))) {
        process.stderr.write(
          `toolenv: no library at ${flags.library}; building the default library first (this takes a few minutes)\n`,
        );
        // Loaded only here: the converter is a large import that a normal start does not need.
        const { buildDefaultLibrary } = await import('../library/build.js');
        const summary = await buildDefaultLibrary({ dir: flags.library });
        process.stderr.write(
          `toolenv: built ${summary.tools} tools in ` +
            `${(summary.duration_ms / 1000).toFixed(1)} s; building the search index\n`,
        );
        const { buildLexicalIndex } = await import('./library/build.js');
        const indexMs = await buildLexicalIndex(flags.library, () => {});
        process.stderr.write(`toolenv: built the BM25 index in ${(indexMs / 1000).toFixed(1)} s\n`);
        // As `library build` does: the synthesizer draws from the vendors' documented values.
        const { minePriorInto, priorLine } = await import('./library/prior.js');
        process.stderr.write(
          `toolenv: ${priorLine(await minePriorInto(flags.library, () => ({ apis: new Set(), operations: new Set() })))}\n`,
        );
      }
      if (placement === undefined && workers > 1) {
        // Checked here, once, rather than by every worker; the primary itself loads none of the serving code.
        const libraryFile = join(flags.library, LIBRARY_FILE);
        if (!existsSync(libraryFile)) throw missingLibrary(flags.library, libraryFile);
        await checkResponders(flags.responder, flags, EMBEDDED_RESPONDERS);
        return serveCluster({ workers, host: flags.host, port }, Boolean(flags.json));
      }

      const start = async (): Promise<Serving> => {
        // Loaded together, so that their file reads overlap.
        const [{ startServer, ApiPortError }, { examplesResponder }, { threadedSynthResponder }, { runRoutes }] =
          await Promise.all([
            import('../server/serve.js'),
            import('../simulator/examples.js'),
            import('../simulator/synth/threaded.js'),
            import('../studio/routes.js'),
          ]);
        // Synthesis runs on a thread of its own: fresh calls cost the event loop little more than cached ones.
        const synth = threadedSynthResponder(flags.library);
        const responders = await respondersFromFlags(flags.responder, flags, { example: examplesResponder, synth });

        // The memory budget is the machine's, so each worker holds its share. The count caps hold per worker: clients
        // that pool a few connections put most of their episodes on a few workers, which a split cap would refuse
        // early.
        const share = placement?.count ?? 1;
        const models = await modelServeOptions(responders);
        const server = await startServer({
          library: flags.library,
          cache: flags.cache,
          cacheMode: cacheMode,
          cacheMaxEntryBytes,
          cacheMaxBytes,
          responders,
          seed,
          errorRate,
          ...rules,
          ...(upstream ? { upstream } : {}),
          apiKey: flags.apiKey,
          bodyLimit,
          security,
          apiPorts,
          maxEpisodes,
          episodeTtlMs,
          episodeMaxBytes: episodeMaxBytes / share,
          mcp: { maxSessions, idleMs },
          judge: flags.judge,
          judgeApiKey: flags.judgeApiKey,
          // Without --openenv-tasks, a reset without a task plays ones synthesized from the library when first needed.
          openenvTasks: openenvTasks ?? defaultTasks(flags.library),
          retrieval,
          host: flags.host,
          allowedHosts,
          port: placement?.port ?? port,
          worker: placement,
          replica,
          metrics: models.metrics,
          // The studio's runs (`--runs`); without it their list is empty and says why.
          routes: [...models.routes, runRoutes(runs)],
        }).catch((error: unknown) => {
          throw error instanceof ApiPortError ? new UsageError(error.message) : error;
        });
        startModels(responders, server.simulator.cache, (line) => process.stderr.write(`${line}\n`));
        return {
          server,
          close: () => Promise.all([server.close(), closeModels(responders), synth.close()]).then(() => undefined),
        };
      };
      if (placement) return serveAsWorker(start);
      const { server, close } = await start();

      // Since the process started: what someone waiting for the server sees.
      const startup_ms = Math.round(performance.now());
      const apiUrls = Object.entries(server.apiUrls);
      if (flags.json)
        printJson({
          url: server.url,
          tools: server.tools,
          startup_ms,
          workers: 1,
          ...(apiUrls.length > 0 ? { api_urls: server.apiUrls } : {}),
        });
      else {
        printLine(
          `toolenv listening on ${server.url} (${server.tools} tools, ` +
            `ready in ${startup_ms} ms); studio: ${server.url}/studio`,
        );
        for (const [apiId, url] of apiUrls) printLine(`toolenv: ${apiId} at the root of ${url}`);
      }
      await untilSignal(close);
    },
  );
}

/** A server started from the command line's flags, and how to close it with its models. */
interface Serving {
  server: { url: string; tools: number; apiUrls: Record<string, string> };
  close: () => Promise<void>;
}

/** The primary of a cluster: its workers run this same command line; it waits for them, restarts them, stops them. */
async function serveCluster(
  { workers, host, port }: { workers: number; host: string; port: number },
  json: boolean,
): Promise<void> {
  const { startCluster, WorkerStartError } = await import('../server/cluster/primary.js');
  const cluster = startCluster({ workers, host, port, log: (line) => process.stderr.write(`${line}\n`) });
  // Taken from the start: a signal while the workers start stops them too.
  let stopping = false;
  const signalled = untilSignal(() => {
    stopping = true;
    return cluster.close();
  }).then(() => undefined);
  let ready;
  try {
    ready = await Promise.race([cluster.ready, signalled]);
  } catch (error) {
    // A worker that the same Ctrl-C or group SIGTERM ended before it could take signals (it may reach this process
    // first): that is the stop asked for, not a failure.
    if (stopping || (error instanceof WorkerStartError && (error.signal === 'SIGINT' || error.signal === 'SIGTERM')))
      return;
    if (error instanceof WorkerStartError) {
      // The first worker's reason, once (its siblings sent the same); one that died without sending any may have
      // printed something itself.
      if (error.report) process.stderr.write(`${error.report}\n`);
      throw new ReportedFailure(error.exitCode);
    }
    throw error;
  }
  if (!ready) return;
  const startup_ms = Math.round(performance.now());
  if (json) printJson({ url: ready.url, tools: ready.tools, startup_ms, workers });
  else
    printLine(
      `toolenv listening on ${ready.url} (${ready.tools} tools, ` +
        `${workers} workers, ready in ${startup_ms} ms); studio: ${ready.url}/studio`,
    );
  const failure = await Promise.race([signalled, cluster.failed]);
  if (failure) {
    await cluster.close();
    throw failure;
  }
}

/**
 * A cluster worker: starts, tells the primary it listens, and closes when the primary says so or on SIGTERM (SIGINT
 * it ignores, see above). When the primary itself goes away, node's cluster module ends the worker at once.
 */
async function serveAsWorker(start: () => Promise<Serving>): Promise<void> {
  let serving: Serving;
  try {
    serving = await start();
  } catch (error) {
    throw await toldPrimary(error);
  }
  const { server, close } = serving;
  const { SHUTDOWN_MESSAGE } = await import('../server/cluster/primary.js');
  await new Promise<void>((resolve, reject) => {
    let closing: Promise<void> | undefined;
    const stop = () => (closing ??= close().then(resolve, reject));
    process.on('message', (message: { type?: string }) => {
      if (message?.type === SHUTDOWN_MESSAGE.type) stop();
    });
    process.once('SIGTERM', stop);
    process.send!({ type: 'toolenv-ready', url: server.url, tools: server.tools });
  });
}

/**
 * A start failure, sent to the primary to print (every worker would print the same): the error left for main is then
 * only its exit code. When the primary cannot be told, main prints the error itself.
 */
async function toldPrimary(error: unknown): Promise<unknown> {
  const { text, exitCode } = describeFailure(error);
  const message: FailedMessage = { type: 'toolenv-failed', text };
  const sent = await new Promise<boolean>((resolve) =>
    process.send!(message, undefined, undefined, (sendError: Error | null) => resolve(!sendError)),
  );
  return sent ? new ReportedFailure(exitCode) : error;
}

/**
 * Resolves once SIGINT or SIGTERM has closed what `close` closes; a second signal while closing ends the process at
 * once.
 */
function untilSignal(close: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      process.once(signal, () => process.exit(130));
      close().then(resolve, (error: unknown) => {
        process.stderr.write(
          `toolenv: error while closing: ${error instanceof Error ? error.message : String(error)}\n`,
        );
        resolve();
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** `--runs`: an existing directory, kept absolute so that every worker reads the same one. */
function runsDir(dir: string): string {
  const absolute = resolve(dir);
  if (!existsSync(absolute) || !statSync(absolute).isDirectory())
    throw new UsageError(`--runs: ${dir} is not a directory`);
  return absolute;
}

/**
 * The tasks synthesized from the library for OpenEnv resets without one (tasks/synth/default-tasks.ts), its module
 * loaded by the first such reset rather than at start.
 */
function defaultTasks(library: string): () => Promise<readonly EpisodeTask[]> {
  let synthesized: (() => Promise<readonly EpisodeTask[]>) | undefined;
  return async () => {
    const { synthesizedTasks } = await import('../tasks/synth/default-tasks.js');
    // Made once: the function synthesizes on its first call and keeps the tasks.
    synthesized ??= synthesizedTasks(library);
    return synthesized();
  };
}

/** `--openenv-tasks`: a task file in the own format, as the episode's task (id, query, references, answer). */
async function readOpenEnvTasks(file: string): Promise<EpisodeTask[]> {
  const [{ readTrainTasks }, { TaskFileError }, { episodeTask }] = await Promise.all([
    import('../train/tasks.js'),
    import('../eval/tasks.js'),
    import('../wire/episodes.js'),
  ]);
  try {
    return readTrainTasks(file).map(episodeTask);
  } catch (error) {
    if (error instanceof TaskFileError) throw new UsageError(`--openenv-tasks: ${error.message}`);
    throw error;
  }
}

async function allowedHostsFlag(text: string) {
  const { parseAllowedHosts } = await import('../server/host-check.js');
  try {
    return parseAllowedHosts(text);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--api-port API_ID=PORT`. */
function apiPortFlag(value: string): { apiId: string; port: number } {
  const at = value.lastIndexOf('=');
  if (at <= 0) throw new UsageError(`--api-port takes API_ID=PORT (stripe.com=8081), got ${JSON.stringify(value)}`);
  return { apiId: value.slice(0, at), port: intFlag('--api-port', value.slice(at + 1), { min: 0, max: 65535 }) };
}
