import { z } from 'zod';
import { parseOptions, positiveMs } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { retryAfter, type RateAlgorithm } from './algorithm.js';
import { positiveInt } from './numbers.js';

/** Options of {@link slidingWindow}. */
export const SlidingWindowOptionsSchema = z
  .object({
    /** Most calls admitted within any window of `windowMs`. */
    limit: positiveInt,
    /** Length of the window in milliseconds. */
    windowMs: positiveMs,
  })
  .strict();

/**
 * Options of {@link slidingWindow}.
 * @example
 * ```ts
 * slidingWindow({ limit: 100, windowMs: 1_000 });
 * ```
 */
export type SlidingWindowOptions = z.input<typeof SlidingWindowOptionsSchema>;

/**
 * An exact sliding window (a sliding log): at most `limit` calls in any
 * window of `windowMs`. It keeps the times of the last `limit` admitted
 * calls in a ring (8 bytes each), so a refusal knows exactly when the
 * oldest leaves the window.
 */
export class SlidingWindow implements RateAlgorithm {
  readonly kind = 'slidingWindow';
  readonly limit: number;
  readonly windowMs: number;
  private readonly times: Float64Array;
  private next = 0;
  private count = 0;

  constructor(options: SlidingWindowOptions) {
    const o = parseOptions(SlidingWindowOptionsSchema, options, 'slidingWindow');
    this.limit = o.limit;
    this.windowMs = o.windowMs;
    this.times = new Float64Array(o.limit);
  }

  acquire(ctx: ExecutionContext): number {
    return this.take(ctx.clock.now());
  }

  /** Admits a call at clock time `now` (0), or says in how many milliseconds one would be. */
  take(now: number): number {
    if (this.count < this.limit) {
      this.count++;
    } else {
      // the slot to overwrite holds the oldest of the last `limit` admissions
      const oldest = this.times[this.next]!;
      if (oldest + this.windowMs > now) return retryAfter(oldest + this.windowMs - now);
    }
    this.times[this.next] = now;
    this.next = this.next + 1 === this.limit ? 0 : this.next + 1;
    return 0;
  }
}

/**
 * Makes a {@link SlidingWindow} for {@link rateLimiter}: at most `limit`
 * calls in any `windowMs`.
 *
 * @example
 * ```ts
 * const limiter = rateLimiter({ algorithm: slidingWindow({ limit: 600, windowMs: 60_000 }) });
 * ```
 */
export function slidingWindow(options: SlidingWindowOptions): SlidingWindow {
  return new SlidingWindow(options);
}
