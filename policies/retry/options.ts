import { z } from 'zod';
import { clockSchema, intAtLeast, nameSchema, nonNegativeMs, randomSchema } from '../../lib/schemas.js';
import { isBackoff, type Backoff, type BackoffFunction } from './backoff.js';
import { isRetryBudget, type RetryBudget } from './budget.js';

/** Options of {@link retry}. */
export const RetryOptionsSchema = z
  .object({
    /**
     * Total tries, the first one included (cockatiel counts retries; this counts tries).
     * @defaultValue 3
     */
    maxAttempts: intAtLeast(1).default(3),
    /**
     * Delay before each retry: `constant(ms)`, `linear(ms, step)`, `exponential({...})` or `(retry, error) => ms`.
     * @defaultValue `exponential()` (100 ms initial, x2, max 10 s, full jitter)
     */
    backoff: z
      .custom<Backoff | BackoffFunction>((v) => isBackoff(v) || typeof v === 'function', {
        message: 'expected a backoff (constant, linear, exponential) or a function (retry, error) => ms',
      })
      .optional(),
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
    maxDelayMs: nonNegativeMs.optional(),
    /**
     * Which thrown values are worth retrying; a throw inside `handle` counts as yes.
     * @defaultValue every thrown value
     */
    handle: z.custom<(error: unknown) => boolean>((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
    /**
     * Which results count as failures to retry (e.g. an HTTP 503 response). After the last attempt the result is returned.
     * @defaultValue none
     */
    handleResult: z.custom<(result: unknown) => boolean>((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
    /** Caps retries across calls (`tokenBudget`, `sloBudget`). @defaultValue no budget */
    budget: z.custom<RetryBudget>(isRetryBudget, { message: 'expected a RetryBudget (onCall, tryRetry)' }).optional(),
    /** @defaultValue `'retry'` */
    name: nameSchema.default('retry'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
    /** Random source for jitter, in [0, 1). @defaultValue `Math.random` */
    random: randomSchema.optional(),
  })
  .strict();

/**
 * Options of {@link retry}.
 * @example
 * ```ts
 * retry({ maxAttempts: 4, backoff: exponential({ initial: 50 }), handle: (e) => !(e instanceof ValidationError) });
 * ```
 */
export type RetryOptions = z.input<typeof RetryOptionsSchema>;
