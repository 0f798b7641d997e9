import { parentPort, workerData } from 'node:worker_threads';
import { LibraryStore } from '../../library/store.js';
import { PRIOR_FILE, readPrior } from '../prior/prior.js';
import { join } from 'node:path';
import { synthesize } from './index.js';
import { cutExpander } from '../cut-schemas.js';
import type { SynthJob, SynthReply } from './threaded.js';

/**
 * The synthesis thread (threaded.ts starts it): its own handle on the library, whose records it parses on first use
 * and keeps in the store's LRU, its value prior, and its own faker. A batch of jobs is answered a few at a time, so
 * that the event loop answers the first while the rest are made (one reply for a batch of thousands would leave it
 * idle meanwhile);
 * every body comes as the JSON text JSON.stringify writes for it — what the cache stores and the answer sends.
 */
const { library } = workerData as { library: string };
const store = LibraryStore.open(library);
/** The library's value prior, when it has one (`library build`, `library prior`). */
const prior = readPrior(join(library, PRIOR_FILE));
/** Cut response schemas expanded from the API's stored document where an answer goes that deep. */
const expand = cutExpander((apiId) => store.apiDocument(apiId));

/** Answers per reply message. */
const REPLY_EVERY = 8;

parentPort!.on('message', (jobs: SynthJob[]) => {
  for (let start = 0; start < jobs.length; start += REPLY_EVERY)
    parentPort!.postMessage(jobs.slice(start, start + REPLY_EVERY).map(answer));
});

function answer(job: SynthJob): SynthReply {
  try {
    const tool = store.get(job.tool);
    if (!tool) return { n: job.n, error: `the library has no tool ${job.tool}` };
    const { status, body } = synthesize(tool, job.args, job.seed, prior, expand);
    return { n: job.n, status, text: JSON.stringify(body) };
  } catch (error) {
    return { n: job.n, error: error instanceof Error ? error.message : String(error) };
  }
}
