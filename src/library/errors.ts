/** A missing or unreadable library; apart from the store so that the CLI can recognise it without loading SQLite. */
export class LibraryError extends Error {}
