import { createRequire } from 'node:module';
import { Command, CommanderError } from 'commander';
import { ReportedFailure } from '../terminal/errors.js';
import { describeFailure } from './failure.js';
import { registerLibrary } from './library/index.js';
import { registerBench } from './bench.js';
import { registerGraph } from './graph/index.js';
import { registerSearch } from './search/index.js';
import { registerCall } from './call.js';
import { registerCache } from './cache/index.js';
import { registerServe } from './serve.js';
import { registerModel } from './model.js';
import { registerEval } from './eval.js';
import { registerReward } from './reward.js';
import { registerExport } from './export.js';
import { registerTasks } from './tasks/index.js';
import { registerTrain } from './train.js';
import { registerSft } from './sft.js';
import { registerFidelity } from './fidelity.js';
import { registerConformance } from './conformance.js';

/**
 * Every command is declared up front, so each register file imports only what declaring needs (commander, output.ts,
 * tiny constant modules); its action loads the implementation with `await import()`. A heavy static import in any
 * of them is paid by every command, `--version` and `serve` included.
 */
export function buildProgram(): Command {
  const program = new Command('toolenv')
    .description('ToolEnv: a tool-environment simulator for agent RL (50,011 real tool interfaces, simulated)')
    .version(packageVersion())
    .showHelpAfterError(false);
  registerLibrary(program);
  registerBench(program);
  registerGraph(program);
  registerSearch(program);
  registerCall(program);
  registerCache(program);
  registerServe(program);
  registerModel(program);
  registerEval(program);
  registerReward(program);
  registerExport(program);
  registerTasks(program);
  registerTrain(program);
  registerSft(program);
  registerFidelity(program);
  registerConformance(program);
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
  const program = buildProgram();
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
