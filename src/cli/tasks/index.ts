import type { Command } from 'commander';
import { registerTasksStats } from './stats.js';
import { registerTasksSynth } from './synth.js';

export function registerTasks(program: Command): void {
  const tasks = program
    .command('tasks')
    .description(
      'training and eval tasks: synthesize verifiable ones from the library and its graph, summarize a task file',
    );
  registerTasksSynth(tasks);
  registerTasksStats(tasks);
}
