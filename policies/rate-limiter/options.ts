import type { Clock } from '../../lib/clock.js';
import { clock, custom, defineRule, discriminated, either, name, object, oneOf, optional, prefault, withDefault } from '../../lib/options.js';
import { reserveRule, type CriticalityReserve } from '../../lib/shedding.js';
import { isRateAlgorithm, type RateAlgorithm } from './algorithm.js';
import { leakyBucketShape, type LeakyBucketOptions } from './leaky-bucket.js';
import { slidingWindowShape, type SlidingWindowOptions } from './sliding-window.js';
import { tokenBucketShape, type TokenBucketOptions } from './token-bucket.js';

const ALGORITHM_EXPECTED =
  "expected a rate algorithm (tokenBucket(...), leakyBucket(...), slidingWindow(...), redisTokenBucket(...)) or one as data ({ kind: 'tokenBucket' | 'leakyBucket' | 'slidingWindow', ... })";

/**
 * An algorithm as plain data, for config files: `{ kind: 'tokenBucket', rate, burst }`,
 * `{ kind: 'leakyBucket', rate, capacity }` or `{ kind: 'slidingWindow', limit, windowMs, buckets? }`.
 * @example
 * ```ts
 * rateLimiter({ algorithm: { kind: 'tokenBucket', rate: 100, burst: 20 } });
 * ```
 */
export type RateAlgorithmConfig = TokenBucketConfig | LeakyBucketConfig | SlidingWindowConfig;

/** A {@link tokenBucket} as data. */
export interface TokenBucketConfig extends TokenBucketOptions {
  /** Which algorithm. */
  kind: 'tokenBucket';
}

/** A {@link leakyBucket} as data. */
export interface LeakyBucketConfig extends LeakyBucketOptions {
  /** Which algorithm. */
  kind: 'leakyBucket';
}

/** A {@link slidingWindow} as data. */
export interface SlidingWindowConfig extends SlidingWindowOptions {
  /** Which algorithm. */
  kind: 'slidingWindow';
}

/** The rules of {@link RateAlgorithmConfig} (`RateAlgorithmConfigSchema` in `breakwater/config` says the same). */
export const rateAlgorithmConfig = /* @__PURE__ */ defineRule(() => discriminated(
  'kind',
  {
    tokenBucket: object({ ...tokenBucketShape, kind: oneOf(['tokenBucket']) }),
    leakyBucket: object({ ...leakyBucketShape, kind: oneOf(['leakyBucket']) }),
    slidingWindow: object({ ...slidingWindowShape, kind: oneOf(['slidingWindow']) }),
  },
  ALGORITHM_EXPECTED,
));

/**
 * Options of {@link rateLimiter}.
 * @example
 * ```ts
 * rateLimiter({ algorithm: tokenBucket({ rate: 100, burst: 20 }) });
 * ```
 */
export interface RateLimiterOptions {
  /**
   * The algorithm and its limit: `tokenBucket(...)`, `leakyBucket(...)`, `slidingWindow(...)`, `redisTokenBucket(...)`,
   * or the same as data (`{ kind: 'tokenBucket', rate: 100, burst: 20 }`).
   */
  algorithm: RateAlgorithmConfig | RateAlgorithm;
  /**
   * Shares of the limit kept from the lower criticalities (`ctx.meta.criticality`): a `sheddable` call is admitted only
   * while less than `1 − sheddable` of the limit is used (a token bucket keeps `sheddable × burst` tokens from it, a
   * sliding window `sheddable × limit` calls, a leaky bucket `sheddable × capacity` queue places), a `default` one under
   * `1 − default`; a `critical` one may use all. An algorithm of your own that ignores `acquire`'s second argument
   * treats every criticality alike.
   * @defaultValue `{ default: 0, sheddable: 0.1 }`
   * @example
   * ```ts
   * rateLimiter({ algorithm: tokenBucket({ rate: 100, burst: 50 }), reserve: { sheddable: 0.4 } });
   * ```
   */
  reserve?: CriticalityReserve | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'rateLimiter'`
   */
  name?: string | undefined;
  /**
   * The clock of the limit and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link RateLimiterOptions} (`RateLimiterOptionsSchema` in `breakwater/config` says the same). */
export const rateLimiterOptions = /* @__PURE__ */ defineRule(() => object({
  algorithm: either(rateAlgorithmConfig, custom<RateAlgorithm>(isRateAlgorithm, ALGORITHM_EXPECTED)),
  reserve: prefault(reserveRule, {}),
  name: withDefault(name, 'rateLimiter'),
  clock: optional(clock),
}));
