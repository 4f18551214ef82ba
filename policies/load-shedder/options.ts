import type { Clock } from '../../lib/clock.js';
import { above, below, clock, custom, defineRule, intAtLeast, name, number, object, optional, positiveMs, prefault, withDefault } from '../../lib/options.js';
import { reserveRule, type CriticalityReserve } from '../../lib/shedding.js';
import { isSignalSource, type SignalSource } from '../../lib/signals.js';

/**
 * Options of {@link loadShedder}.
 * @example
 * ```ts
 * loadShedder({ cpuThreshold: 0.8 });
 * ```
 */
export interface LoadShedderOptions {
  /**
   * CPU utilisation (0–1) from which calls may be shed (go-zero: 900‰).
   * @defaultValue 0.9
   */
  cpuThreshold?: number | undefined;
  /**
   * CPU source.
   * @defaultValue `processCpu()`
   */
  cpu?: SignalSource | undefined;
  /**
   * Window of pass counts and response times (go-zero: 5 s).
   * @defaultValue 5_000
   */
  windowMs?: number | undefined;
  /**
   * Buckets of the window (go-zero: 50).
   * @defaultValue 50
   */
  buckets?: number | undefined;
  /**
   * After a drop, keep checking throughput this long even if CPU cools (go-zero: 1 s).
   * @defaultValue 1_000
   */
  coolOffMs?: number | undefined;
  /**
   * Shares of what can be carried kept from the lower criticalities (`ctx.meta.criticality`): while overloaded, a
   * `sheddable` call is dropped once the calls in flight exceed `(1 − sheddable)` of it, a `default` one past
   * `(1 − default)` of it, a `critical` one only past all of it.
   * @defaultValue `{ default: 0, sheddable: 0.1 }`
   * @example
   * ```ts
   * loadShedder({ reserve: { sheddable: 0.5, default: 0.2 } });
   * ```
   */
  reserve?: CriticalityReserve | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'loadShedder'`
   */
  name?: string | undefined;
  /**
   * The clock of the window and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

const OPEN_RATIO = 'expected a number in (0, 1)';

/** The rules of {@link LoadShedderOptions} (`LoadShedderOptionsSchema` in `breakwater/config` says the same). */
export const loadShedderOptions = /* @__PURE__ */ defineRule(() => object({
  cpuThreshold: withDefault(number(OPEN_RATIO, above(0, OPEN_RATIO), below(1, OPEN_RATIO)), 0.9),
  cpu: optional(custom<SignalSource>(isSignalSource, 'expected a number, a function, { value() } or an Observable<number>')),
  windowMs: withDefault(positiveMs, 5_000),
  buckets: withDefault(intAtLeast(2), 50),
  coolOffMs: withDefault(positiveMs, 1_000),
  reserve: prefault(reserveRule, {}),
  name: withDefault(name, 'loadShedder'),
  clock: optional(clock),
}));
