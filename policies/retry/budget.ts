/**
 * Limits how many retries a retry policy may make, across all its calls
 * (seed 002 §4.3). A refused retry is not made: the last error is rethrown.
 * Implementations come with the config issue (`tokenBudget`, `sloBudget`);
 * any object with these methods works.
 */
export interface RetryBudget {
  /** One call entered the policy (its first attempt is about to start). */
  onCall(now: number): void;
  /** Asks for one retry; `false` refuses it. */
  tryRetry(now: number): boolean;
  /** One attempt settled after `durationMs` (for latency-aware budgets). */
  onAttempt?(durationMs: number, now: number): void;
}

/** True for a {@link RetryBudget}. */
export function isRetryBudget(value: unknown): value is RetryBudget {
  const b = value as RetryBudget;
  return typeof value === 'object' && value !== null && typeof b.onCall === 'function' && typeof b.tryRetry === 'function';
}
