import type { Clock } from '../../lib/clock.js';
import { anything, boolean, clock, defineRule, either, fn, name, nonNegativeMs, object, optional, random, ratio, withDefault } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';

/** What an injected fault throws: a value, or `(ctx) => value` made fresh per call. */
export type ChaosFault = ((ctx: ExecutionContext) => unknown) | {} | null;

/** Makes the substitute result of an injected call. */
export type ChaosResult<T> = (ctx: ExecutionContext) => T | PromiseLike<T>;

/**
 * Options of {@link chaos}; `T` is the substitute result's type.
 * @example
 * ```ts
 * chaos({ fault: () => new Error('injected'), injectionRate: 0.05, random: seededRandom(1) });
 * ```
 */
export interface ChaosOptions<T = never> {
  /**
   * What an injected fault throws: any value, or a function `(ctx) => value` that makes a fresh one per call
   * (a function is always called, never thrown itself).
   * @defaultValue no fault
   */
  fault?: ChaosFault;
  /**
   * Latency added before the call goes on: milliseconds, or `(ctx) => ms`. Cancellable: the caller's abort or
   * an enclosing deadline ends it at once.
   * @defaultValue no latency
   */
  latency?: number | ((ctx: ExecutionContext) => number) | undefined;
  /**
   * Substitute result of an injected call: `(ctx) => value`; the operation does not run. Exclusive with `fault`.
   * @defaultValue no substitute result
   */
  result?: ChaosResult<T>;
  /**
   * Share of calls injected, in [0, 1].
   * @defaultValue 0.001 (Polly's default)
   */
  injectionRate?: number | undefined;
  /**
   * Whether to inject at all: a boolean, or `(ctx) => boolean` asked on every call. `enable()` / `disable()`
   * switch the policy at run time on top of it.
   * @defaultValue true
   */
  enabled?: boolean | ((ctx: ExecutionContext) => boolean) | undefined;
  /**
   * Random source in [0, 1) for the injection draw.
   * @defaultValue `Math.random`
   */
  random?: (() => number) | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'chaos'`
   */
  name?: string | undefined;
  /**
   * The clock of the latency and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link ChaosOptions} (`ChaosOptionsSchema` in `breakwater/config` says the same). */
export const chaosOptions = /* @__PURE__ */ defineRule(() => object(
  {
    fault: anything,
    latency: optional(either(nonNegativeMs, fn<(ctx: ExecutionContext) => number>())),
    result: optional(fn<ChaosResult<unknown>>()),
    injectionRate: withDefault(ratio, 0.001),
    enabled: withDefault(either(boolean, fn<(ctx: ExecutionContext) => boolean>()), true),
    random: optional(random),
    name: withDefault(name, 'chaos'),
    clock: optional(clock),
  },
  (o, add) => {
    if (o.fault === undefined && o.latency === undefined && o.result === undefined) add('give at least one of fault, latency or result', ['fault']);
  },
  (o, add) => {
    if (o.fault !== undefined && o.result !== undefined) add('fault and result are exclusive (pipe two chaos policies to have both)', ['result']);
  },
));
