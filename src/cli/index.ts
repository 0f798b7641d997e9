import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { ReportedFailure } from '../terminal/errors.js';
import { describeFailure } from './failure.js';

/**
 * Each command's declaration, in the order help lists them. Each register file imports only what declaring needs
 * (commander, output.ts, tiny constant modules); its action loads the implementation with `await import()`. A heavy
 * static import in any of them is paid by every command, `--version` and `serve` included.
 */
const COMMANDS: Record<string, () => Promise<(program: Command) => void>> = {
  library: async () => (await import('./library/index.js')).registerLibrary,
  bench: async () => (await import('./bench.js')).registerBench,
  graph: async () => (await import('./graph/index.js')).registerGraph,
  search: async () => (await import('./search/index.js')).registerSearch,
  call: async () => (await import('./call.js')).registerCall,
  cache: async () => (await import('./cache/index.js')).registerCache,
  serve: async () => (await import('./serve.js')).registerServe,
  model: async () => (await import('./model.js')).registerModel,
  eval: async () => (await import('./eval.js')).registerEval,
  reward: async () => (await import('./reward.js')).registerReward,
  export: async () => (await import('./export.js')).registerExport,
  tasks: async () => (await import('./tasks/index.js')).registerTasks,
  train: async () => (await import('./train.js')).registerTrain,
  sft: async () => (await import('./sft.js')).registerSft,
  fidelity: async () => (await import('./fidelity.js')).registerFidelity,
  conformance: async () => (await import('./conformance.js')).registerConformance,
};

/**
 * The program for a command line (`process.argv`). One that names its command declares only that one: the others'
 * declarations, and the modules they import, are no part of its start (a fifth of `serve`'s). Anything else (help,
 * `--version`, an unknown command) declares them all, so help and commander's suggestions are unchanged.
 */
export async function buildProgram(argv: readonly string[]): Promise<Command> {
  const program = new Command('toolenv')
    .description('ToolEnv: a tool-environment simulator for agent RL (50,011 real tool interfaces, simulated)')
    .version(packageVersion())
    .showHelpAfterError(false);
  const named = argv[2];
  const declared = named !== undefined && Object.hasOwn(COMMANDS, named) ? [named] : Object.keys(COMMANDS);
  // Loaded together, so that their file reads overlap; declared in order.
  for (const register of await Promise.all(declared.map((name) => COMMANDS[name]!()))) register(program);
  configure(program);
  return program;
}

function packageVersion(): string {
  return (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
}

/**
 * Every command throws instead of exiting, so main() owns every exit code, and prints commander's own usage errors
 * (missing argument, unknown option or command…) as the CLI prints its UsageErrors.
 */
function configure(command: Command): void {
  command.exitOverride().configureOutput({ outputError: (text, write) => write(usageLine(text, command)) });
  for (const sub of command.commands) configure(sub);
}

/**
 * Commander's message ("error: unknown option '--jsn'", a suggestion on a second line) as one line in the CLI's
 * voice that points at the command's help: toolenv: unknown option '--jsn' (did you mean --json?); see `toolenv
 * call --help`.
 */
function usageLine(text: string, command: Command): string {
  const message = text
    .trim()
    .replace(/^error: /, '')
    .replace(/\.$/, '')
    .replace(/\s*\n\(Did you mean/, ' (did you mean')
    .replace(/\s*\n\s*/g, ' ');
  return `toolenv: ${message}; see \`${commandPath(command)} --help\`\n`;
}

/** `toolenv library build` for the build command. */
function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Runs the CLI; resolves to the process exit code (0 ok, 1 failure, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  const program = await buildProgram(argv);
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed help or its one-line message (usageLine).
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        return 0;
      return 2;
    }
    if (error instanceof ReportedFailure) return error.exitCode;
    const { text, exitCode } = describeFailure(error);
    process.stderr.write(`${text}\n`);
    return exitCode;
  }
}
