import { Option, type Command } from 'commander';
import { MAX_K } from '../protocol/protocol.js';
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
import { ReportedFailure, UsageError } from '../terminal/errors.js';

interface GenerateFlags {
  tasks?: string;
  roles: string;
  roleApiKey?: string;
  out: string;
  concurrency: string;
  seed: string;
  server?: string;
  library: string;
  cache: string;
  apiKey?: string;
  maxRounds: string;
  errorRate: string;
  maxTurns: string;
  maxObservationChars?: string;
  systemPrompt?: string;
  k?: string;
  temperature: string;
  maxTokens: string;
  format: string;
  json?: boolean;
}

export function registerSft(program: Command): void {
  const sft = program
    .command('sft')
    .description('cold-start SFT data: the state-sharing multi-agent pipeline of Appendix B');
  sft
    .command('generate')
    .description(
      'run Planner, Retriever, Executor, Critic and Answerer over tasks through episodes; write the accepted ' +
        'trajectories as single-agent ParaAct conversations',
    )
    .option(
      '--tasks <file>',
      'task file: ToolEnv’s own JSON Lines (what `toolenv tasks synth` writes) ' +
        'or any format eval reads (ToolBench, BFCL, API-Bank, MCP-style)',
    )
    .option(
      '--roles <spec>',
      'the roles’ models: offline (deterministic, from the heuristic), openai:MODEL@URL or gguf:FILE for all, or ' +
        'planner=…,executor=…,critic=…,answerer=… (others offline)',
      'offline',
    )
    .addOption(
      new Option('--role-api-key <key>', 'bearer key of the roles’ OpenAI-compatible endpoints').env(
        'TOOLENV_ROLE_API_KEY',
      ),
    )
    .option('--out <dir>', 'where sft.jsonl, rejected.jsonl and stats.json go', 'sft')
    .option('--concurrency <n>', 'tasks in flight at once', '4')
    .option('--seed <n>', 'episode seed of tasks without their own, and the models’ sampling seed', '0')
    .option('--server <url>', 'ToolEnv server the episodes run on (default: serve --library in this process)')
    .option('--library <dir>', 'library of the in-process server', defaultLibraryDir())
    .option('--cache <file>', 'response cache of the in-process server', defaultCacheFile())
    .addOption(new Option('--api-key <key>', 'ToolEnv server API key').env('TOOLENV_API_KEY'))
    .option('--max-rounds <n>', 'T_max, the round cap (Table 6)', '12')
    .option('--error-rate <r>', 'injected-error rate of the episodes (Table 6)', '0.05')
    .option('--max-turns <n>', 'the episodes’ turn cap, as the policy meets it in RL', '15')
    .option('--k <n>', 'tools retrieved per slot (default the server’s 3)')
    .option(
      '--max-observation-chars <n>',
      'characters of one observation, as the policy meets it in ' +
        'training (`train --max-observation-chars`); default whole',
    )
    .option('--system-prompt <style>', SYSTEM_PROMPT_HELP)
    .option('--temperature <t>', 'sampling temperature of the model roles (Table 6)', '0.7')
    .option('--max-tokens <n>', 'most tokens per agent call (Table 6)', '2048')
    .option(
      '--format <form>',
      'messages: single-agent ParaAct conversations; chat: Hugging Face chat rows with native tool calls and a tools ' +
        'column (as `toolenv export` writes)',
      'messages',
    )
    .option('--json', 'print the summary as one JSON line')
    .action(async (flags: GenerateFlags) => {
      if (flags.tasks === undefined)
        throw new UsageError('--tasks FILE is required (`toolenv tasks synth --out FILE` makes one)');
      if (flags.server !== undefined && !/^https?:\/\/[^\s/]+/.test(flags.server))
        throw new UsageError(`--server must be an http(s) URL, got ${JSON.stringify(flags.server)}`);
      const [
        { generateColdStart, parseRoles },
        { readGenerationTasks },
        { TaskFileError },
        { serveInProcess, MissingLibraryError },
        { statsTable },
        { stagedProgress },
      ] = await Promise.all([
        import('../coldstart/generate.js'),
        import('../coldstart/tasks.js'),
        import('../eval/tasks.js'),
        import('../server/in-process.js'),
        import('../coldstart/stats.js'),
        import('../terminal/progress.js'),
      ]);
      let roles;
      try {
        roles = parseRoles(flags.roles);
      } catch (error) {
        throw new UsageError(`--roles: ${(error as Error).message}`);
      }
      let tasks;
      try {
        tasks = readGenerationTasks(flags.tasks);
      } catch (error) {
        if (error instanceof TaskFileError) throw new UsageError(error.message);
        throw error;
      }
      const options = {
        roles,
        roleApiKey: flags.roleApiKey,
        concurrency: intFlag('--concurrency', flags.concurrency, { min: 1, max: 256 }),
        seed: intFlag('--seed', flags.seed, { min: 0 }),
        maxRounds: intFlag('--max-rounds', flags.maxRounds, { min: 1, max: 100 }),
        errorRate: numberFlag('--error-rate', flags.errorRate, { min: 0, max: 1 }),
        maxTurns: intFlag('--max-turns', flags.maxTurns, { min: 1, max: 100 }),
        ...(flags.k !== undefined ? { k: intFlag('--k', flags.k, { min: 1, max: MAX_K }) } : {}),
        ...(flags.maxObservationChars !== undefined
          ? { maxObservationChars: observationFlag(flags.maxObservationChars) }
          : {}),
        ...(flags.systemPrompt !== undefined ? { systemPrompt: systemPromptFlag(flags.systemPrompt) } : {}),
        ...(choiceFlag('--format', flags.format, ['messages', 'chat'] as const) === 'chat' ? { chatRows: true } : {}),
        model: {
          temperature: numberFlag('--temperature', flags.temperature, { min: 0, max: 2 }),
          maxTokens: intFlag('--max-tokens', flags.maxTokens, { min: 1 }),
        },
      };
      let inProcess;
      if (flags.server === undefined) {
        try {
          inProcess = await serveInProcess({ library: flags.library, cache: flags.cache });
        } catch (error) {
          if (error instanceof MissingLibraryError) throw new UsageError(error.message);
          throw error;
        }
      }
      const progress = stagedProgress('tasks');
      try {
        const summary = await generateColdStart({
          ...options,
          tasks,
          server: flags.server ?? inProcess!.url,
          apiKey: flags.apiKey,
          out: flags.out,
          onProgress: (done, total) => progress.update('sft generate', done, total),
        });
        progress.stop();
        if (flags.json) printJson(summary);
        else {
          printLine(
            `${summary.accepted} of ${summary.tasks} trajectories accepted (${summary.files.sft}); ` +
              `${summary.rejected} rejected with reasons (${summary.files.rejected})`,
          );
          for (const line of statsTable(summary.stats)) printLine(line);
        }
        // Every run failing outright is no data problem: a model or the server is unreachable. Say so, exit 1.
        if (summary.tasks > 0 && summary.failed === summary.tasks) {
          process.stderr.write(
            `toolenv: every run failed (${summary.files.rejected} has each reason); the first: ` +
              `${summary.first_failure}\n`,
          );
          throw new ReportedFailure(1);
        }
      } finally {
        progress.stop();
        await inProcess?.close();
      }
    });
}
