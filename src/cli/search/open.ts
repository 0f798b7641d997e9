/** What the search actions run with: loaded by them only, so that declaring the commands does not load the retrievers. */
import { ModelDirError } from '../../retrieval/onnx-embedder.js';
import { SearchError, ToolSearch, type ToolSearchOptions } from '../../retrieval/searcher.js';
import { numberFlag, UsageError } from '../output.js';
import type { LibraryFlags } from './options.js';

export function openSearch(flags: LibraryFlags, extra: Pick<ToolSearchOptions, 'onProgress'> = {}): ToolSearch {
  if (flags.pooling !== undefined && flags.pooling !== 'mean' && flags.pooling !== 'cls') {
    throw new UsageError(`--pooling must be mean or cls, got ${JSON.stringify(flags.pooling)}`);
  }
  return ToolSearch.open(flags.library, {
    embedModel: flags.embedModel,
    pooling: flags.pooling as 'mean' | 'cls' | undefined,
    queryPrefix: flags.queryPrefix,
    denseWeight: flags.denseWeight === undefined ? undefined : numberFlag('--dense-weight', flags.denseWeight, { min: 0, max: 100 }),
    ...extra,
  });
}

/** Turns the retrieval layer's request errors into usage errors (one line, exit 2). */
export async function asUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SearchError || error instanceof ModelDirError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
