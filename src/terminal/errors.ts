/** A mistake in what the user asked for: one line on stderr, exit code 2. */
export class UsageError extends Error {}

/**
 * A failure another process already reported on stderr (a cluster worker that could not start): only its exit code is
 * left.
 */
export class ReportedFailure extends Error {
  constructor(readonly exitCode: number) {
    super(`exited with code ${exitCode}`);
  }
}
