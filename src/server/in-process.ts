import { LibraryStore } from '../library/store.js';
import type { RunningServer } from './serve.js';

export interface InProcessOptions {
  library: string;
  cache?: string;
  apiKey?: string;
  judge?: string;
  judgeApiKey?: string;
}

/** A library the caller asked to serve that is not there; each command says it in its own words. */
export class MissingLibraryError extends Error {}

/**
 * The library served in this process on a free port, as `toolenv serve` would (spec examples, then the
 * synthesizer): what `eval`, `train` and `sft generate` run against when no --server is given.
 */
export async function serveInProcess(options: InProcessOptions): Promise<RunningServer> {
  if (!LibraryStore.exists(options.library)) {
    throw new MissingLibraryError(
      `no library at ${options.library}: pass --server URL, or --library DIR, ` +
        'or build the default library once with `toolenv library build`',
    );
  }
  const [{ startServer }, { examplesResponder }, { librarySynthResponder }] = await Promise.all([
    import('./serve.js'),
    import('../simulator/examples.js'),
    import('../simulator/synth/responder.js'),
  ]);
  return startServer({
    library: options.library,
    cache: options.cache,
    responders: [examplesResponder, librarySynthResponder(options.library)],
    apiKey: options.apiKey,
    judge: options.judge,
    judgeApiKey: options.judgeApiKey,
    port: 0,
    log: () => {},
  });
}
