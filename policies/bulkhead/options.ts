import type { Clock } from '../../lib/clock.js';
import { clock, defineRule, intAtLeast, name, object, optional, prefault, withDefault } from '../../lib/options.js';
import { partitionByRule, partitionsRule, reserveRule, type CriticalityReserve } from '../../lib/shedding.js';

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
   * Shares of `limit` kept from the lower criticalities (`ctx.meta.criticality`): a `sheddable` call runs only while
   * fewer than `limit × (1 − sheddable)` calls run, a `default` one while fewer than `limit × (1 − default)`; a
   * `critical` one may use every slot. Waiters are served most critical first.
   * @defaultValue `{ default: 0, sheddable: 0.1 }`
   * @example
   * ```ts
   * bulkhead({ limit: 20, reserve: { sheddable: 0.3 } }); // sheddable calls hold at most 13 slots
   * ```
   */
  reserve?: CriticalityReserve | undefined;
  /**
   * Shares of `limit` guaranteed to classes of calls, by the value of `ctx.meta[partitionBy]` (Netflix
   * concurrency-limits' partitions): a class is guaranteed `ceil(limit × share)` slots, borrows slots others leave
   * idle, and while under its share takes the next free slot before any class over it. Shares are in (0, 1] and add
   * up to at most 1; calls of no partition only borrow.
   * @defaultValue none: one pool for all calls
   * @example
   * ```ts
   * bulkhead({ limit: 10, queue: 20, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' });
   * ```
   */
  partitions?: Record<string, number> | undefined;
  /**
   * The `ctx.meta` key whose value names a call's partition; `'criticality'` reads a missing or unknown value as
   * `'default'`.
   * @defaultValue `'criticality'`
   */
  partitionBy?: string | undefined;
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
export const bulkheadOptions = /* @__PURE__ */ defineRule(() => object({
  limit: intAtLeast(1),
  queue: withDefault(intAtLeast(0), 0),
  reserve: prefault(reserveRule, {}),
  partitions: optional(partitionsRule),
  partitionBy: partitionByRule,
  name: withDefault(name, 'bulkhead'),
  clock: optional(clock),
}));
