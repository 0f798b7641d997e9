import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import { join } from 'node:path';
import { parseJudgeSpec } from '../rl/judge.js';
import type { TextGenerator } from '../simulator/model-responder.js';
import { LlamaEngine } from '../simulator/llama/engine.js';
import { OpenAIGenerator } from '../simulator/openai.js';
import type { TrainTask } from '../train/tasks.js';
import { qualityProblems } from './filter.js';
import { runColdStart, type LoopOptions } from './loop.js';
import { offlineRoles } from './roles-offline.js';
import { modelRoles, type ModelRoleOptions } from './roles-model.js';
import type { Roles } from './roles.js';
import type { ColdStartRun } from './types.js';
import { coldStartStats, type ColdStartStats } from './stats.js';

export const ROLE_NAMES: readonly (keyof Roles)[] = ['planner', 'executor', 'critic', 'answerer'];

/** Which model each role is: `offline`, `openai:MODEL@URL` or `gguf:FILE`. */
export type RoleSpecs = Record<keyof Roles, string>;

/**
 * `--roles`: one spec for every role (`offline`, `openai:MODEL@URL`, `gguf:FILE`), or `role=spec` pairs separated
 * by commas (`planner=openai:qwen@http://h:8000,critic=offline`); a role not named is offline.
 */
export function parseRoles(text: string): RoleSpecs {
  const specs: RoleSpecs = { planner: 'offline', executor: 'offline', critic: 'offline', answerer: 'offline' };
  if (!/^\w+=/.test(text)) {
    for (const role of ROLE_NAMES) specs[role] = checkSpec(text);
    return specs;
  }
  for (const pair of text.split(/,(?=\w+=)/)) {
    const eq = pair.indexOf('=');
    const role = pair.slice(0, eq);
    if (!(ROLE_NAMES as readonly string[]).includes(role))
      throw new Error(
        `unknown role ${JSON.stringify(role)}: the roles are ` +
          `${ROLE_NAMES.join(', ')} (the Retriever is the server's search)`,
      );
    specs[role as keyof Roles] = checkSpec(pair.slice(eq + 1));
  }
  return specs;
}

function checkSpec(spec: string): string {
  if (spec === 'offline' || /^gguf:.+/.test(spec)) return spec;
  if (spec.startsWith('openai:')) {
    parseJudgeSpec(spec);
    return spec;
  }
  throw new Error(`a role is offline, openai:MODEL@URL or gguf:FILE, got ${JSON.stringify(spec)}`);
}

export interface GenerateOptions extends Omit<LoopOptions, 'roles'> {
  tasks: readonly TrainTask[];
  roles: RoleSpecs;
  roleApiKey?: string;
  model: Omit<ModelRoleOptions, 'seed'>;
  concurrency: number;
  out: string;
  onProgress?: (done: number, total: number) => void;
}

export interface GenerateSummary {
  tasks: number;
  accepted: number;
  rejected: number;
  /** Rejections by the first reason's kind. */
  rejected_by: Record<string, number>;
  exits: Record<string, number>;
  stats: ColdStartStats;
  roles: RoleSpecs;
  files: { sft: string; rejected: string; stats: string };
  /** Runs that failed outright (a model unreachable, a server error), and the first such failure. */
  failed: number;
  first_failure?: string;
}

/**
 * Runs the multi-agent pipeline over every task (at most `concurrency` at once) and writes `sft.jsonl` (the accepted
 * conversations in the chat-messages form TRL and verl SFT trainers read, each with its task and episode seed),
 * `rejected.jsonl` (with the filter's reasons) and `stats.json` (Table 4).
 */
