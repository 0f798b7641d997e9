/**
 * The layout's one rule (docs/ARCHITECTURE.md, "Floors"): a room (a folder under src/) imports only rooms below it,
 * so no chain of imports across rooms comes back to where it started.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { packageRoot } from '../../src/paths.js';

const SRC = join(packageRoot, 'src');
// The browser side is compiled on its own (tsconfig.studio.json) and imports nothing of the server's.
const SKIP = join(SRC, 'studio', 'web');
const SPECIFIER = /(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === SKIP ? [] : sources(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** A file's room: its first folder under src/, or `src` for the files at the top (paths.ts, python.ts). */
const roomOf = (file: string) => {
  const parts = relative(SRC, file).split(sep);
  return parts.length > 1 ? parts[0]! : 'src';
};

function roomGraph(): Map<string, Map<string, string>> {
  const arrows = new Map<string, Map<string, string>>();
  for (const file of sources(SRC)) {
    const from = roomOf(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      const to = roomOf(resolve(dirname(file), specifier!));
      if (to === from) continue;
      if (!arrows.has(from)) arrows.set(from, new Map());
      // One example import per arrow, to name in a failure.
      if (!arrows.get(from)!.has(to)) arrows.get(from)!.set(to, `${relative(SRC, file)} → ${specifier}`);
    }
  }
  return arrows;
}

/**
 * A chain of rooms that comes back to its start, with the import behind each arrow; none when the rooms are layered.
 */
function findCircle(arrows: Map<string, Map<string, string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (room: string): string[] | undefined => {
    state.set(room, 'open');
    path.push(room);
    for (const next of arrows.get(room)?.keys() ?? []) {
      if (state.get(next) === 'open') {
        const circle = [...path.slice(path.indexOf(next)), next];
        return circle.slice(1).map((to, i) => `${circle[i]} → ${to} (${arrows.get(circle[i]!)!.get(to)})`);
      }
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    path.pop();
    state.set(room, 'done');
    return undefined;
  };
  for (const room of arrows.keys()) {
    if (state.has(room)) continue;
    const found = visit(room);
    if (found) return found;
  }
  return undefined;
}

test('no room imports its way back to itself', () => {
  const arrows = roomGraph();
  assert.ok(arrows.size > 10, 'the source tree was read');
  const circle = findCircle(arrows);
  assert.equal(circle, undefined, `rooms in a circle:\n${circle?.join('\n')}`);
});

test('the protocol sits below the episodes, the rewards and the client, and imports none of them', () => {
  const arrows = roomGraph();
  for (const above of ['episodes', 'rl', 'agent', 'server'])
    assert.equal(arrows.get('protocol')?.has(above) ?? false, false, `protocol → ${above}`);
  for (const below of ['episodes', 'rl', 'agent']) assert.ok(arrows.get(below)?.has('protocol'), `${below} → protocol`);
  assert.equal(arrows.get('rl')?.has('agent') ?? false, false, 'rewards take nothing from the client');
});

test('the learner reads episodes through the agent client and eval, the server by HTTP only', () => {
  const arrows = roomGraph();
  for (const below of ['agent', 'eval']) assert.ok(arrows.get('learner')?.has(below), `learner → ${below}`);
  for (const above of ['bench', 'studio', 'train', 'cli', 'server']) {
    assert.equal(arrows.get('learner')?.has(above) ?? false, false, `learner → ${above}`);
  }
  for (const user of ['bench', 'studio']) assert.ok(arrows.get(user)?.has('learner'), `${user} → learner`);
});

test('below the server and its faces no file imports a web framework', () => {
  const faces = ['server', 'mcp', 'studio', 'http', 'cli', 'bench'];
  const framework = /(?:from|import)\s*\(?\s*'(?:hono|@hono\/[^']+)(?:\/[^']*)?'/;
  const offenders = sources(SRC).filter(
    (file) => !faces.includes(roomOf(file)) && framework.test(readFileSync(file, 'utf8')),
  );
  assert.deepEqual(
    offenders.map((file) => relative(SRC, file)),
    [],
  );
});

test('nothing in the server imports from a route but the app that mounts them', () => {
  const routes = join(SRC, 'server', 'routes');
  const offenders = sources(join(SRC, 'server'))
    .filter((file) => dirname(file) !== routes && file !== join(SRC, 'server', 'app.ts'))
    .flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(SPECIFIER)]
        .filter(([, specifier]) => dirname(resolve(dirname(file), specifier!)) === routes)
        .map(([, specifier]) => `${relative(SRC, file)} → ${specifier}`),
    );
  assert.deepEqual(offenders, []);
});
