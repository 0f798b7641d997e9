import type { AgentRun, AgentTask, ChatMessage } from '../agent/types.js';
import { OpenAIGenerator } from '../simulator/openai.js';
import type { Verdict } from './score.js';

/** A judge of task completion: an OpenAI-compatible model asked whether the agent's answer solves the query. */
export interface Judge {
  /** `openai:MODEL@URL`. */
  readonly name: string;
  judge(task: AgentTask, run: AgentRun, signal?: AbortSignal): Promise<Verdict>;
}

/**
 * The judge's instructions, after the completeness check StableToolBench's pass rate uses: solved only when the
 * answer addresses every part of the request with concrete content that the tool results support.
 */
export const JUDGE_PROMPT = `You judge whether an AI agent solved a user's request with the tools it called.
You get the request, the agent's final answer, and the tool calls it made with the start of each response.
Answer "solved" only if the final answer addresses every part of the request with concrete information, and that information is consistent with the tool responses (or the request needed no tool).
Answer "unsolved" if any part is missing, the answer gives up, apologises instead of answering, asks the user to do the work, or states things the tool responses contradict.
Reply with one JSON object: {"verdict": "solved" | "unsolved", "reason": "<one sentence>"}.`;

const VERDICT_SCHEMA = {
  type: 'object',
  properties: { verdict: { type: 'string', enum: ['solved', 'unsolved'] }, reason: { type: 'string' } },
  required: ['verdict', 'reason'],
};

/** Tool calls shown to the judge, and how much of each response: enough to check facts, bounded for long runs. */
const MAX_CALLS_SHOWN = 20;
const MAX_BODY_CHARS = 400;

export interface JudgeSpec {
  /** Undefined: the first model the server lists. */
  model?: string;
  url: string;
}

/** `openai:MODEL@URL` (MODEL may be empty: the server's first model). */
export function parseJudgeSpec(spec: string): JudgeSpec {
  const match = /^openai:([^@]*)@(https?:\/\/\S+)$/.exec(spec);
  if (!match) throw new Error(`expected openai:MODEL@URL (an OpenAI-compatible chat endpoint), got ${JSON.stringify(spec)}`);
  return match[1] ? { model: match[1], url: match[2]! } : { url: match[2]! };
}

/** The messages the judge gets for one run. */
export function judgeMessages(task: AgentTask, run: AgentRun): ChatMessage[] {
  const calls: string[] = [];
  if (run.trajectory) {
    for (const step of run.trajectory.steps) {
      for (const observation of step.observations) {
        if (observation.type !== 'tool_call' || calls.length >= MAX_CALLS_SHOWN) continue;
        const body = JSON.stringify(observation.body) ?? '';
        calls.push(`- ${observation.tool} → ${observation.status}: ${body.length > MAX_BODY_CHARS ? `${body.slice(0, MAX_BODY_CHARS)}…` : body}`);
      }
    }
  } else {
    // Without the server's record the responses are unknown: the judge sees which calls were made and how they ended.
    for (const call of run.calls.slice(0, MAX_CALLS_SHOWN)) calls.push(`- ${call.tool} → ${call.status}${call.error ? ` (${call.error})` : ''}`);
  }
  const user = [
    `Request:\n${task.query}`,
    `Final answer:\n${run.answer ?? '(none)'}`,
    `Tool calls (${run.calls.length}${run.calls.length > calls.length ? `, first ${calls.length} shown` : ''}):\n${calls.join('\n') || '(none)'}`,
  ].join('\n\n');
  return [
    { role: 'system', content: JUDGE_PROMPT },
    { role: 'user', content: user },
  ];
}

/** The verdict in the judge's reply: its JSON object, else the word it used. Anything else is unsolved. */
export function readVerdict(text: string): Verdict {
  try {
    const json = JSON.parse(text.trim().replace(/^```(?:json)?\s*|\s*```$/g, '')) as { verdict?: unknown; reason?: unknown };
    if (json.verdict === 'solved' || json.verdict === 'unsolved') return { solved: json.verdict === 'solved', reason: typeof json.reason === 'string' ? json.reason : '' };
  } catch {
    // Not JSON: read the words below.
  }
  const word = /\b(unsolved|solved)\b/i.exec(text)?.[1]?.toLowerCase();
  return { solved: word === 'solved', reason: word ? text.trim().slice(0, 300) : `unreadable verdict: ${text.trim().slice(0, 200)}` };
}

/** A judge on an OpenAI-compatible server (vLLM, llama-server, a provider), asked for schema-guided JSON at temperature 0. */
export function createJudge(spec: string, apiKey?: string): Judge {
  const { model, url } = parseJudgeSpec(spec);
  const generator = new OpenAIGenerator({ url, model, apiKey, concurrency: 8 });
  return {
    name: spec,
    async judge(task, run, signal) {
      const generation = await generator.generate({
        messages: judgeMessages(task, run),
        schema: VERDICT_SCHEMA,
        maxTokens: 256,
        temperature: 0,
        seed: 0,
        signal: signal ?? new AbortController().signal,
      });
      return readVerdict(generation.text);
    },
  };
}
