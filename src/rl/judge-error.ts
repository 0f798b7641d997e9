/**
 * A judge that failed after its retries: the reward is flagged, not scored. Its own module, so that scoring (which
 * tells it apart) loads without the judge's client.
 */
export class JudgeError extends Error {
  override readonly name = 'JudgeError';
}
