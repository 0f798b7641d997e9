import { parentPort, workerData } from 'node:worker_threads';
import { LibraryStore } from '../../library/store.js';
import { synthesize } from './index.js';
import type { SynthJob, SynthReply } from './threaded.js';

/**
 * The synthesis thread (threaded.ts starts it): its own handle on the library, whose records it parses on first use
 * and keeps in the store's LRU, and its own faker. Each batch of jobs is answered in one message, every body as the
 * JSON text JSON.stringify writes for it — what the cache stores and the answer sends, so the event loop never
 * serializes it.
 */
const store = LibraryStore.open((workerData as { library: string }).library);

parentPort!.on('message', (jobs: SynthJob[]) => parentPort!.postMessage(jobs.map(answer)));

function answer(job: SynthJob): SynthReply {
  try {
    const tool = store.get(job.tool);
    if (!tool) return { n: job.n, error: `the library has no tool ${job.tool}` };
    const { status, body } = synthesize(tool, job.args, job.seed);
    return { n: job.n, status, text: JSON.stringify(body) };
  } catch (error) {
    return { n: job.n, error: error instanceof Error ? error.message : String(error) };
  }
}
