/** Flags of a resource out of use: rare in any answer, and never set on a resource just read by its id. */
const OUT_OF_USE =
  /(?:^|_)(?:deleted|archived|disabled|blocked|banned|locked|suspended|expired|revoked|deactivated|terminated|closed|removed|trashed|destroyed)(?:_|$)/;

/** Whether a boolean field (by name key) says its resource is out of use: `deleted`, `is_archived`. */
export function outOfUse(key: string): boolean {
  return OUT_OF_USE.test(key);
}
