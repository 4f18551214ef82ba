/**
 * Runs a user's `handle` / `handleResult` predicate. A throw inside it counts
 * as "yes, a failure", so a buggy predicate never crashes a call.
 */
export function judge(predicate: (value: never) => boolean, value: unknown): boolean {
  try {
    return predicate(value as never);
  } catch {
    return true;
  }
}
