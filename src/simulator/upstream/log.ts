import { closeSync, createWriteStream, openSync, type WriteStream } from 'node:fs';
import type { AnswerDiff } from './diff.js';
import type { UpstreamMode } from './mode.js';

/**
 * One line of `--upstream-log`: a forwarded call, how the simulated answer differed from the real one, or why there was
 * no real one.
 */
export type UpstreamLogLine = {
  time: string;
  mode: UpstreamMode;
  tool: string;
  arguments: Record<string, unknown>;
  /** Method and URL without the query string (query parameters are in `arguments`; credentials are never logged). */
  request: string;
} & (
  | ({
      real: { status: number; ms: number; schema_valid: boolean | null };
      simulated: { status: number; source: string };
      recorded: boolean;
    } & AnswerDiff)
  | { error: { kind: string; message: string } }
);

/** The diff log, JSON Lines appended to a file opened (and so checked) when the server starts. */
export class UpstreamLog {
  private readonly stream: WriteStream;

  constructor(readonly file: string) {
    // Opened here, synchronously, so that an unwritable path is a startup error rather than a failing server.
    let fd: number;
    try {
      fd = openSync(file, 'a');
    } catch (error) {
      throw new Error(`cannot append to --upstream-log ${file}: ${(error as Error).message}`);
    }
    try {
      this.stream = createWriteStream('', { fd });
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  write(line: UpstreamLogLine): void {
    this.stream.write(`${JSON.stringify(line)}\n`);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.stream.end(resolve));
  }
}
