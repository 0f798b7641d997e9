import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import { missingPython, pythonExecutable } from '../../python.js';
import { STOP_SEQUENCES } from '../../protocol/prompts.js';
import type { ChatMessage, Policy, PolicyContext } from '../types.js';

/**
 * `hf:DIR`: a Hugging Face checkpoint (any `toolenv train` checkpoint) generating with transformers in ToolEnv's
 * Python package (`python -m toolenv.generate`), one worker process for the policy. Concurrent runs' turns reach it
 * together and are generated as one batch; a run whose conversation outgrows `maxSeqLen` fails, as its rollout stops
 * in training.
 */

export interface HfPolicyOptions {
  dir: string;
  /** Tokens of a whole conversation, prompt and message (training's `--max-seq-len`); default 4096. */
  maxSeqLen?: number;
  /** Tokens of one message (training's `--max-turn-tokens`); default 512. */
  maxTokens?: number;
  /** 0 (the default) decodes greedily. */
  temperature?: number;
  /** Conversations generated at once; default 16. */
  batch?: number;
  seed?: number;
  log?: (line: string) => void;
}

interface Reply {
  id: number;
  text?: string;
  prompt_tokens?: number;
  completion_tokens?: number;
  error?: string;
}

export function hfPolicy(options: HfPolicyOptions): Policy {
  const python = pythonExecutable();
  if (python === undefined) throw new Error(missingPython());
  let worker: Promise<ChildProcessWithoutNullStreams> | undefined;
  let next = 0;
  const waiting = new Map<number, (reply: Reply) => void>();
  let failure: string | undefined;
  const fail = (why: string) => {
    failure ??= why;
    for (const [id, done] of waiting) done({ id, error: failure });
    waiting.clear();
  };
  const start = () =>
    new Promise<ChildProcessWithoutNullStreams>((ready, refuse) => {
      const args = [
        '-m',
        'toolenv.generate',
        '--model',
        options.dir,
        '--max-seq-len',
        String(options.maxSeqLen ?? 4096),
        '--batch',
        String(options.batch ?? 16),
      ];
      if (options.temperature !== undefined) args.push('--temperature', String(options.temperature));
      if (options.seed !== undefined) args.push('--seed', String(options.seed));
      const child = spawn(python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr = (stderr + chunk.toString()).slice(-4000);
      });
      let started = false;
      createInterface({ input: child.stdout }).on('line', (line) => {
        const message = JSON.parse(line) as Reply & { ready?: boolean; parameters?: number };
        if (message.ready) {
          started = true;
          options.log?.(`toolenv: policy hf:${options.dir} loaded (${message.parameters} parameters)`);
          return ready(child);
        }
        const done = waiting.get(message.id);
        waiting.delete(message.id);
        done?.(message);
      });
      child.on('error', (error) => refuse(new Error(`cannot run ${python}: ${error.message}`)));
      child.on('close', (code) => {
        const why =
          `the hf policy's worker exited with ${code ?? 'a signal'}: ` +
          `${stderr.trim().split('\n').slice(-3).join(' ')}`;
        if (!started) refuse(new Error(why));
        fail(why);
      });
    });
  return {
    name: `hf:${options.dir}`,
    // The chat agent: the model's chat template renders the functions, and its raw text goes to the episode's tool
    // parser.
    nativeTools: true,
    async next(messages: readonly ChatMessage[], context: PolicyContext) {
      const child = await (worker ??= start());
      if (failure) throw new Error(failure);
      const id = next++;
      const reply = await new Promise<Reply>((done) => {
        waiting.set(id, done);
        const chat = context.agent === 'chat';
        const request = {
          id,
          messages,
          max_tokens: options.maxTokens ?? 512,
          stop: chat ? [] : STOP_SEQUENCES,
          seed: context.seed,
          ...(chat ? { tools: context.functions ?? [] } : {}),
        };
        child.stdin.write(`${JSON.stringify(request)}\n`);
      });
      if (reply.error !== undefined) throw new Error(reply.error);
      return {
        text: reply.text ?? '',
        usage: { prompt: reply.prompt_tokens ?? 0, completion: reply.completion_tokens ?? 0 },
      };
    },
    async close() {
      if (worker === undefined) return;
      const child = await worker.catch(() => undefined);
      if (child === undefined || child.exitCode !== null) return;
      const closed = new Promise<void>((done) => child.once('close', () => done()));
      child.stdin.end();
      await closed;
    },
  };
}
