import type { Command } from 'commander';
import { registerStats } from './stats.js';
import { registerList } from './list.js';

export function registerLibrary(program: Command): void {
  const library = program.command('library').description('build, import and inspect tool libraries');
  registerStats(library);
  registerList(library);
}
