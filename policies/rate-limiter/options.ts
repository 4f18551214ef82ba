import { z } from 'zod';
import { clockSchema, nameSchema } from '../../lib/options.js';
import { isRateAlgorithm, type RateAlgorithm } from './algorithm.js';

/** A finite rate per second greater than zero. */
export const perSecond = z
  .number({ message: 'expected a number per second' })
  .refine((n) => Number.isFinite(n), { message: 'expected a finite number' })
  .refine((n) => n > 0, { message: 'expected a number greater than 0' });

/** An integer >= 1. */
export const positiveInt = z
  .number({ message: 'expected an integer >= 1' })
  .int({ message: 'expected an integer >= 1' })
  .min(1, { message: 'expected an integer >= 1' });

/** An integer >= 0. */
export const nonNegativeInt = z
  .number({ message: 'expected an integer >= 0' })
  .int({ message: 'expected an integer >= 0' })
  .min(0, { message: 'expected an integer >= 0' });

/** Options of {@link rateLimiter}. */
export const RateLimiterOptionsSchema = z
  .object({
    /** The algorithm and its limit: `tokenBucket(...)`, `leakyBucket(...)`, `slidingWindow(...)`, `redisTokenBucket(...)`. */
    algorithm: z.custom<RateAlgorithm>(isRateAlgorithm, {
      message: 'expected a rate algorithm (tokenBucket, leakyBucket, slidingWindow, redisTokenBucket)',
    }),
    /** @defaultValue `'rateLimiter'` */
    name: nameSchema.default('rateLimiter'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

/**
 * Options of {@link rateLimiter}.
 * @example
 * ```ts
 * rateLimiter({ algorithm: tokenBucket({ rate: 100, burst: 20 }) });
 * ```
 */
export type RateLimiterOptions = z.input<typeof RateLimiterOptionsSchema>;
