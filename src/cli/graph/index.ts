import type { Command } from 'commander';
import { registerGraphBuild } from './build.js';
import { registerGraphShow } from './show.js';
import { registerGraphStats } from './stats.js';

export function registerGraph(program: Command): void {
  const graph = program
    .command('graph')
    .description("the tool dependency graph G_dep: build it over a library, summarize it, show one tool's edges");
  registerGraphBuild(graph);
  registerGraphStats(graph);
  registerGraphShow(graph);
}
