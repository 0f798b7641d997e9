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

/**
 * Every command is declared up front, so each register file imports only what declaring needs (commander, output.ts,
 * tiny constant modules); its action loads the implementation with `await import()`. A heavy static import in any
 * of them is paid by every command, `--version` and `serve` included.
 */
export function buildProgram(): Command {
  const program = new Command('toolenv')
    .description('ToolEnv: a tool-environment simulator for agent RL (50,011 real tool interfaces, simulated)')
    .version(packageVersion())
    .showHelpAfterError(false)
    .exitOverride();
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
  for (const command of program.commands) configure(command);
  return program;
}

function packageVersion(): string {
  return (createRequire(import.meta.url)('../../../package.json') as { version: string }).version;
}

/** Subcommands throw instead of exiting, so main() owns every exit code. */
function configure(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) configure(sub);
}

/** Runs the CLI; resolves to the process exit code (0 ok, 1 failure, 2 bad usage). */
export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Commander has already printed help or its one-line message.
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      return 2;
    }
    if (error instanceof ReportedFailure) return error.exitCode;
    const { text, exitCode } = describeFailure(error);
    process.stderr.write(`${text}\n`);
    return exitCode;
  }
}