export async function generateColdStart(options: GenerateOptions): Promise<GenerateSummary> {
  mkdirSync(options.out, { recursive: true });
  const files = {
    sft: join(options.out, 'sft.jsonl'),
    rejected: join(options.out, 'rejected.jsonl'),
    stats: join(options.out, 'stats.json'),
  };
  const roles = buildRoles(options.roles, options.roleApiKey, { ...options.model, seed: options.seed ?? 0 });
  const sft = createWriteStream(files.sft);
  const rejected = createWriteStream(files.rejected);
  const accepted: ColdStartRun[] = [];
  const summary: GenerateSummary = {
    tasks: options.tasks.length,
    accepted: 0,
    rejected: 0,
    rejected_by: {},
    exits: {},
    stats: coldStartStats([]),
    roles: options.roles,
    files,
    failed: 0,
  };
  const queue = [...options.tasks];
  let done = 0;
  const worker = async (): Promise<void> => {
    for (let task = queue.shift(); task !== undefined; task = queue.shift()) {
      const run = await runColdStart(task, { ...options, roles });
      const problems = qualityProblems(run);
      // A chat file holds chat rows only: a run without one is rejected, never written as text.
      if (options.chatRows && (!run.chat || 'skipped' in run.chat))
        problems.push(
          'chat row: ' +
            `${run.chat && 'skipped' in run.chat ? run.chat.skipped : 'the run ended before its trajectory was read'}`,
        );
      if (run.error !== undefined) {
        summary.failed++;
        summary.first_failure ??= `${run.task_id}: ${run.error}`;
      }
      summary.exits[run.exit] = (summary.exits[run.exit] ?? 0) + 1;
      const record = {
        task_id: run.task_id,
        task,
        seed: run.seed,
        messages: run.messages,
        rounds: run.rounds,
        exit: run.exit,
      };
      if (problems.length === 0) {
        summary.accepted++;
        accepted.push(run);
        const row = options.chatRows && run.chat && !('skipped' in run.chat) ? run.chat : { messages: run.messages };
        sft.write(
          `${JSON.stringify({
            ...row,
            task_id: run.task_id,
            task,
            seed: run.seed,
            source: 'coldstart',
            exit: run.exit,
            rounds: run.rounds.length,
          })}\n`,
        );
      } else {
        summary.rejected++;
        const kind = problems[0]!.replace(/^round \d+: /, '').split(':')[0]!;
        summary.rejected_by[kind] = (summary.rejected_by[kind] ?? 0) + 1;
        rejected.write(`${JSON.stringify({ ...record, reasons: problems })}\n`);
      }
      options.onProgress?.(++done, options.tasks.length);
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(options.concurrency, options.tasks.length) }, worker));
  } finally {
    sft.end();
    rejected.end();
    await Promise.all([finished(sft), finished(rejected)]);
  }
  summary.stats = coldStartStats(accepted);
  writeFileSync(files.stats, `${JSON.stringify(summary.stats, null, 2)}\n`);
  return summary;
}

/** Each role from its spec; model roles built once per distinct spec, so roles naming the same model share it. */
function buildRoles(specs: RoleSpecs, apiKey: string | undefined, options: ModelRoleOptions): Roles {
  const offline = offlineRoles();
  if (ROLE_NAMES.every((role) => specs[role] === 'offline')) return offline;
  const generators = new Map<string, TextGenerator>();
  const generatorOf = (spec: string): TextGenerator => {
    let generator = generators.get(spec);
    if (!generator) {
      generator = spec.startsWith('openai:')
        ? openaiGenerator(spec, apiKey)
        : new LlamaEngine({ model: spec.slice('gguf:'.length) });
      generators.set(spec, generator);
    }
    return generator;
  };
  const byRole = Object.fromEntries(
    ROLE_NAMES.map((role) => [role, specs[role] === 'offline' ? undefined : generatorOf(specs[role])]),
  ) as Record<keyof Roles, TextGenerator | undefined>;
  const model = modelRoles(byRole as Record<keyof Roles, TextGenerator>, options);
  return {
    planner: byRole.planner ? model.planner : offline.planner,
    executor: byRole.executor ? model.executor : offline.executor,
    critic: byRole.critic ? model.critic : offline.critic,
    answerer: byRole.answerer ? model.answerer : offline.answerer,
  };
}

function openaiGenerator(spec: string, apiKey: string | undefined): TextGenerator {
  const { model, url } = parseJudgeSpec(spec);
  return new OpenAIGenerator({ url, model, apiKey, modelFlag: 'in the role spec: openai:MODEL@URL' });
}
