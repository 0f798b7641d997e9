import { readFileSync } from 'node:fs';
import { HttpConnection, type HttpAnswer } from './http-client.js';
import { freshArguments } from './fresh-arguments.js';
import { rssMb } from './processes.js';

/**
 * The rollout bench's load generator, run as its own process (argv[2]: a RolloutLoadConfig as JSON; its last stdout
 * line: a RolloutLoadResult). `connections` keep-alive connections each drive one thing at a time: plain tool
 * calls, or rounds of episodes (`episodes` spread over the connections), each created, stepped `steps` times and
 * deleted. Only what answers before the deadline counts; then every connection finishes its round's remaining steps
 * and leaves its episodes live, the server's RSS is read with all of them live, and they are deleted.
 */
export interface RolloutLoadConfig {
  url: string;
  mode: 'call' | 'step' | 'turns';
  tool: string;
  /** A valid arguments object for the tool: sent as is (cached), or varied per action (`fresh`). */
  args: Record<string, unknown>;
  fresh: boolean;
  /** Where this run's fresh arguments start counting (distinct per run, so no run meets another's). */
  freshOffset: number;
  /** Search query that finds the tool (text turns start with one search turn, as an agent explores first). */
  query: string;
  connections: number;
  /**
   * Concurrent episodes, spread over the connections (default one per connection): a connection with several drives
   * them turn by turn in rotation, as a trainer's client pool interleaves its rollouts.
   */
  episodes?: number;
  steps: number;
  actionsPerStep: number;
  durationSeconds: number;
  /** The server's process id: its CPU time is read over the window, and its RSS once every episode is live. */
  serverPid?: number;
  /** Read the server's RSS once every episode is live (and not the episodes deleted before). */
  rss?: boolean;
}

export interface RolloutLoadResult {
  /** Tool-call actions answered inside the window (plain calls, or the calls of steps and call turns). */
  calls: number;
  /** Search actions answered inside the window (text turns' first turn). */
  searches: number;
  /** Requests answered inside the window (calls, steps, turns, creates, deletes). */
  requests: number;
  /** Step latencies (a plain call, a step, a call turn), milliseconds. */
  latencies_ms: number[];
  episodes: number;
  /** Answers that were not what the workload expects (an error status, a rejected turn, a missing observation). */
  failures: number;
  /** The first few failures, for the log. */
  failure_samples: string[];
  /** Where the calls' answers came from (`x-toolenv-source` of the observations; text turns do not say). */
  sources: Record<string, number>;
  window_s: number;
  /** This process's CPU time per request inside the window, microseconds. */
  generator_us_per_request: number;
  /**
   * The server's CPU time (user and system, every thread) inside the window, per action answered, microseconds: the
   * cost that decides rates on a busy machine.
   */
  server_us_per_action?: number;
  /**
   * Of it, the main thread's (the event loop's; synthesis runs on a thread of its own): what decides rates while a core
   * is free.
   */
  server_loop_us_per_action?: number;
  /** Episodes live when the server's RSS was read. */
  live_episodes: number;
  rss_mb?: number;
  /** The server's V8 heap in use with the episodes live (`nodejs_heap_used_bytes`), MB. */
  heap_mb?: number;
  /** Share of the window the server spent in garbage-collection pauses (`nodejs_gc_seconds_total`). */
  gc_share?: number;
  /** Expiry sweeps the server ran from this run's start to its end (the window and the steps after it). */
  sweeps: number;
  /** Their time together, seconds. */
  sweep_seconds: number;
  /** The server's last sweep by the run's end: its time, and the live episodes it visited. */
  sweep_last: { ms: number; visited: number };
}

/**
 * Gauges and counters of the server's /metrics (NaN for one it lacks), over a connection of its own (one kept idle
 * through the window would be closed by the server's keep-alive timeout).
 */
async function serverMetrics<Name extends string>(url: string, names: readonly Name[]): Promise<Record<Name, number>> {
  const connection = await HttpConnection.open(url);
  try {
    const { body } = await connection.request('GET', '/metrics');
    const values = {} as Record<Name, number>;
    for (const name of names) values[name] = Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(body)?.[1] ?? Number.NaN);
    return values;
  } finally {
    connection.close();
  }
}

const SWEEPS = ['toolenv_episode_sweeps_total', 'toolenv_episode_sweep_seconds_total'] as const;

const SOURCE_HEADER = /\r\nx-toolenv-source:\s*([a-z]+)/i;

