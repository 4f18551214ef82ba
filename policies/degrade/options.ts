import type { Clock } from '../../lib/clock.js';
import { clock, custom, defineRule, fn, name, object, optional, positiveMs, record, withDefault } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { DecisionTree } from './decision-tree.js';
import { isSignalSource, type SignalSource } from '../../lib/signals.js';

/** What a degrade handler is told: the action the decision named and the signal values it saw. */
export interface DegradeInfo {
  /** The decision tree's action (`'shedNonCore'`, `'serveFromCache'`, `'limitAndSample'`) or `'custom'` for a predicate. */
  readonly action: string;
  /** Every signal's value at the decision (`qps`, `cpu`, `health` and any of yours). */
  readonly signals: Readonly<Record<string, number>>;
}

/** Answers a call that `degrade` decided not to make. */
export type DegradeHandler<F> = (info: DegradeInfo, ctx: ExecutionContext) => F | PromiseLike<F>;

/** A predicate over the current signal values: `true` degrades. */
export type DegradePredicate = (signals: Readonly<Record<string, number>>) => boolean;

/**
 * Options of {@link degrade}; `to`'s answer type becomes the policy's `T`.
 * @example
 * ```ts
 * degrade({ when: decisionTree(), signals: { health: healthOf(breaker, { clock }) }, to: () => CACHED });
 * ```
 */
export interface DegradeOptions<F> {
  /** The decision: `decisionTree(...)` or a predicate over the signals. */
  when: DecisionTree | DegradePredicate;
  /**
   * Signal sources by name. `qps` defaults to this policy's own request rate, `cpu` to `processCpu()`,
   * `health` to 1; add any others a predicate reads.
   * @defaultValue `{}`
   */
  signals?: Record<string, SignalSource> | undefined;
  /** Answers degraded calls. */
  to: DegradeHandler<F>;
  /**
   * Window of the own request-rate signal.
   * @defaultValue 10_000
   */
  rateWindowMs?: number | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'degrade'`
   */
  name?: string | undefined;
  /**
   * The clock of the rate window and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link DegradeOptions} (`DegradeOptionsSchema` in `breakwater/config` says the same). */
export const degradeOptions = /* @__PURE__ */ defineRule(() => object({
  when: custom<DecisionTree | DegradePredicate>((v) => v instanceof DecisionTree || typeof v === 'function', 'expected decisionTree(...) or a predicate (signals) => boolean'),
  signals: withDefault(record(custom<SignalSource>(isSignalSource, 'expected a number, a function, { value() } or an Observable<number>')), {}),
  to: fn<DegradeHandler<unknown>>('expected a handler function (info, ctx) => value'),
  rateWindowMs: withDefault(positiveMs, 10_000),
  name: withDefault(name, 'degrade'),
  clock: optional(clock),
}));
