import { z } from 'zod';
import { clockSchema, nameSchema, positiveMs, reserveSchema } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { isRateAlgorithm, type RateAlgorithm } from './algorithm.js';
import { MAX_BUCKETS } from './sliding-window.js';

// The zod forms of the numbers of numbers.ts (breakwater/redis builds its schema from them too).
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

/** An integer in [`min`, `max`]. */
export const intInRange = (min: number, max: number) => {
  const message = `expected an integer in [${min}, ${max}]`;
  return z.number({ message }).int({ message }).min(min, { message }).max(max, { message });
};

/** The zod schema of the options of `tokenBucket`, for `fromConfig` and the JSON Schema. */
export const TokenBucketOptionsSchema = z
  .object({
    /** Tokens added per second: the sustained rate. */
    rate: perSecond,
    /**
     * Most tokens the bucket holds (it starts full): how many calls may come at once after a quiet spell.
     * @defaultValue `max(1, ceil(rate))`
     */
    burst: positiveInt.optional(),
  })
  .strict();

/** The zod schema of the options of `leakyBucket`, for `fromConfig` and the JSON Schema. */
export const LeakyBucketOptionsSchema = z
  .object({
    /** Calls released per second, evenly spaced (one every `1000 / rate` ms). */
    rate: perSecond,
    /**
     * Most calls waiting to be released; the rest are refused with `RateLimitedError`.
     * @defaultValue `max(1, ceil(rate))` (about a second of waiting)
     */
    capacity: nonNegativeInt.optional(),
  })
  .strict();

/** The zod schema of the options of `slidingWindow`, for `fromConfig` and the JSON Schema. */
export const SlidingWindowOptionsSchema = z
  .object({
    /** Most calls admitted within any window of `windowMs`; a safe integer >= 1. */
    limit: intInRange(1, Number.MAX_SAFE_INTEGER),
    /** Length of the window in milliseconds. */
    windowMs: positiveMs,
    /**
     * How many buckets the window is counted in. A call may be refused up to
     * one bucket (`windowMs / buckets`) before an exact log would admit it;
     * memory is 8 bytes per bucket, whatever the limit.
     * @defaultValue 100
     * @example
     * ```ts
     * slidingWindow({ limit: 100_000_000, windowMs: 86_400_000, buckets: 1_440 }); // a daily quota counted per minute
     * ```
     */
    buckets: intInRange(1, MAX_BUCKETS).default(100),
  })
  .strict();

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

/** The zod schema of the options of `rateLimiter`, for `fromConfig` and the JSON Schema. */
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
    /** Shares of the limit kept from default and sheddable calls. @defaultValue `{ default: 0, sheddable: 0.1 }` */
    reserve: reserveSchema.prefault({}),
    /** @defaultValue `'rateLimiter'` */
    name: nameSchema.default('rateLimiter'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

const KEYED_ALGORITHM = "expected a rate algorithm as data ({ kind: 'tokenBucket' | 'leakyBucket' | 'slidingWindow', ... }) or a function (key) => RateAlgorithm";

/** The zod schema of the options of `keyedRate`, for `fromConfig` and the JSON Schema. */
export const KeyedRateOptionsSchema = z
  .object({
    /** The call's key: each key has its own limit. */
    key: z.custom<(ctx: ExecutionContext) => string>((v) => typeof v === 'function', { message: 'expected a function (ctx) => string' }),
    /** Each key's limit: an algorithm as data, made anew for each key, or a function `(key) => RateAlgorithm`. */
    algorithm: z.union([RateAlgorithmConfigSchema, z.custom<(key: string) => RateAlgorithm>((v) => typeof v === 'function', { message: KEYED_ALGORITHM })]),
    /** Most keys held at once; a new key that finds them all busy is refused. @defaultValue 10_000 */
    maxKeys: positiveInt.default(10_000),
    /** A key unused for longer than this is dropped, if its algorithm holds nothing. @defaultValue 300_000 */
    idleMs: positiveMs.default(300_000),
  })
  .strict();
