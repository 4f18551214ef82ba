import type { Clock } from '../../lib/clock.js';
import { clock, intAtLeast, name, object, optional, withDefault } from '../../lib/options.js';

/**
 * Options of {@link bulkhead}.
 * @example
 * ```ts
 * bulkhead({ limit: 10, queue: 50 });
 * ```
 */
export interface BulkheadOptions {
  /** Most calls running at once. */
  limit: number;
  /**
   * Most calls waiting for a slot, in arrival order; the rest are rejected with `BulkheadRejectedError`.
   * @defaultValue 0 (no queue)
   */
  queue?: number | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'bulkhead'`
   */
  name?: string | undefined;
  /**
   * The clock of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link BulkheadOptions} (`BulkheadOptionsSchema` in `breakwater/config` says the same). */
export const bulkheadOptions = object({
  limit: intAtLeast(1),
  queue: withDefault(intAtLeast(0), 0),
  name: withDefault(name, 'bulkhead'),
  clock: optional(clock),
});
