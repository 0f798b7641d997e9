/** A default-build worker: answers each job message (scan or convert one document) with its result. */
import { parentPort } from 'node:worker_threads';
import { convertDocument, scanDocument, type ConvertJob, type ScanJob } from './openapi/directory.js';

const port = parentPort;
if (!port) throw new Error('build-worker.js runs as a worker thread of the default library build');

port.on('message', (job: ScanJob | ConvertJob) => {
  try {
    port.postMessage({ ok: true, result: job.kind === 'scan' ? scanDocument(job) : convertDocument(job) });
  } catch (error) {
    port.postMessage({ ok: false, error: `${job.file}: ${error instanceof Error ? error.message : String(error)}` });
  }
});
