import { LibraryError } from '../store.js';

/** An imported file that cannot become tool records; the message names the file and what is wrong. */
export class ImportError extends LibraryError {}
