import type { Clock } from '../../lib/clock.js';
import { clock, custom, defineRule, intAtLeast, name, nonNegativeMs, object, optional, predicate, random, withDefault } from '../../lib/options.js';
import { isBackoff, type Backoff, type BackoffFunction } from './backoff.js';
import { isRetryBudget, type RetryBudget } from './budget.js';

/**
 * Options of {@link retry}.
 * @example
 * ```ts
 * retry({ maxAttempts: 4, backoff: exponential({ initial: 50 }), handle: (e) => !(e instanceof ValidationError) });
 * ```
 */
export interface RetryOptions {
  /**
   * Total tries, the first one included (cockatiel counts retries; this counts tries).
   * @defaultValue 3
   */
  maxAttempts?: number | undefined;
  /**
   * Delay before each retry: `constant(ms)`, `linear(ms, step)`, `exponential({...})` or `(retry, error) => ms`.
   * @defaultValue `exponential()` (100 ms initial, x2, max 10 s, full jitter)
   */
  backoff?: Backoff | BackoffFunction | undefined;
  /**
   * The longest wait before a retry. A computed backoff delay is cut to it; a
   * server's `retryAfterMs` longer than it (or one that would end past the
   * deadline) gives up at once with that error, since retrying sooner than the
   * server asked only earns another refusal.
   * @defaultValue the backoff's `max` (10 s for the default `exponential()`); for a backoff without one, 2^31 − 1 ms (the longest timer)
   * @example
   * ```ts
   * retry({ backoff: constant(200), maxDelayMs: 5_000 }); // honours Retry-After up to 5 s
   * ```
   */
  maxDelayMs?: number | undefined;
  /**
   * Which thrown values are worth retrying; a throw inside `handle` counts as yes.
   * @defaultValue every thrown value
   */
  handle?: ((error: unknown) => boolean) | undefined;
  /**
   * Which results count as failures to retry (e.g. an HTTP 503 response). After the last attempt the result is returned.
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * Caps retries across calls (`tokenBudget`, `sloBudget`).
   * @defaultValue no budget
   */
  budget?: RetryBudget | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'retry'`
   */
  name?: string | undefined;
  /**
   * The clock of the delays and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
  /**
   * Random source for jitter, in [0, 1).
   * @defaultValue `Math.random`
   */
  random?: (() => number) | undefined;
}

/** The rules of {@link RetryOptions} (`RetryOptionsSchema` in `breakwater/config` says the same). */
export const retryOptions = /* @__PURE__ */ defineRule(() => object({
  maxAttempts: withDefault(intAtLeast(1), 3),
  backoff: optional(
    custom<Backoff | BackoffFunction>(
      (v) => isBackoff(v) || typeof v === 'function',
      'expected a backoff (constant, linear, exponential) or a function (retry, error) => ms',
    ),
  ),
  maxDelayMs: optional(nonNegativeMs),
  handle: optional(predicate),
  handleResult: optional(predicate),
  budget: optional(custom<RetryBudget>(isRetryBudget, 'expected a RetryBudget (onCall, tryRetry)')),
  name: withDefault(name, 'retry'),
  clock: optional(clock),
  random: optional(random),
}));
