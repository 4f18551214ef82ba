import type { Clock } from '../../lib/clock.js';
import { above, atLeast, atMost, clock, defineRule, discriminated, either, fn, intAtLeast, name, number, numberAtLeast, object, oneOf, optional, positiveMs, prefault, type Rule, type RuleOutput, satisfies, whenValid, withDefault } from '../../lib/options.js';
import { partitionByRule, partitionsRule, reserveRule, type CriticalityReserve } from '../../lib/shedding.js';

/** Options of the gradient algorithm (Netflix concurrency-limits' Gradient2). */
export interface GradientOptions {
  kind: 'gradient';
  /**
   * How much slower than the no-load baseline a window's mean response time may be before the limit is lowered
   * (Gradient2 `rttTolerance`).
   * @defaultValue 1.5
   */
  tolerance?: number | undefined;
  /**
   * Share of the new estimate taken when lowering the limit (Gradient2 `smoothing`); growth is not smoothed.
   * @defaultValue 0.2
   */
  smoothing?: number | undefined;
  /**
   * How much the limit grows per window while response times stay near the baseline (Gradient2 `queueSize`).
   * @defaultValue 4
   */
  queueSize?: number | undefined;
  /**
   * Factor the limit is multiplied by after a window with a drop (a timeout, or an overload error).
   * @defaultValue 0.9
   */
  backoffRatio?: number | undefined;
  /**
   * Windows the no-load baseline averages over (Gradient2 `longWindow`): the larger, the slower it follows a
   * dependency that gets slower for good.
   * @defaultValue 600
   */
  baselineWindows?: number | undefined;
}

/** Options of the AIMD algorithm: additive increase, multiplicative decrease on drops. */
export interface AimdOptions {
  kind: 'aimd';
  /**
   * Factor the limit is multiplied by after a window with a drop (Netflix AIMD `backoffRatio`).
   * @defaultValue 0.9
   */
  backoffRatio?: number | undefined;
  /**
   * How much the limit grows per window without a drop while at least half of it is in use.
   * @defaultValue 1
   */
  increase?: number | undefined;
  /**
   * An answer slower than this many milliseconds counts as a drop (Netflix AIMD `timeout`).
   * @defaultValue none: only timeouts and overload errors are drops
   */
  slowMs?: number | undefined;
}

/** Options of the Vegas algorithm: the limit follows an estimate of the calls queued at the dependency. */
export interface VegasOptions {
  kind: 'vegas';
  /**
   * Below `alpha × log10(limit)` estimated queued calls the limit grows (Netflix Vegas `alpha`).
   * @defaultValue 3
   */
  alpha?: number | undefined;
  /**
   * Above `beta × log10(limit)` estimated queued calls the limit shrinks (Netflix Vegas `beta`); must exceed `alpha`.
   * @defaultValue 6
   */
  beta?: number | undefined;
}

/**
 * Options of {@link adaptiveLimiter}. The defaults suit a Node service
 * calling an HTTP dependency with a per-attempt timeout of a few hundred
 * milliseconds; docs/adaptive-limiting.md gives the reasoning.
 *
 * @example
 * ```ts
 * adaptiveLimiter({ algorithm: 'aimd', initialLimit: 10, maxLimit: 100 });
 * ```
 */
