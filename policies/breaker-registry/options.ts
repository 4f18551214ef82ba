import type { Clock } from '../../lib/clock.js';
import { clock, custom, defineRule, name, object, optional, positiveMs, random, withDefault } from '../../lib/options.js';
import type { AdaptiveBreakerOptions } from '../adaptive-breaker/options.js';
import type { CircuitBreakerOptions } from '../circuit-breaker/options.js';
import type { SreBreakerOptions } from '../sre-breaker/options.js';

/** SRE options marked as such: a registry given these makes `sreBreaker`s (go-zero's breaker, exactly). */
export type SreDefaults = SreBreakerOptions & { family: 'sre' };
/** The default breaker's options, optionally marked as such. */
export type AdaptiveDefaults = AdaptiveBreakerOptions & { family?: 'adaptive' };

/** True for an object literal (or one made with a null prototype): not an array, a class instance or a function. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Options of {@link breakerRegistry}.
 * @example
 * ```ts
 * breakerRegistry({ defaults: { strategy: 'errorRatio', threshold: 0.5 }, idleMs: 600_000 });
 * ```
 */
export interface BreakerRegistryOptions {
  /**
   * Options of every breaker the registry makes: the default breaker's (`adaptiveBreaker`), state-machine options
   * (with `trip`, or `strategy`), or SRE options marked `family: 'sre'`. Validated once, at construction, by the breaker's own rules.
   * @defaultValue `{}` (the default breaker with its defaults)
   */
  defaults?: AdaptiveDefaults | SreDefaults | CircuitBreakerOptions | undefined;
  /**
   * A breaker unused for longer than this is dropped, lazily, when the registry is next used (no timer),
   * unless dropping it would change what the key's next call meets: an isolated breaker, a state machine
   * before its open period ends or with a probe unanswered, and a breaker whose window still holds a record
   * are kept (and looked at again after another `idleMs`). So an `idleMs` below `openMs` never cuts an open
   * period short: the breaker sheds for all of it and is dropped once idle after it, its key starting afresh
   * (closed, empty window) instead of half-open. A dropped breaker forgets a streak (`consecutiveFailures`).
   * A state machine with a count window (`window: { type: 'count' }`), which never empties with time, is dropped
   * once idle while closed: idle eviction is the only forgetting such a window has.
   * @defaultValue 300_000
   * @example
   * ```ts
   * breakerRegistry({ idleMs: 600_000 }); // forget tenants silent for 10 minutes
   * ```
   */
  idleMs?: number | undefined;
  /**
   * Prefix of the breakers' names (`name:key`) and the name of a keyed breaker.
   * @defaultValue `'breakers'`
   */
  name?: string | undefined;
  /**
   * Clock of the breakers (unless `defaults` has one) and of idle tracking.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
  /**
   * Random source of the default and SRE breakers (unless `defaults` has one).
   * @defaultValue `Math.random`
   */
  random?: (() => number) | undefined;
}

/** `T` without the keys `K`, for each member of a union. */
type Without<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/**
 * What {@link BreakerRegistry.reconfigure} takes: new defaults (of the same family of breaker) and `idleMs`; the
 * breakers keep their clock, random source and names.
 * @example
 * ```ts
 * registry.reconfigure({ defaults: { trip: 'errorRatio', threshold: 0.3 }, idleMs: 600_000 });
 * ```
 */
export interface BreakerRegistryReload {
  /**
   * Options of every breaker, those held and those made from now on; of the family the registry makes.
   * @defaultValue `{}` (the default breaker with its defaults)
   */
  defaults?: Without<AdaptiveDefaults, 'clock' | 'random' | 'initialState'> | Without<SreDefaults, 'clock' | 'random' | 'initialState'> | Without<CircuitBreakerOptions, 'clock' | 'random' | 'initialState'> | undefined;
  /**
   * A breaker unused for longer than this is dropped (see {@link BreakerRegistryOptions.idleMs}).
   * @defaultValue 300_000
   */
  idleMs?: number | undefined;
}

/** The rules of {@link BreakerRegistryOptions} (`BreakerRegistryOptionsSchema` in `breakwater/config` says the same). */
export const breakerRegistryOptions = /* @__PURE__ */ defineRule(() => object({
  defaults: optional(
    custom<AdaptiveDefaults | SreDefaults | CircuitBreakerOptions>(isPlainObject, "expected breaker options (an object of the default breaker's, circuit-breaker or SRE options)"),
  ),
  idleMs: withDefault(positiveMs, 300_000),
  name: withDefault(name, 'breakers'),
  clock: optional(clock),
  random: optional(random),
}));
