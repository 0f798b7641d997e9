import type { Command } from 'commander';
import { registerSearchBench } from './bench-cmd.js';
import { registerEval } from './eval-cmd.js';
import { registerIndex } from './index-cmd.js';
import { registerQuery } from './query.js';

export function registerSearch(program: Command): void {
  const search = program
    .command('search')
    .description('find tools for a task description (BM25 by default; USE, local ONNX models, hybrid)');
  registerQuery(search);
  registerIndex(search);
  registerEval(search);
  registerSearchBench(search);
}
