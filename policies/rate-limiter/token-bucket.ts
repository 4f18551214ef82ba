import { checkOptions, defineRule, object, optional } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { EPSILON, retryAfter, type RateAlgorithm } from './algorithm.js';
import { perSecond, positiveInt } from './numbers.js';

/**
 * Options of {@link tokenBucket}.
 * @example
 * ```ts
 * tokenBucket({ rate: 100, burst: 20 });
 * ```
 */
export interface TokenBucketOptions {
  /** Tokens added per second: the sustained rate. */
  rate: number;
  /**
   * Most tokens the bucket holds (it starts full): how many calls may come at once after a quiet spell.
   * @defaultValue `max(1, ceil(rate))`
   */
  burst?: number | undefined;
}

/** The rules of {@link TokenBucketOptions}, key by key. */
export const tokenBucketShape = /* @__PURE__ */ defineRule(() => ({ rate: perSecond, burst: optional(positiveInt) }));

/** The rules of {@link TokenBucketOptions} (`TokenBucketOptionsSchema` in `breakwater/config` says the same). */
export const tokenBucketOptions = /* @__PURE__ */ object(tokenBucketShape);



/**
 * A token bucket: `burst` tokens at most, refilled continuously at `rate`
 * per second, one taken per call. Over any span of `t` seconds it admits at
 * most `rate × t + burst` calls.
 */
export class TokenBucket implements RateAlgorithm {
  readonly kind = 'tokenBucket';
  private refill: number;
  private capacity: number;
  private tokens: number;
  private last = -Infinity;

  constructor(options: TokenBucketOptions) {
    const o = checkOptions(tokenBucketOptions, options, 'tokenBucket');
    this.refill = o.rate;
    this.capacity = o.burst ?? Math.max(1, Math.ceil(o.rate));
    this.tokens = this.capacity;
  }

  /** Tokens per second. */
  get rate(): number {
    return this.refill;
  }

  /** Capacity of the bucket. */
  get burst(): number {
    return this.capacity;
  }

  /**
   * Hot reload: a new `rate` and `burst`, keeping the tokens the bucket holds (at most the new burst); the refill
   * since the last call counts at the new rate. A bad option is a `ConfigError` and changes nothing.
   */
  reconfigure(options: TokenBucketOptions): void {
    const o = checkOptions(tokenBucketOptions, options, 'tokenBucket');
    this.refill = o.rate;
    this.capacity = o.burst ?? Math.max(1, Math.ceil(o.rate));
    if (this.tokens > this.capacity) this.tokens = this.capacity;
  }

  acquire(ctx: ExecutionContext, reserve = 0): number {
    return this.take(ctx.clock.now(), reserve);
  }

  /** True when the bucket is full at clock time `now`: it then admits what a new bucket would. */
  idle(now: number): boolean {
    return this.last === -Infinity || this.tokens + ((now - this.last) * this.refill) / 1000 >= this.capacity - EPSILON;
  }

  /**
   * Takes a token at clock time `now`: 0 when there was one, else the
   * milliseconds until there will be. A call with a `reserve` takes one only
   * while more than `reserve × burst` tokens are left (less than
   * `1 − reserve` of the bucket used).
   */
  take(now: number, reserve = 0): number {
    if (now > this.last) {
      if (this.last !== -Infinity) this.tokens = Math.min(this.capacity, this.tokens + ((now - this.last) * this.refill) / 1000);
      this.last = now;
    }
    const kept = reserve * this.capacity;
    if (this.tokens >= 1 - EPSILON && this.tokens > kept + EPSILON) {
      this.tokens -= 1;
      return 0;
    }
    // Past a reserve the call needs strictly more than `kept`: a sliver more than the time to reach it.
    const need = kept >= 1 ? kept + 1e-3 * (this.refill / 1000) : 1;
    return retryAfter(((need - this.tokens) * 1000) / this.refill);
  }
}

/**
 * Makes a {@link TokenBucket} for {@link rateLimiter}: `rate` per second
 * sustained, bursts of up to `burst` (default `ceil(rate)`).
 *
 * @example
 * ```ts
 * const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 100, burst: 20 }) });
 * ```
 */
export function tokenBucket(options: TokenBucketOptions): TokenBucket {
  return new TokenBucket(options);
}
