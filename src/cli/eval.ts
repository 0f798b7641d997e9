import { setMaxListeners } from 'node:events';
import { Option, type Command } from 'commander';
import { MAX_K } from '../protocol/protocol.js';
import { TOOL_PARSERS } from '../wire/episodes.js';
import { AGENTS, type AgentName } from '../agent/types.js';
import { TASK_FORMATS, type TaskFormat } from '../eval/tasks.js';
import { defaultCacheFile, defaultLibraryDir } from '../paths.js';
import {
  choiceFlag,
  intFlag,
  numberFlag,
  observationFlag,
  printJson,
  printLine,
  SYSTEM_PROMPT_HELP,
  systemPromptFlag,
} from './output.js';
import { UsageError } from '../terminal/errors.js';

interface EvalFlags {
  server?: string;
  library: string;
  cache: string;
  tasks?: string;
  format?: string;
  agent: string;
  policy: string;
  runs: string;
  concurrency: string;
  maxTurns?: string;
  k?: string;
  seed?: string;
  errorRate?: string;
  maxObservationChars?: string;
  systemPrompt?: string;
  toolParser?: string;
  maxSeqLen: string;
  maxTurnTokens?: string;
  temperature?: string;
  apiKey?: string;
  judge?: string;
  judgeApiKey?: string;
  out?: string;
  json?: boolean;
}