async function main(config: RolloutLoadConfig): Promise<RolloutLoadResult> {
  const connections = await Promise.all(
    Array.from({ length: config.connections }, () => HttpConnection.open(config.url)),
  );
  const result: RolloutLoadResult = {
    calls: 0,
    searches: 0,
    requests: 0,
    latencies_ms: [],
    episodes: 0,
    failures: 0,
    failure_samples: [],
    sources: {},
    window_s: config.durationSeconds,
    generator_us_per_request: 0,
    live_episodes: 0,
    sweeps: 0,
    sweep_seconds: 0,
    sweep_last: { ms: 0, visited: 0 },
  };
  let fresh = config.freshOffset;
  const argumentsOf = () => (config.fresh ? freshArguments(config.args, ++fresh) : config.args);
  const callPath = `/v1/tools/${encodeURIComponent(config.tool)}/call`;
  const started = performance.now();
  const deadline = started + config.durationSeconds * 1000;
  const cpuStart = process.cpuUsage();
  const serverStart = config.serverPid === undefined ? 0 : cpuMicros(config.serverPid);
  const loopStart = config.serverPid === undefined ? 0 : cpuMicros(config.serverPid, config.serverPid);
  const atStart = await serverMetrics(config.url, ['nodejs_gc_seconds_total', ...SWEEPS]);
  const gcStart = atStart.nodejs_gc_seconds_total;
  let gcAtDeadline: Promise<number> | undefined;
  let cpuAtDeadline: NodeJS.CpuUsage | undefined;
  let serverAtDeadline = 0;
  let loopAtDeadline = 0;
  const inWindow = () => {
    if (performance.now() < deadline) return true;
    if (!cpuAtDeadline) {
      cpuAtDeadline = process.cpuUsage(cpuStart);
      gcAtDeadline = serverMetrics(config.url, ['nodejs_gc_seconds_total']).then((m) => m.nodejs_gc_seconds_total);
      if (config.serverPid !== undefined) {
        serverAtDeadline = cpuMicros(config.serverPid) - serverStart;
        loopAtDeadline = cpuMicros(config.serverPid, config.serverPid) - loopStart;
      }
    }
    return false;
  };
  const fail = (what: string, answer: HttpAnswer) => {
    result.failures++;
    if (result.failure_samples.length < 5)
      result.failure_samples.push(`${what}: ${answer.status} ${answer.body.slice(0, 300)}`);
  };
  const count = (source: string) => (result.sources[source] = (result.sources[source] ?? 0) + 1);
  /** Sends one request; it counts (with its latency when `timed`) if it answered inside the window. */
  const send = async (
    connection: HttpConnection,
    method: string,
    path: string,
    body: string | undefined,
    timed: boolean,
  ) => {
    const sent = performance.now();
    const answer = await connection.request(method, path, body);
    const counted = inWindow();
    if (counted) {
      result.requests++;
      if (timed) result.latencies_ms.push(performance.now() - sent);
    }
    return { answer, counted };
  };

  const callLoop = async (connection: HttpConnection) => {
    while (inWindow()) {
      const { answer, counted } = await send(
        connection,
        'POST',
        callPath,
        cachedCall ?? JSON.stringify({ arguments: argumentsOf() }),
        true,
      );
      if (answer.status !== 200) fail('call', answer);
      else if (counted) {
        result.calls++;
        count(SOURCE_HEADER.exec(answer.head)?.[1] ?? 'unknown');
      }
    }
  };

  // The request bodies: built once for cached arguments, per step for fresh ones (the generator's own cost counts).
  const buildStep = () => {
    const actions = Array.from({ length: config.actionsPerStep }, argumentsOf);
    if (config.mode !== 'turns')
      return JSON.stringify({
        actions: actions.map((args) => ({ type: 'tool_call', tool: config.tool, arguments: args })),
      });
    const calls = actions.map(
      (args) => `<tool_call>${JSON.stringify({ tool: config.tool, arguments: args })}</tool_call>`,
    );
    return JSON.stringify({ text: `<think>Read the records.</think>\n${calls.join('\n')}` });
  };
  const cachedStep = config.fresh ? undefined : buildStep();
  const stepBody = () => cachedStep ?? buildStep();
  const cachedCall = config.fresh ? undefined : JSON.stringify({ arguments: config.args });
  const live: string[] = [];
  const createBody = JSON.stringify(
    config.mode === 'turns' ? { max_turns: config.steps + 1 } : { max_steps: config.steps },
  );
  // Rounds of episodes, each created, stepped in rotation to its end and deleted, until a round ends after the
  // window: that round's episodes stay live.
  const episodeLoop = async (connection: HttpConnection, driven: number) => {
    const stepPath = (id: string) => `/v1/episodes/${id}/${config.mode === 'turns' ? 'turns' : 'step'}`;
    for (;;) {
      const round: string[] = [];
      for (let i = 0; i < driven; i++) {
        const created = await send(connection, 'POST', '/v1/episodes', createBody, false);
        if (created.answer.status !== 201) {
          fail('create', created.answer);
          live.push(...round);
          return;
        }
        // The summary's first member is the episode's id.
        round.push(/^\{"id":"([^"]+)"/.exec(created.answer.body)![1]!);
      }
      if (config.mode === 'turns') {
        const text = `<think>Find the tool first.</think>\n<search_tool>${config.query}</search_tool>`;
        for (const id of round) {
          const { answer, counted } = await send(connection, 'POST', stepPath(id), JSON.stringify({ text }), false);
          const turn =
            answer.status === 200
              ? (JSON.parse(answer.body) as { rejected?: string[]; observation: { content: string } })
              : undefined;
          if (!turn || turn.rejected || !turn.observation.content.includes(config.tool)) fail('search turn', answer);
          else if (counted) result.searches++;
        }
      }
      for (let step = 1; step <= config.steps; step++) {
        for (const id of round) {
          const { answer, counted } = await send(connection, 'POST', stepPath(id), stepBody(), true);
          if (
            answer.status !== 200 ||
            !(config.mode === 'turns'
              ? turnCalls(answer.body, config.actionsPerStep)
              : stepCalls(answer.body, config.actionsPerStep, count))
          )
            fail(config.mode, answer);
          else if (counted) result.calls += config.actionsPerStep;
        }
      }
      if (!inWindow()) {
        live.push(...round);
        return;
      }
      for (const id of round) {
        const deleted = await send(connection, 'DELETE', `/v1/episodes/${id}`, undefined, false);
        if (deleted.answer.status !== 200) fail('delete', deleted.answer);
        result.episodes++;
      }
    }
  };

  const episodes = config.episodes ?? config.connections;
  // Connection i drives ⌊episodes / connections⌋ episodes, one more for the first (episodes mod connections).
  const share = (i: number) => Math.floor(episodes / config.connections) + (i < episodes % config.connections ? 1 : 0);
  await Promise.all(
    connections.map((connection, i) =>
      config.mode === 'call' ? callLoop(connection) : episodeLoop(connection, share(i)),
    ),
  );
  const cpu = cpuAtDeadline ?? process.cpuUsage(cpuStart);
  result.generator_us_per_request =
    result.requests > 0 ? Math.round(((cpu.user + cpu.system) / result.requests) * 10) / 10 : 0;
  const actions = result.calls + result.searches;
  if (config.serverPid !== undefined && actions > 0) {
    result.server_us_per_action = Math.round((serverAtDeadline / actions) * 10) / 10;
    result.server_loop_us_per_action = Math.round((loopAtDeadline / actions) * 10) / 10;
  }
  result.live_episodes = live.length;
  if (gcAtDeadline)
    result.gc_share = Math.round((((await gcAtDeadline) - gcStart) / config.durationSeconds) * 1000) / 1000;
  const atEnd = await serverMetrics(config.url, [
    'nodejs_heap_used_bytes',
    'toolenv_episode_sweep_last_seconds',
    'toolenv_episode_sweep_last_visited',
    ...SWEEPS,
  ]);
  if (config.serverPid !== undefined && config.rss) {
    result.rss_mb = rssMb(config.serverPid);
    result.heap_mb = Math.round(atEnd.nodejs_heap_used_bytes / 2 ** 20);
  }
  result.sweeps = atEnd.toolenv_episode_sweeps_total - atStart.toolenv_episode_sweeps_total;
  result.sweep_seconds = atEnd.toolenv_episode_sweep_seconds_total - atStart.toolenv_episode_sweep_seconds_total;
  result.sweep_last = {
    ms: Math.round(atEnd.toolenv_episode_sweep_last_seconds * 1e5) / 100,
    visited: atEnd.toolenv_episode_sweep_last_visited,
  };
  // Every live episode deleted over new connections: the server may have closed ones idle past its keep-alive
  // timeout while the others finished.
  for (const connection of connections) connection.close();
  const deleters = await Promise.all(
    Array.from({ length: Math.min(64, live.length) }, () => HttpConnection.open(config.url)),
  );
  let next = 0;
  await Promise.all(
    deleters.map(async (connection) => {
      while (next < live.length) await connection.request('DELETE', `/v1/episodes/${live[next++]}`);
      connection.close();
    }),
  );
  return result;
}

/**
 * User and system CPU time of a process (or of one of its threads) so far, microseconds, from /proc (Linux; clock ticks
 * of 10 ms).
 */
function cpuMicros(pid: number, thread?: number): number {
  const fields = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * Whether a step answered one observation per action, each a 200; counts their sources. Read off the text: the
 * generator parses nothing it need not.
 */
function stepCalls(body: string, actions: number, count: (source: string) => void): boolean {
  if (occurrences(body, '"status":200,"body":') !== actions) return false;
  for (const [, source] of body.matchAll(/"source":"([a-z]+)"/g)) count(source!);
  return true;
}

/**
 * Whether a call turn ran as a step and every call in its observation (JSON inside the content string) answered 200.
 */
function turnCalls(body: string, actions: number): boolean {
  return (
    !body.includes('"rejected":') &&
    body.includes('"step":') &&
    occurrences(body, '\\"status\\":200,\\"body\\":') === actions
  );
}

function occurrences(text: string, part: string): number {
  let n = 0;
  for (let at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + part.length)) n++;
  return n;
}

if (process.argv[2]) {
  main(JSON.parse(process.argv[2]) as RolloutLoadConfig).then(
    (result) => process.stdout.write(`${JSON.stringify(result)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exit(1);
    },
  );
}
