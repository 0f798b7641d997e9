import { workerData } from 'node:worker_threads';
import { ToolSearch } from '../retrieval/searcher.js';

/** A worker thread's whole job: build (or refresh) a library's lexical index files, then end. */
const { libraryDir } = workerData as { libraryDir: string };
await ToolSearch.open(libraryDir).index('bm25');