export function registerEval(program: Command): void {
  program
    .command('eval')
    .description(
      'run agents over a task file (own JSONL, ToolBench queries, BFCL, API-Bank or MCP-style tasks) against a ' +
        'ToolEnv server; report success, tool path, coverage, turns, tokens',
    )
    .option('--server <url>', 'ToolEnv server to run against (default: start one in this process on --library)')
    .option('--library <dir>', 'library of the in-process server (only without --server)', defaultLibraryDir())
    .option('--cache <file>', 'response cache of the in-process server (only without --server)', defaultCacheFile())
    .option(
      '--tasks <file>',
      'task file: JSON Lines of {id, query, reference_tools?, tools?, answer?, seed?}, ToolBench queries, BFCL ' +
        'entries, API-Bank dialogs or MCP-style tasks (JSON array or JSONL)',
    )
    .option('--format <format>', `task file format: ${TASK_FORMATS.join(', ')} (default: detected)`)
    .option('--agent <names>', `agent loop(s), comma-separated to compare: ${AGENTS.join(', ')}`, 'paraact')
    .option(
      '--policy <spec>',
      'what writes each turn: heuristic, openai:MODEL@URL, gguf:FILE, hf:DIR (a Hugging Face checkpoint, e.g. a ' +
        '`toolenv train` run’s RUN/checkpoint)',
      'heuristic',
    )
    .option('--runs <n>', 'runs of every task (mean ± sample SD over runs)', '1')
    .option('--concurrency <n>', 'task-runs in flight at once', '4')
    .option('--max-turns <n>', 'turn cap per run (agent default 15)')
    .option('--k <n>', 'search results per query (agent default 3)')
    .option(
      '--seed <n>',
      'derive each task-run’s episode seed from (seed, task, run): reruns meet the same injected errors',
    )
    .option('--error-rate <r>', 'injected-error rate of every episode (default the server’s)')
    .option(
      '--max-observation-chars <n>',
      'characters of one observation (the budget the policy was trained under); default whole',
    )
    .option('--system-prompt <style>', SYSTEM_PROMPT_HELP)
    .option(
      '--tool-parser <name>',
      'with --agent chat: how the episodes read an hf: ' +
        `policy's raw tool-call text: ${TOOL_PARSERS.join(', ')} (default hermes)`,
    )
    .option(
      '--max-seq-len <n>',
      'hf: tokens of a whole conversation; a run that outgrows it fails, as its rollout stops in training',
      '4096',
    )
    .option('--max-turn-tokens <n>', 'hf and gguf: most tokens of one message (default hf 512, gguf 1024)')
    .option('--temperature <t>', 'hf: sampling temperature (default 0: greedy); gguf: default 0.7')
    .addOption(new Option('--api-key <key>', 'ToolEnv server API key').env('TOOLENV_API_KEY'))
    .option(
      '--judge <spec>',
      'the answer judge (openai:MODEL@URL): scores R_ans in the rewards, and success for tasks without an expected ' +
        'answer (Quality and Faithfulness YES)',
    )
    .addOption(new Option('--judge-api-key <key>', 'API key of the judge endpoint').env('TOOLENV_JUDGE_API_KEY'))
    .option('--out <dir>', 'write report.md, report.json and one trajectory per task-run here')
    .option('--json', 'print the summary as one JSON object (last stdout line)')
    .action(async (flags: EvalFlags, command: Command) => {
      if (flags.tasks === undefined) throw new UsageError('--tasks FILE is required');
      const agents = parseAgents(flags.agent);
      if (flags.format !== undefined) choiceFlag('--format', flags.format, TASK_FORMATS);
      if (flags.server !== undefined && !/^https?:\/\/[^\s/]+/.test(flags.server))
        throw new UsageError(`--server must be an http(s) URL, got ${JSON.stringify(flags.server)}`);
      for (const flag of ['library', 'cache'] as const) {
        if (flags.server !== undefined && command.getOptionValueSource(flag) === 'cli')
          throw new UsageError(`--${flag} is for the in-process server: drop it or drop --server`);
      }
      if (!/^(heuristic|openai:.*|gguf:.+|hf:.+)$/.test(flags.policy))
        throw new UsageError(
          `--policy must be heuristic, openai:MODEL@URL, gguf:FILE or hf:DIR, got ${JSON.stringify(flags.policy)}`,
        );
      if (agents.includes('chat') && flags.policy.startsWith('gguf:'))
        throw new UsageError(
          '--agent chat needs a policy that calls tools natively (heuristic, openai:MODEL@URL, or hf:DIR whose chat ' +
            `template renders tools); ${flags.policy} writes text only`,
        );
      if (flags.toolParser !== undefined && !agents.includes('chat'))
        throw new UsageError("--tool-parser reads the chat agent's raw text: it needs --agent chat");
      const options = {
        tasks: flags.tasks,
        format: flags.format as TaskFormat | undefined,
        server: flags.server,
        library: flags.library,
        cache: flags.cache,
        apiKey: flags.apiKey,
        agents,
        policy: flags.policy,
        runs: intFlag('--runs', flags.runs, { min: 1, max: 100 }),
        concurrency: intFlag('--concurrency', flags.concurrency, { min: 1, max: 256 }),
        maxTurns:
          flags.maxTurns === undefined ? undefined : intFlag('--max-turns', flags.maxTurns, { min: 1, max: 100 }),
        k: flags.k === undefined ? undefined : intFlag('--k', flags.k, { min: 1, max: MAX_K }),
        seed: flags.seed === undefined ? undefined : intFlag('--seed', flags.seed, { min: 0 }),
        errorRate:
          flags.errorRate === undefined ? undefined : numberFlag('--error-rate', flags.errorRate, { min: 0, max: 1 }),
        maxObservationChars:
          flags.maxObservationChars === undefined ? undefined : observationFlag(flags.maxObservationChars),
        ...(flags.systemPrompt !== undefined ? { systemPrompt: systemPromptFlag(flags.systemPrompt) } : {}),
        ...(flags.toolParser !== undefined
          ? { toolParser: choiceFlag('--tool-parser', flags.toolParser, TOOL_PARSERS) }
          : {}),
        policyOptions: {
          maxSeqLen: intFlag('--max-seq-len', flags.maxSeqLen, { min: 16 }),
          ...(flags.maxTurnTokens !== undefined
            ? { maxTokens: intFlag('--max-turn-tokens', flags.maxTurnTokens, { min: 1 }) }
            : {}),
          ...(flags.temperature !== undefined
            ? { temperature: numberFlag('--temperature', flags.temperature, { min: 0, max: 2 }) }
            : {}),
        },
        judge: flags.judge,
        judgeApiKey: flags.judgeApiKey,
        out: flags.out,
      };

      // Loaded here: the runner, the reports and (through them) the agent are no cost to other commands.
      const [{ evaluate }, { EvalInputError }, { headline, summaryLine }, { stagedProgress }] = await Promise.all([
        import('../eval/evaluate.js'),
        import('../eval/tasks.js'),
        import('../eval/report.js'),
        import('../terminal/progress.js'),
      ]);
      const progress = stagedProgress('task-runs');
      const abort = new AbortController();
      // Every request in flight of every concurrent run listens on it (a few dozen at once is normal here).
      setMaxListeners(0, abort.signal);
      const stop = () => {
        process.stderr.write(
          '\ntoolenv: stopping: runs in flight end as errors, the report is still written (again to quit at once)\n',
        );
        abort.abort();
        process.once('SIGINT', () => process.exit(130));
      };
      process.once('SIGINT', stop);
      let report;
      try {
        report = await evaluate({
          ...options,
          onProgress: (done, total) => progress.update('eval', done, total),
          log: (line) => process.stderr.write(`${line}\n`),
          signal: abort.signal,
        });
      } catch (error) {
        if (error instanceof EvalInputError) throw new UsageError(error.message);
        throw error;
      } finally {
        progress.stop();
        process.off('SIGINT', stop);
      }

      for (const task of report.tasks.unmappable)
        process.stderr.write(
          `toolenv: not run: task ${task.id} (line ${task.line}): no reference tool is in the library\n`,
        );
      const unscored = report.tasks.unscored;
      if (unscored.length > 0) {
        const ids =
          unscored
            .slice(0, 10)
            .map((t) => t.id)
            .join(', ') + (unscored.length > 10 ? `, … (${unscored.length - 10} more)` : '');
        process.stderr.write(
          `toolenv: unscored: ${unscored.length} task(s) with no expected answer, ` +
            `no reference tool and no --judge, left out of success: ${ids}\n`,
        );
      }
      if (flags.json) return printJson(summaryLine(report, options.out));
      // Path and coverage count references missing from the library as misses; with any, the mapped-only values too.
      const partly = report.tasks.partially_mapped.length > 0;
      for (const { summary } of report.results) for (const line of headline(summary, partly)) printLine(line);
      printLine(
        `${report.tasks.scored} tasks × ${report.runs} run(s), policy ` +
          `${report.policy}${options.out ? `; report in ${options.out}/report.md` : ''}`,
      );
    });
}

function parseAgents(text: string): AgentName[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = names.find((n) => !(AGENTS as readonly string[]).includes(n));
  if (names.length === 0 || bad !== undefined)
    throw new UsageError(
      `--agent must be one or more of ${AGENTS.join(', ')} (comma-separated), got ${JSON.stringify(text)}`,
    );
  return [...new Set(names)] as AgentName[];
}
