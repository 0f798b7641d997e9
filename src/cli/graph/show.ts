import type { Command } from 'commander';
import type { Edge } from '../../graph/edge.js';
import { defaultLibraryDir } from '../../paths.js';
import { intFlag, printJson, printLine } from '../output.js';
import { UsageError } from '../../terminal/errors.js';

export function registerGraphShow(graph: Command): void {
  graph
    .command('show')
    .description(
      "one tool's edges: what it depends on (in) and what depends on it (out), with rule, score and evidence",
    )
    .argument('<tool>', 'tool id')
    .option('--library <dir>', 'library directory', defaultLibraryDir())
    .option('--limit <n>', 'edges shown per direction', '50')
    .option('--json', 'print one JSON object {tool, in, out, in_total, out_total}')
    .action(async (tool: string, opts: { library: string; limit: string; json?: boolean }) => {
      const limit = intFlag('--limit', opts.limit, { min: 1, max: 100000 });
      const { openGraph } = await import('../../graph/store.js');
      const g = openGraph(opts.library);
      try {
        if (!g.has(tool)) throw new UsageError(`no tool ${JSON.stringify(tool)} in the graph of ${opts.library}`);
        const edges = g.edgesOf(tool);
        if (opts.json) {
          return printJson({
            tool,
            in_total: edges.in.length,
            out_total: edges.out.length,
            in: edges.in.slice(0, limit),
            out: edges.out.slice(0, limit),
          });
        }
        printLine(tool);
        section(`depends on (in, ${edges.in.length})`, edges.in.slice(0, limit), (e) => e.src);
        section(`needed by (out, ${edges.out.length})`, edges.out.slice(0, limit), (e) => e.dst);
      } finally {
        g.close();
      }
    });
}

function section(title: string, edges: Edge[], other: (e: Edge) => string): void {
  printLine();
  printLine(`${title}:`);
  if (edges.length === 0) printLine('  none');
  const width = Math.max(0, ...edges.map((e) => other(e).length));
  for (const e of edges) {
    printLine(`  ${e.kind.padEnd(4)}  ${e.score.toFixed(2)}  ${other(e).padEnd(width)}  ${e.rule}: ${e.evidence}`);
  }
}
