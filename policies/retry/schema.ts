/**
 * The zod schemas of retry's options, for `fromConfig` and the JSON Schema;
 * `retry()`, the backoffs and the budgets check their options with the plain
 * rules of `options.ts`, `backoff.ts` and `budget.ts`.
 */
import { z } from 'zod';
import { clockSchema, intAtLeast, nameSchema, nonNegativeMs, positiveMs, randomSchema, ratio } from '../../lib/schemas.js';
import { isBackoff, maxAtLeastInitial, type Backoff, type BackoffFunction } from './backoff.js';
import { isRetryBudget, type RetryBudget } from './budget.js';

/** The zod schema of the options of `retry`. */
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

/** The fields of `ExponentialOptions`, before the cross-field rule. */
export const ExponentialShape = z
  .object({
    /** @defaultValue 100 */
    initial: positiveMs.default(100),
    /** @defaultValue 2 */
    multiplier: z.number({ message: 'expected a finite number >= 1' }).min(1, { message: 'expected a finite number >= 1' }).default(2),
    /** @defaultValue 10_000 */
    max: positiveMs.default(10_000),
    /** @defaultValue `'full'` */
    jitter: z.enum(['none', 'full', 'equal', 'decorrelated', 'proportional']).default('full'),
  })
  .strict();

/** The zod schema of `ExponentialOptions`. */
export const ExponentialOptionsSchema = ExponentialShape.refine(maxAtLeastInitial, { message: 'max must be >= initial', path: ['max'] });

/** The zod schema of the options of `tokenBudget`. */
export const TokenBudgetOptionsSchema = z
  .object({
    /** Retries may be at most this share of first attempts within the window. @defaultValue 0.1 */
    ratio: ratio.default(0.1),
    /** Retries allowed per second whatever the traffic, so quiet services can still retry. @defaultValue 10 */
    minPerSecond: z.number({ message: 'expected a finite number >= 0' }).nonnegative({ message: 'expected a finite number >= 0' }).default(10),
    /** How far back calls and retries count. @defaultValue 10_000 */
    windowMs: positiveMs.default(10_000),
  })
  .strict();

/** The zod schema of the options of `sloBudget`. */
export const SloBudgetOptionsSchema = z
  .object({
    /** The SLO window retries must fit in. @defaultValue 60_000 */
    sloWindowMs: positiveMs.default(60_000),
    /** Share of the SLO window retrying may spend. @defaultValue 0.1 */
    fraction: ratio.default(0.1),
    /** Hard cap on retries per call. @defaultValue 3 */
    maxRetries: intAtLeast(0).default(3),
    /** Window of the live p99 (the last 5 minutes by default). @defaultValue 300_000 */
    latencyWindowMs: positiveMs.default(300_000),
  })
  .strict();
