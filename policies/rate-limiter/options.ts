import { z } from 'zod';
import { clockSchema, nameSchema } from '../../lib/schemas.js';
import { isRateAlgorithm, type RateAlgorithm } from './algorithm.js';
import { LeakyBucketOptionsSchema } from './leaky-bucket.js';
import { SlidingWindowOptionsSchema } from './sliding-window.js';
import { TokenBucketOptionsSchema } from './token-bucket.js';

const ALGORITHM_EXPECTED =
  "expected a rate algorithm (tokenBucket(...), leakyBucket(...), slidingWindow(...), redisTokenBucket(...)) or one as data ({ kind: 'tokenBucket' | 'leakyBucket' | 'slidingWindow', ... })";

/**
 * An algorithm as plain data, for config files: `{ kind: 'tokenBucket', rate, burst }`,
 * `{ kind: 'leakyBucket', rate, capacity }` or `{ kind: 'slidingWindow', limit, windowMs, buckets? }`.
 */
export const RateAlgorithmConfigSchema = z.discriminatedUnion(
  'kind',
  [
    TokenBucketOptionsSchema.extend({ kind: z.literal('tokenBucket') }).strict(),
    LeakyBucketOptionsSchema.extend({ kind: z.literal('leakyBucket') }).strict(),
    SlidingWindowOptionsSchema.extend({ kind: z.literal('slidingWindow') }).strict(),
  ],
  { message: ALGORITHM_EXPECTED },
);

/**
 * An algorithm as plain data.
 * @example
 * ```ts
 * rateLimiter({ algorithm: { kind: 'tokenBucket', rate: 100, burst: 20 } });
 * ```
 */
export type RateAlgorithmConfig = z.input<typeof RateAlgorithmConfigSchema>;

/** Options of {@link rateLimiter}. */
export const RateLimiterOptionsSchema = z
  .object({
    /**
     * The algorithm and its limit: `tokenBucket(...)`, `leakyBucket(...)`, `slidingWindow(...)`, `redisTokenBucket(...)`,
     * or the same as data (`{ kind: 'tokenBucket', rate: 100, burst: 20 }`).
     */
    algorithm: z.union([
      RateAlgorithmConfigSchema,
      z.custom<RateAlgorithm>(isRateAlgorithm, { message: ALGORITHM_EXPECTED }),
    ]),
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
