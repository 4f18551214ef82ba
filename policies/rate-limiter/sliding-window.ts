import { checkOptions, refuseReshape, defineRule, object, positiveMs, withDefault } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { retryAfter, type RateAlgorithm } from './algorithm.js';
import { intInRange } from './numbers.js';

/** The most buckets a window may have: enough precision for any window, and a bound on its memory (80 KiB). */
export const MAX_BUCKETS = 10_000;

/**
 * Options of {@link slidingWindow}.
 * @example
 * ```ts
 * slidingWindow({ limit: 100, windowMs: 1_000 });
 * ```
 */
export interface SlidingWindowOptions {
  /** Most calls admitted within any window of `windowMs`; a safe integer >= 1. */
  limit: number;
  /** Length of the window in milliseconds. */
  windowMs: number;
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
  buckets?: number | undefined;
}

/** The rules of {@link SlidingWindowOptions}, key by key. */
export const slidingWindowShape = /* @__PURE__ */ defineRule(() => ({
  limit: intInRange(1, Number.MAX_SAFE_INTEGER),
  windowMs: positiveMs,
  buckets: withDefault(intInRange(1, MAX_BUCKETS), 100),
}));

/** The rules of {@link SlidingWindowOptions} (`SlidingWindowOptionsSchema` in `breakwater/config` says the same). */
export const slidingWindowOptions = /* @__PURE__ */ object(slidingWindowShape);



/**
 * A sliding window counted in `buckets` buckets of `windowMs / buckets`:
 * at most `limit` calls in any span of `windowMs`. A call is admitted while
 * the current bucket and the `buckets` before it hold fewer than `limit`
 * calls; those cover the whole window and at most one bucket more, so it
 * may refuse up to one bucket early but never admits too many. Memory is
 * one count per bucket, whatever the limit.
 */
export class SlidingWindow implements RateAlgorithm {
  readonly kind = 'slidingWindow';
  readonly windowMs: number;
  readonly buckets: number;
  /** Admissions per bucket, a ring over the current bucket and the `buckets` before it. */
  private readonly counts: Float64Array;
  private total = 0;
  /** Clock time bucket 0 starts at: the first call's, so bucket edges are exact integers of a whole-ms clock. */
  private origin = Number.NaN;
  /** Index of the latest bucket seen (buckets count from `origin`). */
  private head = 0;
  /** While refusing: the bucket at which a call is admitted again (nothing changes until then). */
  private reopens = -1;
  private max: number;

  constructor(options: SlidingWindowOptions) {
    const o = checkOptions(slidingWindowOptions, options, 'slidingWindow');
    this.max = o.limit;
    this.windowMs = o.windowMs;
    this.buckets = o.buckets;
    this.counts = new Float64Array(o.buckets + 1);
  }

  /** Most calls admitted in any `windowMs`. */
  get limit(): number {
    return this.max;
  }

  /**
   * Hot reload: a new `limit`, keeping the calls the window already counts (a lower limit refuses until they
   * leave it). `windowMs` and `buckets` shape the window: a change of either is a `ConfigError` naming it, as is a
   * bad limit; neither changes anything.
   */
  reconfigure(options: SlidingWindowOptions): void {
    const o = checkOptions(slidingWindowOptions, options, 'slidingWindow');
    refuseReshape('slidingWindow', ['windowMs', 'buckets'], this, o, 'window', 'limiter');
    this.max = o.limit;
    this.reopens = -1;
  }

  acquire(ctx: ExecutionContext, reserve = 0): number {
    return this.take(ctx.clock.now(), reserve);
  }

  /**
   * Admits a call at clock time `now` (0), or says in how many milliseconds
   * one would be. A call with a `reserve` is admitted only while the window
   * holds fewer than `limit × (1 − reserve)` calls.
   */
  take(now: number, reserve = 0): number {
    if (Number.isNaN(this.origin)) this.origin = now;
    this.advance(this.indexOf(now));
    const bound = this.max * (1 - reserve);
    if (this.total < bound) {
      this.counts[this.head % this.counts.length]!++;
      this.total++;
      this.reopens = -1;
      return 0;
    }
    // The bucket that reopens the whole limit is kept until then; one for a reserve is found anew.
    let reopens: number;
    if (reserve > 0) reopens = this.reopening(bound);
    else {
      if (this.reopens <= this.head) this.reopens = this.reopening(this.max);
      reopens = this.reopens;
    }
    // Bucket j starts at origin + j·windowMs/buckets; the product first keeps whole-ms edges exact.
    let wait = retryAfter(this.origin + (reopens * this.windowMs) / this.buckets - now);
    while (this.indexOf(now + wait) < reopens) wait++;
    return wait;
  }

  /** True when nothing admitted is left in the window at clock time `now`. */
  idle(now: number): boolean {
    return this.total === 0 || Number.isNaN(this.origin) || this.indexOf(now) - this.head >= this.counts.length;
  }

  /** The bucket of clock time `t`; a clock that steps back stays in the latest bucket (counting longer is the safe side). */
  private indexOf(t: number): number {
    return Math.max(this.head, Math.floor(((t - this.origin) * this.buckets) / this.windowMs));
  }

  /** Moves the head to bucket `index`, emptying the buckets that left the window on the way. */
  private advance(index: number): void {
    const ring = this.counts.length;
    if (index - this.head >= ring) {
      this.counts.fill(0);
      this.total = 0;
    } else {
      for (let i = this.head + 1; i <= index; i++) {
        this.total -= this.counts[i % ring]!;
        this.counts[i % ring] = 0;
      }
    }
    this.head = index;
  }

  /** The first bucket after the head at which, with no new admission, the counted buckets hold fewer than `bound`. */
  private reopening(bound: number): number {
    const ring = this.counts.length;
    let left = this.total;
    for (let m = 1; ; m++) {
      // moving the head m buckets on drops bucket head - buckets + m - 1, the oldest still counted
      left -= this.counts[(this.head + m) % ring]!;
      if (left < bound) return this.head + m;
    }
  }
}

/**
 * Makes a {@link SlidingWindow} for {@link rateLimiter}: at most `limit`
 * calls in any `windowMs`, counted in `buckets` buckets (default 100).
 *
 * @example
 * ```ts
 * const limiter = rateLimiter({ algorithm: slidingWindow({ limit: 600, windowMs: 60_000 }) });
 * ```
 */
export function slidingWindow(options: SlidingWindowOptions): SlidingWindow {
  return new SlidingWindow(options);
}
