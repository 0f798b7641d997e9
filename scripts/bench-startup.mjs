#!/usr/bin/env node
// Server starts of two checkouts, interleaved (A, B, A, B, …): spawn of `serve --library LIBRARY` (a fresh cache file
// each) → its first answered GET /healthz, wall time, and the process's CPU time by then (all threads, from /proc:
// what a loaded machine's wall time hides). Prints one JSON object: each start, medians, and B / A per pair.
// Usage: node scripts/bench-startup.mjs CHECKOUT_A CHECKOUT_B LIBRARY [STARTS=9]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../dist/src/server/free-port.js';

const [a, b, library, starts = '9'] = process.argv.slice(2);
if (!library) {
  process.stderr.write('usage: node scripts/bench-startup.mjs CHECKOUT_A CHECKOUT_B LIBRARY [STARTS]\n');
  process.exit(2);
}

/** One start: wall and CPU milliseconds to the first answered /healthz. */
async function start(root) {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'toolenv-start-'));
  const began = performance.now();
  const child = spawn(
    process.execPath,
    [join(root, 'bin/toolenv'), 'serve', '--port', String(port), '--library', library, '--cache', join(dir, 'c.db')],
    { stdio: 'ignore' },
  );
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    if (child.exitCode !== null) throw new Error(`${root}: serve exited with ${child.exitCode}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  const wall = Math.round(performance.now() - began);
  // utime and stime, clock ticks of 10 ms.
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  const cpu = (Number(fields[11]) + Number(fields[12])) * 10;
  child.kill();
  await new Promise((resolve) => child.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
  return { wall, cpu };
}

const runs = { [a]: [], [b]: [] };
const loads = [];
for (let i = 0; i < Number(starts); i++) {
  for (const root of [a, b]) runs[root].push(await start(root));
  loads.push(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
}
const median = (values) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
const summary = (key) => ({
  [a]: median(runs[a].map((r) => r[key])),
  [b]: median(runs[b].map((r) => r[key])),
  pair_ratio: median(runs[b].map((r, i) => r[key] / runs[a][i][key])),
});
process.stdout.write(`${JSON.stringify({ runs, wall_median: summary('wall'), cpu_median: summary('cpu'), loads })}\n`);
