import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';

/**
 * The examples of the README and of the docs/ pages, run as written against `toolenv serve` on the default library
 * (shell, TypeScript, and Python on the project's .venv), in page order, so that one may use what another wrote:
 * every code block after a `<!-- run by test/full/readme.test.ts … -->` line. Only the address changes (the server
 * takes a free port, not 8080). A block passes when it exits 0 and nothing it printed is an HTTP error: no problem+json
 * body, no 4xx/5xx status line.
 */
const LIBRARY = process.env.TOOLENV_FULL_LIBRARY;
const MARKER = '<!-- run by test/full/readme.test.ts';
const BIN = join(packageRoot, 'bin', 'toolenv');

interface Block {
  page: string;
  line: number;
  lang: string;
  code: string;
}

/** The marked blocks of README.md and of the reference pages in docs/, each named by its file and line. */
function markedBlocks(): Block[] {
  const pages = [
    'README.md',
    ...readdirSync(join(packageRoot, 'docs'))
      .filter((n) => n.endsWith('.md'))
      .sort()
      .map((n) => `docs/${n}`),
  ];
  const blocks: Block[] = [];
  for (const page of pages) {
    const lines = readFileSync(join(packageRoot, page), 'utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!lines[i]!.startsWith(MARKER)) continue;
      const fence = /^```(\w+)$/.exec(lines[i + 1] ?? '');
      assert.ok(fence, `${page} line ${i + 2}: a marked example must be a fenced block`);
      const end = lines.indexOf('```', i + 2);
      blocks.push({ page, line: i + 2, lang: fence[1]!, code: lines.slice(i + 2, end).join('\n') });
    }
  }
  return blocks;
}

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, TOOLENV_DEBUG: '' } });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** Problem bodies and error status lines in what a block printed. */
function httpErrors(output: string): string[] {
  const errors = [...output.matchAll(/^HTTP\/1\.1 ([45]\d\d).*$/gm)].map((m) => m[0]);
  for (const line of output.split('\n')) {
    const text = line.trim();
    if (!text.startsWith('{')) continue;
    try {
      errors.push(...problems(JSON.parse(text)).map((p) => JSON.stringify(p).slice(0, 300)));
    } catch {
      // Not one JSON value per line (headers, pretty-printed text): the status lines above tell.
    }
  }
  return errors;
}

/** Problem bodies anywhere in a value: an episode step's observations carry the calls' answers inside. */
function problems(value: unknown): unknown[] {
  if (Array.isArray(value)) return value.flatMap(problems);
  if (typeof value !== 'object' || value === null) return [];
  const record = value as Record<string, unknown>;
  if (
    typeof record.type === 'string' &&
    typeof record.title === 'string' &&
    typeof record.status === 'number' &&
    record.status >= 400
  )
    return [record];
  return Object.values(record).flatMap(problems);
}

describe('README and docs examples on the default library', {
  skip: LIBRARY === undefined && 'TOOLENV_FULL_LIBRARY is not set',
}, () => {
  let server: ChildProcess;
  let url: string;
  before(async () => {
    server = spawn(
      process.execPath,
      [
        BIN,
        'serve',
        '--library',
        LIBRARY!,
        '--cache',
        join(tempDir('toolenv-readme-'), 'responses.db'),
        '--port',
        '0',
        '--json',
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const lines = createInterface({ input: server.stdout! });
    url = await new Promise<string>((resolve, reject) => {
      lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url));
      server.once('exit', (code) => reject(new Error(`toolenv serve exited with ${code}`)));
    });
  });
  after(() => {
    server.kill();
  });

  const blocks = markedBlocks();
  it('marks the examples it runs', () => assert.ok(blocks.length >= 5, `${blocks.length} marked blocks`));

  for (const block of blocks) {
    it(`${block.page} line ${block.line} (${block.lang})`, async () => {
      const host = new URL(url).host;
      const code = block.code.replaceAll('http://127.0.0.1:8080', url).replaceAll('localhost:8080', host);
      const dir = tempDir('toolenv-readme-block-');
      let result: Awaited<ReturnType<typeof run>>;
      if (block.lang === 'sh') {
        const file = join(dir, 'example.sh');
        writeFileSync(file, `set -euo pipefail\n${code}\n`);
        result = await run('bash', [file], packageRoot);
      } else if (block.lang === 'python') {
        // The trainer side's examples run on the project's .venv with the engines (`npm run setup:python`).
        const file = join(dir, 'example.py');
        writeFileSync(file, code);
        result = await run(join(packageRoot, '.venv', 'bin', 'python'), [file], packageRoot);
      } else {
        assert.equal(block.lang, 'ts');
        // Run from the package's own directory, so that `toolenv/…` resolves through package.json's exports.
        const file = join(packageRoot, `.readme-example-${process.pid}.mjs`);
        writeFileSync(
          file,
          `${code}\nconsole.log(JSON.stringify({ finish: run.finish, ` +
            'turns: run.turns, answer: run.answer ?? null }));\n',
        );
        try {
          result = await run(process.execPath, [file], packageRoot);
        } finally {
          rmSync(file, { force: true });
        }
        if (result.code === 0)
          assert.equal(
            (JSON.parse(result.out.trim().split('\n').pop()!) as { finish: string }).finish,
            'answer',
            result.out,
          );
      }
      assert.equal(result.code, 0, `exit ${result.code}\nstdout:\n${result.out}\nstderr:\n${result.err}`);
      assert.deepEqual(httpErrors(result.out), [], result.out);
    });
  }
});
