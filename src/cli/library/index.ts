import type { Command } from 'commander';
import { registerStats } from './stats.js';
import { registerList } from './list.js';
import { registerImport } from './import.js';
import { registerBuild } from './build.js';
import { registerPrior } from './prior.js';

export function registerLibrary(program: Command): void {
  const library = program.command('library').description('build, import and inspect tool libraries');
  registerBuild(library);
  registerStats(library);
  registerList(library);
  registerImport(library);
  registerPrior(library);
}