export interface AdaptiveLimiterOptions {
  /**
   * How the limit moves: `'gradient'` (response times against a no-load baseline, Netflix's Gradient2), `'aimd'`
   * (grow by a step, shrink on drops) or `'vegas'` (an estimate of the calls queued at the dependency); or an
   * object with `kind` and that algorithm's tuning.
   * @defaultValue `'gradient'`
   */
  algorithm?: 'gradient' | 'aimd' | 'vegas' | GradientOptions | AimdOptions | VegasOptions | undefined;
  /**
   * The limit before the first window has been measured.
   * @defaultValue 20
   */
  initialLimit?: number | undefined;
  /**
   * The limit never falls below this.
   * @defaultValue 1
   */
  minLimit?: number | undefined;
  /**
   * The limit never rises above this.
   * @defaultValue 200
   */
  maxLimit?: number | undefined;
  /**
   * Shortest sampling window in milliseconds: the limit moves at most once per window, which lasts at least this long
   * and at least twice the fastest answer it saw (Netflix's `minWindowTime`).
   * @defaultValue 100
   */
  windowMs?: number | undefined;
  /**
   * A window that has not measured `minSamples` calls after this many milliseconds is discarded unused, so a quiet
   * period never moves the limit on a handful of calls.
   * @defaultValue 1_000
   */
  maxWindowMs?: number | undefined;
  /**
   * Calls a window must measure before it can move the limit.
   * @defaultValue 10
   */
  minSamples?: number | undefined;
  /**
   * Which thrown values say the dependency is overloaded (an HTTP 429 or 503, a gRPC RESOURCE_EXHAUSTED): they count as
   * drops, like timeouts. Other failures are not measured: a dependency that fails fast tells nothing of its capacity,
   * and its fast answers would drag the baseline down.
   * @defaultValue none: only timeouts are drops
   */
  isOverload?: ((error: unknown) => boolean) | undefined;
  /**
   * Shares of the limit kept from the lower criticalities (`ctx.meta.criticality`): a `sheddable` call is admitted only
   * while fewer than `limit × (1 − sheddable)` calls are in flight, a `default` one while fewer than
   * `limit × (1 − default)`; a `critical` one up to the limit.
   * @defaultValue `{ default: 0, sheddable: 0.1 }`
   * @example
   * ```ts
   * adaptiveLimiter({ reserve: { sheddable: 0.3, default: 0.1 } });
   * ```
   */
  reserve?: CriticalityReserve | undefined;
  /**
   * Shares of the limit guaranteed to classes of calls, by the value of `ctx.meta[partitionBy]` (Netflix
   * concurrency-limits' partitions): a class with fewer than `ceil(limit × share)` calls in flight is admitted even at
   * the limit; beyond its share it borrows what others leave idle. Shares are in (0, 1] and add up to at most 1; calls
   * of no partition only borrow.
   * @defaultValue none: one pool for all calls
   * @example
   * ```ts
   * adaptiveLimiter({ partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' });
   * ```
   */
  partitions?: Record<string, number> | undefined;
  /**
   * The `ctx.meta` key whose value names a call's partition; `'criticality'` reads a missing or unknown value as
   * `'default'`.
   * @defaultValue `'criticality'`
   */
  partitionBy?: string | undefined;
  /** @defaultValue `'adaptiveLimiter'` */
  name?: string | undefined;
  /** @defaultValue the system clock */
  clock?: Clock | undefined;
}

const RATIO = 'expected a number in [0, 1]';
const ratioWhere = (test: (v: number) => boolean, message: string): Rule<number> => number(RATIO, atLeast(0, RATIO), atMost(1, RATIO), satisfies(test, message));
const backoffRatio = /* @__PURE__ */ defineRule(() => withDefault(ratioWhere((v) => v >= 0.5 && v < 1, 'expected a number in [0.5, 1)'), 0.9));

/** The rules of {@link GradientOptions} (`GradientOptionsSchema` in `breakwater/config` says the same). */
export const gradientOptions = /* @__PURE__ */ defineRule(() => object({
  kind: oneOf(['gradient']),
  tolerance: withDefault(numberAtLeast(1), 1.5),
  smoothing: withDefault(ratioWhere((v) => v > 0, 'expected a number in (0, 1]'), 0.2),
  queueSize: withDefault(numberAtLeast(0), 4),
  backoffRatio,
  baselineWindows: withDefault(intAtLeast(1), 600),
}));

