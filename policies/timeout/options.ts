import type { Clock } from '../../lib/clock.js';
import { clock, defineRule, name, object, oneOf, optional, positiveMs, withDefault } from '../../lib/options.js';

/**
 * What {@link timeout} accepts besides a plain number of milliseconds.
 * @example
 * ```ts
 * timeout({ ms: 300, mode: 'cooperative' });
 * ```
 */
export interface TimeoutOptions {
  /** Milliseconds each call may take. */
  ms: number;
  /**
   * `'aggressive'`: reject with `TimeoutError` exactly at the deadline, even while the operation runs on.
   * `'cooperative'`: abort `ctx.signal` at the deadline, then wait for the operation and reject only if it rejects.
   * @defaultValue `'aggressive'`
   */
  mode?: 'aggressive' | 'cooperative' | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'timeout'`
   */
  name?: string | undefined;
  /**
   * The clock of the deadline and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link TimeoutOptions} (`TimeoutOptionsSchema` in `breakwater/config` says the same). */
export const timeoutOptions = /* @__PURE__ */ defineRule(() => object({
  ms: positiveMs,
  mode: withDefault(oneOf(['aggressive', 'cooperative']), 'aggressive'),
  name: withDefault(name, 'timeout'),
  clock: optional(clock),
}));
