import type { Clock } from '../../lib/clock.js';
import { clock, defineRule, nonNegativeMs, object, optional, withDefault } from '../../lib/options.js';

/**
 * Options of {@link logEvents}.
 * @example
 * ```ts
 * logEvents(pipeline, pino(), { rateLimitMs: 5_000 });
 * ```
 */
export interface LogEventsOptions {
  /**
   * At most one line per policy and kind of event in this many milliseconds; the
   * rest are counted, and the last of them is logged when the interval ends,
   * with `suppressed` saying how many were not. 0 logs every event.
   * @defaultValue 1000
   */
  rateLimitMs?: number | undefined;
  /** @defaultValue the system clock */
  clock?: Clock | undefined;
}

/** The rules of {@link LogEventsOptions} (`LogEventsOptionsSchema` in `breakwater/config` says the same). */
export const logEventsOptions = /* @__PURE__ */ defineRule(() => object({
  rateLimitMs: withDefault(nonNegativeMs, 1_000),
  clock: optional(clock),
}));