/** The rules of {@link AimdOptions} (`AimdOptionsSchema` in `breakwater/config` says the same). */
export const aimdOptions = /* @__PURE__ */ defineRule(() => object({
  kind: oneOf(['aimd']),
  backoffRatio,
  increase: withDefault(number('expected a finite number > 0', above(0, 'expected a finite number > 0')), 1),
  slowMs: optional(positiveMs),
}));

/** The rules of {@link VegasOptions} (`VegasOptionsSchema` in `breakwater/config` says the same). */
export const vegasOptions = /* @__PURE__ */ defineRule(() => object(
  {
    kind: oneOf(['vegas']),
    alpha: withDefault(numberAtLeast(0), 3),
    beta: withDefault(numberAtLeast(0), 6),
  },
  (o, add) => {
    if (!(o.beta > o.alpha)) add('beta must exceed alpha', ['beta']);
  },
));

const ALGORITHM = "expected 'gradient', 'aimd', 'vegas' or an object with kind";
const algorithmRules = { gradient: gradientOptions, aimd: aimdOptions, vegas: vegasOptions };
const byObject = /* @__PURE__ */ discriminated('kind', algorithmRules, ALGORITHM, "expected kind 'gradient', 'aimd' or 'vegas'");

/** An algorithm as data: its name alone (its defaults) or an object with `kind`; either gives the object with defaults. */
export const limitAlgorithm = /* @__PURE__ */ either(
  // First, so that an object's own mistake (`tolerance: NaN`) is the one reported, at its path.
  byObject,
  ((value, path, found) => {
    const kind = oneOf(['gradient', 'aimd', 'vegas'], ALGORITHM)(value, path, found);
    return typeof kind === 'string' && kind in algorithmRules ? algorithmRules[kind]({ kind }, path, found) : kind;
  }) as typeof byObject,
);

/** An algorithm's options with defaults applied. */
export type ResolvedAlgorithm = RuleOutput<typeof byObject>;

/** The problems between limits and window bounds: the limits are ordered, the window bounds too. */
export function limitProblems(o: {
  initialLimit: number;
  minLimit: number;
  maxLimit: number;
  windowMs: number;
  maxWindowMs: number;
}): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  if (o.minLimit > o.maxLimit) out.push({ key: 'minLimit', message: `must be <= maxLimit (${o.maxLimit})` });
  else if (o.initialLimit < o.minLimit || o.initialLimit > o.maxLimit) {
    out.push({ key: 'initialLimit', message: `must be between minLimit (${o.minLimit}) and maxLimit (${o.maxLimit})` });
  }
  if (o.windowMs > o.maxWindowMs) out.push({ key: 'windowMs', message: `must be <= maxWindowMs (${o.maxWindowMs})` });
  return out;
}

/** The rules of {@link AdaptiveLimiterOptions} (`AdaptiveLimiterOptionsSchema` in `breakwater/config` says the same). */
export const adaptiveLimiterOptions = /* @__PURE__ */ defineRule(() => object(
  {
    algorithm: prefault(limitAlgorithm, 'gradient'),
    initialLimit: withDefault(intAtLeast(1), 20),
    minLimit: withDefault(intAtLeast(1), 1),
    maxLimit: withDefault(intAtLeast(1), 200),
    windowMs: withDefault(positiveMs, 100),
    maxWindowMs: withDefault(positiveMs, 1_000),
    minSamples: withDefault(intAtLeast(1), 10),
    isOverload: optional(fn<(error: unknown) => boolean>()),
    reserve: prefault(reserveRule, {}),
    partitions: optional(partitionsRule),
    partitionBy: partitionByRule,
    name: withDefault(name, 'adaptiveLimiter'),
    clock: optional(clock),
  },
  whenValid((o, add) => {
    for (const p of limitProblems(o)) add(p.message, [p.key]);
  }),
));

/** {@link AdaptiveLimiterOptions} with defaults applied. */
export type ResolvedAdaptiveLimiterOptions = RuleOutput<typeof adaptiveLimiterOptions>;
