import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface Running {
  child: ChildProcess;
  /** Milliseconds from spawn until the process said it was ready. */
  readyMs: number;
  /** The line (or regex match) that said so. */
  ready: string;
  stop(): Promise<void>;
}

/** Spawns a process and resolves once a line of its stdout or stderr matches `ready`; rejects on exit or timeout. */
export function startProcess(
  command: string,
  args: string[],
  ready: RegExp,
  { timeoutMs = 120_000, env = process.env } = {},
): Promise<Running> {
  const started = performance.now();
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        fail(new Error(`${command} ${args.join(' ')} was not ready after ${timeoutMs} ms:\n${output.slice(-2000)}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = ready.exec(output);
      if (!match) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.stderr!.off('data', onData);
      child.stdout!.resume();
      child.stderr!.resume();
      child.off('exit', onExit);
      resolve({ child, readyMs: performance.now() - started, ready: match[0], stop: () => stop(child) });
    };
    const onExit = (code: number | null) =>
      fail(new Error(`${command} ${args.join(' ')} exited (${code}) before it was ready:\n${output.slice(-2000)}`));
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', onExit);
  });
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Resident set size of a process, in MiB, from /proc (Linux). */
export function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Math.round(Number(match[1]) / 1024);
}

/** Resident set size of a process and all its descendants (a cluster's primary and workers), in MiB. */
export function treeRssMb(pid: number): number {
  return descendants(pid).reduce((sum, child) => sum + rssMb(child), rssMb(pid));
}

function descendants(pid: number): number[] {
  return childPids(pid).flatMap((child) => [child, ...descendants(child)]);
}

/** The processes a process started (every one of its threads' children), from /proc (Linux). */
export function childPids(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
    readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
  );
}

/** Runs a process to its end and resolves with the last line of its stdout, parsed as JSON; rejects on failure. */
export function lastJsonLine<T>(command: string, args: string[], label: string): Promise<T> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => {
      const last = stdout.trim().split('\n').at(-1) ?? '';
      if (code === 0 && last.startsWith('{')) resolve(JSON.parse(last) as T);
      else reject(new Error(`${label} exited with ${code}: ${stderr.slice(-2000)}`));
    });
  });
}

/** CPU seconds (user and system, every thread) a process has used so far, from /proc (Linux). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
