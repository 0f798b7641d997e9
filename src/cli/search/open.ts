/**
 * What the search actions run with: loaded by them only, so that declaring the commands does not load the retrievers.
 */
import { ModelDirError } from '../../retrieval/onnx-embedder.js';
import { SearchError, ToolSearch, type ToolSearchOptions } from '../../retrieval/searcher.js';
import { UsageError } from '../../terminal/errors.js';
import { embedOptions, type LibraryFlags } from './options.js';

export function openSearch(flags: LibraryFlags, extra: Pick<ToolSearchOptions, 'onProgress'> = {}): ToolSearch {
  return ToolSearch.open(flags.library, { ...embedOptions(flags), ...extra });
}

/** Turns the retrieval layer's request errors into usage errors (one line, exit 2). */
export async function asUsage<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof SearchError || error instanceof ModelDirError)
      throw new UsageError(error.message, { cause: error });
    throw error;
  }
}
