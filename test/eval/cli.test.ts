/** `toolenv eval` as a user runs it: the real bin/toolenv, spawned against a real server. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { tempDir } from '../fixtures/tools.js';
import { startTestServer } from '../server/helpers.js';
import { writeEvalLibrary, writeText, writeToolbenchQueries } from './fixture.js';
import { freePort } from '../../src/server/free-port.js';

const BIN = join(packageRoot, 'bin', 'toolenv');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Spawned without blocking: the server under test answers from this process. */
function toolenv(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, TOOLENV_DEBUG: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

function summary(run: Run): Record<string, unknown> {
  const lines = run.stdout.trimEnd().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
}

function assertUsageError(run: Run, message: RegExp): void {
  assert.equal(run.status, 2, `exit code; stderr: ${run.stderr}`);
  assert.equal(run.stdout, '');
  const lines = run.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, run.stderr);
  assert.match(lines[0]!, /^toolenv: /);
  assert.match(lines[0]!, message);
}

test('toolenv eval --json: the last stdout line is the summary; one object per agent when comparing', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary() });
  t.after(() => server.close());
  const tasks = writeToolbenchQueries();
  const out = join(tempDir(), 'report');

  const one = await toolenv([
    'eval',
    '--server',
    server.url,
    '--tasks',
    tasks,
    '--agent',
    'paraact',
    '--seed',
    '3',
    '--error-rate',
    '0',
    '--out',
    out,
    '--json',
  ]);
  assert.equal(one.status, 0, one.stderr);
  const line = summary(one);
  assert.equal(line.policy, 'heuristic');
  assert.equal(line.tasks, 5);
  assert.equal(line.runs, 1);
  assert.equal(line.unmappable, 1);
  assert.equal(line.out, out);
  assert.equal(line.unscored, 0);
  const [flat] = line.agents as Record<string, unknown>[];
  assert.equal(flat!.agent, 'paraact');
  for (const key of [
    'success',
    'path',
    'path_mapped',
    'coverage',
    'coverage_mapped',
    'turns',
    'actions_per_turn',
    'tokens',
    'wall_ms',
  ])
    assert.equal(typeof flat![key], 'number', key);
  assert.ok(
    (flat!.path as number) < (flat!.path_mapped as number),
    'task 105 misses a reference: a miss in path, not in path_mapped',
  );
  assert.ok((flat!.actions_per_turn as number) > 1);
  assert.match(one.stderr, /not run: task 106 \(line \d+\): no reference tool is in the library/);
  assert.ok(existsSync(join(out, 'report.md')) && existsSync(join(out, 'trajectories', 'paraact', '101.run1.json')));

  const both = await toolenv([
    'eval',
    '--server',
    server.url,
    '--tasks',
    tasks,
    '--agent',
    'paraact,react,chat',
    '--runs',
    '2',
    '--concurrency',
    '8',
    '--json',
  ]);
  assert.equal(both.status, 0, both.stderr);
  const compared = summary(both);
  const agents = compared.agents as Record<string, unknown>[];
  assert.deepEqual(
    agents.map((a) => a.agent),
    ['paraact', 'react', 'chat'],
  );
  assert.equal(agents[2]!.success, agents[0]!.success, 'the heuristic solves the same tasks calling tools natively');
  assert.equal(agents[2]!.r_step, null, 'R_step is not defined for chat');
  assert.equal(compared.runs, 2);
  assert.ok((agents[0]!.turns as number) < (agents[1]!.turns as number));
  assert.equal(typeof (agents[0]!.std as Record<string, unknown>).success, 'number');

  const parserAlone = await toolenv(['eval', '--server', server.url, '--tasks', tasks, '--tool-parser', 'hermes']);
  assert.equal(parserAlone.status, 2);
  assert.match(parserAlone.stderr, /--tool-parser reads the chat agent's raw text: it needs --agent chat/);
  const gguf = await toolenv([
    'eval',
    '--server',
    server.url,
    '--tasks',
    tasks,
    '--agent',
    'chat',
    '--policy',
    'gguf:model.gguf',
  ]);
  assert.equal(gguf.status, 2);
  assert.match(gguf.stderr, /--agent chat needs a policy that calls tools natively/);

  const text = await toolenv(['eval', '--server', server.url, '--tasks', tasks, '--agent', 'react']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(
    text.stdout,
    /^react {5}success [\d.]+% {2}path [\d.]+% \(mapped [\d.]+%\) {2}coverage [\d.]+% \(mapped [\d.]+%\) {2}turns [\d.]+ {2}actions\/turn [\d.]+/m,
  );

  // Tasks nothing can score are said so on stderr and counted in the summary.
  const own = writeText(
    'own.jsonl',
    [
      { id: 'pet', query: 'Find the pet with id 7.', reference_tools: ['petstore_test__getPetById'] },
      { id: 'free', query: 'What is the weather in London?' },
    ]
      .map((l) => JSON.stringify(l))
      .join('\n'),
  );
  const mixed = await toolenv(['eval', '--server', server.url, '--tasks', own, '--agent', 'react', '--json']);
  assert.equal(mixed.status, 0, mixed.stderr);
  assert.match(
    mixed.stderr,
    /toolenv: unscored: 1 task\(s\) with no expected answer, no reference tool and no --judge, left out of success: free\n/,
  );
  assert.equal(summary(mixed).unscored, 1);
});

