import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import picomatch from 'picomatch';
import { packageRoot } from '../../src/paths.js';
import { petstoreTools, tempDir, writeFixtureLibrary } from '../fixtures/tools.js';

/**
 * The Dockerfile against the tree, without a Docker daemon (none runs on the project's machines, and the base image
 * could not be pulled here): what `docker build` would copy must exist and not be excluded by .dockerignore, what
 * the image's `npm ci` builds must lie under what was copied, every `toolenv` command its RUN steps call must exist,
 * and its CMD must serve from the files the image holds.
 */
interface Instruction {
  op: string;
  args: string;
  line: number;
}

function instructions(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let logical = lines[i]!;
    while (logical.endsWith('\\') && i + 1 < lines.length) logical = `${logical.slice(0, -1)} ${lines[++i]!.trim()}`;
    const match = /^\s*([A-Za-z]+)\s+(.*)$/.exec(logical);
    if (match && !logical.trimStart().startsWith('#'))
      out.push({ op: match[1]!.toUpperCase(), args: match[2]!.trim(), line: start + 1 });
  }
  return out;
}

const dockerfile = instructions(readFileSync(join(packageRoot, 'Dockerfile'), 'utf8'));
const ignored = picomatch(
  readFileSync(join(packageRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#')),
  { dot: true },
);

/** The local sources of each COPY (not `--from` a stage), with the destination they go to under WORKDIR. */
function copies(): { sources: string[]; destination: string; line: number }[] {
  return dockerfile
    .filter((i) => i.op === 'COPY' && !/--from=/.test(i.args))
    .map((i) => {
      const words = i.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      return { sources: words.slice(0, -1), destination: words.at(-1)!, line: i.line };
    });
}

describe('Dockerfile', () => {
  it('copies only files the tree has and .dockerignore lets through', () => {
    const all = copies();
    assert.ok(all.length > 0);
    for (const { sources, line } of all) {
      for (const source of sources) {
        assert.ok(
          existsSync(join(packageRoot, source)),
          `Dockerfile line ${line}: COPY ${source}, which the tree lacks`,
        );
        assert.ok(!ignored(source), `Dockerfile line ${line}: COPY ${source}, which .dockerignore leaves out`);
      }
    }
  });

  it("copies everything the image's build compiles", () => {
    const copied = copies().flatMap((c) => c.sources.map((s) => s.replace(/\/$/, '')));
    for (const config of ['tsconfig.json', 'tsconfig.studio.json']) {
      const { include } = JSON.parse(readFileSync(join(packageRoot, config), 'utf8')) as { include: string[] };
      for (const pattern of include) {
        const root = pattern.split('/')[0]!;
        assert.ok(copied.includes(root), `${config} compiles ${pattern}, but the Dockerfile does not copy ${root}`);
      }
    }
  });

  it('calls only toolenv commands that exist', () => {
    const commands = dockerfile
      .filter((i) => i.op === 'RUN')
      .flatMap((i) => [...i.args.matchAll(/node bin\/toolenv ((?:[a-z]+)(?: [a-z]+)?)/g)].map((m) => m[1]!));
    assert.ok(commands.length >= 3, `${commands.length} toolenv commands in RUN steps`);
    for (const command of commands) {
      const run = spawnSync(process.execPath, [join(packageRoot, 'bin', 'toolenv'), ...command.split(' '), '--help'], {
        encoding: 'utf8',
      });
      assert.equal(run.status, 0, `Dockerfile RUN: toolenv ${command}: ${run.stderr}`);
      assert.doesNotMatch(run.stdout, /^Usage: toolenv \[options\] \[command\]/, `toolenv ${command} is not a command`);
    }
  });

  it("serves with the image's CMD from the files the image holds", async () => {
    const cmd = dockerfile.filter((i) => i.op === 'CMD').at(-1);
    assert.ok(cmd, 'the Dockerfile has a CMD');
    const argv = JSON.parse(cmd.args) as string[];
    assert.equal(argv[0], 'node');
    // The image: its COPY sources under WORKDIR, npm ci's output (node_modules, and dist from the same sources),
    // then what its RUN step removes.
    const app = tempDir('toolenv-docker-');
    for (const { sources, destination } of copies()) {
      for (const source of sources) {
        const target =
          sources.length > 1 || destination.endsWith('/')
            ? join(app, destination, basename(source))
            : join(app, destination);
        cpSync(join(packageRoot, source), target, { recursive: true });
      }
    }
    symlinkSync(join(packageRoot, 'node_modules'), join(app, 'node_modules'));
    cpSync(join(packageRoot, 'dist'), join(app, 'dist'), {
      recursive: true,
      filter: (src) => !src.includes(`${join('dist', 'test')}`),
    });
    rmSync(join(app, 'test'), { recursive: true, force: true });

    // The default library stands in for the one the image builds; the server moves to a free port on the loopback.
    const env = {
      ...process.env,
      TOOLENV_LIBRARY: writeFixtureLibrary(),
      TOOLENV_CACHE: join(tempDir(), 'responses.db'),
    };
    const server = spawn(process.execPath, [...argv.slice(1), '--host', '127.0.0.1', '--port', '0', '--json'], {
      cwd: app,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    server.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({ input: server.stdout }).once('line', (line) =>
          resolve((JSON.parse(line) as { url: string }).url),
        );
        server.once('exit', (code) => reject(new Error(`the image's CMD exited with ${code}: ${stderr}`)));
      });
      const health = await fetch(`${url}/healthz`);
      assert.equal(health.status, 200);
      assert.equal(((await health.json()) as { tools: number }).tools, petstoreTools.length);
      const studio = await fetch(`${url}/studio`);
      assert.equal(studio.status, 200, 'the studio is served from the image');
    } finally {
      server.kill();
    }
  });
});
