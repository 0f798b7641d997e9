import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { SearchResult } from '../../retrieval/searcher.js';
import { intFlag, printJson, printLine } from '../output.js';
import { UsageError } from '../../terminal/errors.js';
import { libraryOptions, retrieverFlag, type LibraryFlags } from './options.js';

interface QueryFlags extends LibraryFlags {
  k: string;
  retriever: string;
  category?: string;
  queries?: string;
  json?: boolean;
}

/** Queries per search call: bounds the memory a dense batch takes. */
const BATCH = 64;

export function registerQuery(search: Command): void {
  libraryOptions(search)
    .argument(
      '[query...]',
      'what the tool should do, in words; each argument is one query (quote a query of several words)',
    )
    .option('-k, --k <n>', 'results per query', '3')
    .option(
      '--retriever <name>',
      'bm25 (default, embedded), use (shipped Universal Sentence Encoder), dense (--embed-model), hybrid (bm25 + ' +
        'use, or + --embed-model, score fusion)',
      'bm25',
    )
    .option('--category <name>', 'only tools of this category')
    .option('--queries <file>', 'JSON Lines of {"query": …}: one result line per query, in order')
    .option(
      '--json',
      'JSON Lines: {"query", "results": [{id, name, score, category, origin}]} per query, then a summary line',
    )
    .action(async (words: string[], opts: QueryFlags) => {
      const k = intFlag('-k', opts.k, { min: 1, max: 1000 });
      const retriever = retrieverFlag(opts.retriever);
      if (opts.queries !== undefined && words.length > 0)
        throw new UsageError('give either a QUERY or --queries FILE, not both');
      if (opts.queries === undefined && words.length === 0)
        throw new UsageError('nothing to search for: give a QUERY or --queries FILE');
      words.forEach((query, i) => {
        if (query.trim() === '')
          throw new UsageError(
            `query ${i + 1} is empty: give each query as one argument, ` +
              'e.g. toolenv search "send an sms" "get a github repository"',
          );
      });
      const queries = opts.queries !== undefined ? readQueries(opts.queries) : words;
      const [{ asUsage, openSearch }, { stagedProgress }] = await Promise.all([
        import('./open.js'),
        import('../../terminal/progress.js'),
      ]);
      const progress = stagedProgress('tools');
      const searcher = openSearch(opts, { onProgress: progress.update });
      try {
        const started = process.hrtime.bigint();
        await asUsage(() => searcher.prepare(retriever));
        progress.stop();
        const searchStarted = process.hrtime.bigint();
        let returned = 0;
        for (let i = 0; i < queries.length; i += BATCH) {
          const batch = queries.slice(i, i + BATCH);
          const results = await asUsage(() => searcher.search(batch, { k, retriever, category: opts.category }));
          batch.forEach((query, j) => {
            returned += results[j]!.length;
            if (opts.json) printJson({ query, results: results[j] });
            else printHuman(query, results[j]!, queries.length > 1);
          });
        }
        const ms = (from: bigint) => Math.round(Number(process.hrtime.bigint() - from) / 1e4) / 100;
        if (opts.json)
          printJson({
            queries: queries.length,
            results: returned,
            k,
            retriever,
            category: opts.category ?? null,
            search_ms: ms(searchStarted),
            total_ms: ms(started),
          });
      } finally {
        progress.stop();
        await searcher.close();
      }
    });
}

function readQueries(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read --queries ${file}: ${(error as Error).message}`, { cause: error });
  }
  const queries: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new UsageError(`${file} line ${i + 1} is not JSON`);
    }
    const query = (value as { query?: unknown } | null)?.query;
    if (typeof query !== 'string') throw new UsageError(`${file} line ${i + 1} needs a string "query" field`);
    queries.push(query);
  });
  if (queries.length === 0) throw new UsageError(`${file} holds no queries`);
  return queries;
}

function printHuman(query: string, results: SearchResult[], heading: boolean): void {
  if (heading) printLine(`# ${query}`);
  if (results.length === 0) printLine('(no tools found)');
  results.forEach((r, i) =>
    printLine(`${String(i + 1).padStart(2)}. ${r.score.toFixed(3).padStart(8)}  ${r.id}  [${r.category}]  ${r.name}`),
  );
  if (heading) printLine();
}
