#!/usr/bin/env node
// Two replicas behind HAProxy against one replica direct (docs/deploy.md, "Two replicas on one machine"): a throwaway
// PostgreSQL cluster as the shared cache, `serve --replica 0` and `--replica 1` on it, HAProxy 2.6 routing by the
// rN- prefix (deploy.md's config), and the rollout bench's load generator driving text-turn episodes at each target
// in turn. Needs `npx tsc` (it runs dist/), PostgreSQL's initdb and pg_ctl, and haproxy on PATH (Debian packages).
// Usage: node scripts/bench-replicas.mjs LIBRARY [--episodes 256] [--duration 10] [--rounds 3]
import { execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LibraryStore } from '../dist/src/library/store.js';
import { pickTarget } from '../dist/src/bench/run.js';
import { lastJsonLine, startProcess } from '../dist/src/bench/processes.js';
import { SERVE_READY } from '../dist/src/bench/rollouts.js';
import { freePort } from '../dist/src/server/free-port.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    episodes: { type: 'string', default: '256' },
    duration: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
  },
});
const library = positionals[0];
if (!library) {
  process.stderr.write('usage: node scripts/bench-replicas.mjs LIBRARY [--episodes N] [--duration S] [--rounds N]\n');
  process.exit(2);
}
const episodes = Number(values.episodes);
const root = new URL('..', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'toolenv-replicas-'));
const stops = [];
const log = (line) => process.stderr.write(`${line}\n`);

/** PostgreSQL's bin directory: on PATH, or Debian's /usr/lib/postgresql/<version>/bin. */
function pgBin() {
  for (const dir of (process.env.PATH ?? '').split(':')) if (dir && existsSync(join(dir, 'initdb'))) return dir;
  const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(b) - Number(a));
  return join('/usr/lib/postgresql', versions[0], 'bin');
}

/** A throwaway cluster (as the postgres user when run as root: initdb refuses root), its URL. */
async function startPostgres() {
  const bin = pgBin();
  const port = await freePort();
  const asRoot = process.getuid() === 0;
  if (asRoot) {
    const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));
    chownSync(work, id('-u'), id('-g'));
  }
  const run = (tool, args) =>
    execFileSync(
      asRoot ? 'runuser' : join(bin, tool),
      [...(asRoot ? ['-u', 'postgres', '--', join(bin, tool)] : []), ...args],
      {
        stdio: 'ignore',
      },
    );
  const data = join(work, 'pg');
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'toolenv', '-E', 'UTF8', '--no-sync']);
  const options = `-p ${port} -k ${work} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off`;
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(work, 'pg.log'), '-w', 'start']);
  stops.push(async () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']));
  return `postgres://toolenv@127.0.0.1:${port}/postgres`;
}

async function startReplica(index, cache) {
  const port = await freePort();
  const server = await startProcess(
    process.execPath,
    [
      join(root, 'bin/toolenv'),
      'serve',
      '--port',
      String(port),
      '--library',
      library,
      '--cache',
      cache,
      '--replica',
      String(index),
      '--seed',
      '0',
      '--error-rate',
      '0',
      '--responder',
      'synth',
      '--max-episodes',
      String(4 * episodes),
      '--episode-memory',
      String(2 ** 20),
      '--json',
    ],
    SERVE_READY,
  );
  stops.push(() => server.stop());
  return { port, url: SERVE_READY.exec(server.ready)[1] };
}

/** HAProxy with deploy.md's routing: requests naming an rN- episode go to replica N, the rest round-robin. */
async function startHaproxy(replicas) {
  const port = await freePort();
  const acls = replicas.flatMap((_, i) => [
    `  acl r${i} path_reg ^/v1/(episodes|groups)/(w[0-9]+-)?r${i}-`,
    `  acl r${i} req.hdr(x-toolenv-episode) -m reg ^(w[0-9]+-)?r${i}-`,
    `  use-server r${i} if r${i}`,
  ]);
  const config = [
    'global',
    '  maxconn 8000',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 120s',
    '  timeout server 120s',
    'frontend toolenv',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    ...acls,
    ...replicas.map((r, i) => `  server r${i} 127.0.0.1:${r.port} maxconn 4096`),
  ].join('\n');
  writeFileSync(join(work, 'haproxy.cfg'), `${config}\n`);
  const child = spawn('haproxy', ['-db', '-f', join(work, 'haproxy.cfg')], { stdio: ['ignore', 'inherit', 'inherit'] });
  stops.push(async () => void child.kill());
  await new Promise((resolve) => setTimeout(resolve, 1000));
  if (child.exitCode !== null) throw new Error(`haproxy exited with ${child.exitCode}`);
  return `http://127.0.0.1:${port}`;
}

function load(url, target, fresh, run) {
  const config = {
    url,
    mode: 'turns',
    tool: target.tool.id,
    args: target.args,
    fresh,
    freshOffset: run * 2 ** 32,
    query: target.tool.name,
    connections: Math.min(episodes, 2048),
    episodes,
    steps: 8,
    actionsPerStep: 3,
    durationSeconds: Number(values.duration),
  };
  return lastJsonLine(
    process.execPath,
    [join(root, 'dist/src/bench/rollout-load.js'), JSON.stringify(config)],
    'the load generator',
  );
}

try {
  const store = LibraryStore.open(library);
  const target = pickTarget(store);
  store.close();
  const cache = await startPostgres();
  const replicas = [await startReplica(0, cache), await startReplica(1, cache)];
  const proxy = await startHaproxy(replicas);
  const targets = { 'one replica, direct': replicas[0].url, 'two replicas, HAProxy': proxy };
  // The search's index is loaded, and the target's cached entry written, on both replicas before anything is timed.
  for (const url of [replicas[0].url, replicas[1].url]) await load(url, target, false, 0);
  const rows = [];
  let run = 0;
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const fresh of [false, true]) {
      for (const [name, url] of Object.entries(targets)) {
        const result = await load(url, target, fresh, ++run);
        const sorted = Float64Array.from(result.latencies_ms).sort();
        const at = (q) => Math.round((sorted[Math.floor(q * sorted.length)] ?? 0) * 10) / 10;
        const row = {
          round,
          target: name,
          workload: fresh ? 'turns_fresh' : 'turns',
          actions_per_s: Math.round((result.calls + result.searches) / result.window_s),
          turn_p50_ms: at(0.5),
          turn_p99_ms: at(0.99),
          failures: result.failures,
          load_average: execFileSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).split(' ').slice(0, 3).join(' '),
        };
        log(JSON.stringify(row));
        rows.push(row);
      }
    }
  }
  process.stdout.write(
    `${JSON.stringify({ episodes, duration_s: Number(values.duration), tool: target.tool.id, rows })}\n`,
  );
} finally {
  for (const stop of stops.reverse()) await stop().catch((error) => log(String(error)));
  rmSync(work, { recursive: true, force: true });
}