test('without --server, eval serves --library in-process', async () => {
  const run = await toolenv([
    'eval',
    '--library',
    await writeEvalLibrary(),
    '--cache',
    join(tempDir(), 'c.db'),
    '--tasks',
    writeToolbenchQueries(),
    '--agent',
    'react',
    '--json',
  ]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stderr, /serving .* in-process at http:\/\/127\.0\.0\.1:\d+/);
  assert.equal(summary(run).tasks, 5);
});

test('bad flags and bad inputs are one-line usage errors with exit code 2', async (t) => {
  const server = await startTestServer({ library: await writeEvalLibrary() });
  t.after(() => server.close());
  const tasks = writeToolbenchQueries();
  const base = ['eval', '--server', server.url, '--tasks', tasks];
  const bad = writeText('bad.jsonl', `${JSON.stringify({ id: 'a', query: 'q' })}\n{"id": "b"}\n`);
  const closed = await freePort(); // released at once: nothing listens there
  const cases: [string[], RegExp][] = [
    [['eval', '--server', server.url], /--tasks FILE is required/],
    [[...base, '--agent', 'paraact,dfs'], /--agent must be one or more of paraact, react, parallel/],
    [[...base, '--runs', '0'], /--runs must be an integer between 1 and 100/],
    [[...base, '--concurrency', 'many'], /--concurrency must be an integer/],
    [[...base, '--error-rate', '2'], /--error-rate must be a number between 0 and 1/],
    [[...base, '--format', 'xml'], /--format must be one of own, toolbench, bfcl, apibank, mcp/],
    [[...base, '--policy', 'gpt4'], /--policy must be heuristic, openai:MODEL@URL, gguf:FILE or hf:DIR/],
    [[...base, '--policy', 'gguf:/nonexistent/model.gguf'], /--policy: .*no file/],
    [[...base, '--judge', 'gpt-4.1'], /--judge: expected openai:MODEL@URL/],
    [[...base, '--library', '/tmp'], /--library is for the in-process server/],
    [
      ['eval', '--server', `http://127.0.0.1:${closed}`, '--tasks', tasks],
      new RegExp(
        `cannot reach a ToolEnv server at http://127\\.0\\.0\\.1:${closed} \\(connect ECONNREFUSED ` +
          `127\\.0\\.0\\.1:${closed}\\)$`,
      ),
    ],
    [
      ['eval', '--server', 'http://127.0.0.1:1', '--tasks', tasks],
      /cannot reach a ToolEnv server at http:\/\/127\.0\.0\.1:1 \(bad port\)$/,
    ],
    [
      [...base, '--policy', 'openai:m@ftp://x'],
      /--policy: policy "openai:m@ftp:\/\/x": the server URL ftp:\/\/x must be http or https$/,
    ],
    [['eval', '--library', join(tempDir(), 'none'), '--tasks', tasks], /no library at/],
    [['eval', '--server', server.url, '--tasks', bad], /bad\.jsonl:2: task \/query is required/],
  ];
  // Spawned together: each is a process start, and they do not depend on each other.
  const runs = await Promise.all(cases.map(([args]) => toolenv(args)));
  cases.forEach(([, message], i) => assertUsageError(runs[i]!, message));
  const help = await toolenv(['eval', '--help']);
  assert.equal(help.status, 0);
  assert.match(help.stdout, /--agent <names>/);
});
