import { Worker } from 'node:worker_threads';

/**
 * The lexical index (BM25 and the catalog) built off the event loop, in a worker thread, when a request finds it
 * missing or stale: the build reads every record of the library (seconds for the default one), which inside a request
 * would stop the server answering anyone. One build runs at a time; the searches load the files it writes.
 */
export class LexicalBuild {
  private running: Promise<void> | undefined;

  constructor(private readonly libraryDir: string) {}

  /** Whether a build is running. */
  get building(): boolean {
    return this.running !== undefined;
  }

  /** Starts a build unless one runs; resolves when the index files are written, rejects when the build failed. */
  start(): Promise<void> {
    this.running ??= new Promise<void>((resolve, reject) => {
      const worker = new Worker(new URL('./index-worker.js', import.meta.url), {
        workerData: { libraryDir: this.libraryDir },
      });
      worker.once('error', reject);
      worker.once('exit', (code) =>
        code === 0 ? resolve() : reject(new Error(`the index build exited with code ${code}`)),
      );
    }).finally(() => (this.running = undefined));
    return this.running;
  }
}
