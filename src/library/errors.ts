/** A missing or unreadable library; apart from the store so that the CLI can recognise it without loading SQLite. */
export class LibraryError extends Error {}

/** The error for a directory without a library file. */
export function missingLibrary(dir: string, file: string): LibraryError {
  return new LibraryError(
    `no library at ${dir} (expected ${file}); build one with \`toolenv library build\` or \`toolenv library import\``,
  );
}
