import type { Clock } from '../../lib/clock.js';
import { above, bool, clock, defineRule, intAtLeast, name, nonNegativeMs, nullable, number, numberAtLeast, object, oneOf, optional, positiveMs, random, type RuleOutput, whenValid, withDefault } from '../../lib/options.js';
import type { WindowSnapshot } from '../../lib/window.js';
import { breakerStateRule, bucketProblems, clockTime, clockTimeOrNull, handleResultRule, handleRule, ratioRule, snapshotGridProblems, windowSnapshotRule } from '../breaker/options.js';

/**
 * What {@link AdaptiveBreakerPolicy.snapshot} returns and `initialState` takes:
 * plain JSON (clock times are the clock's epoch ms). Calls in flight are not
 * part of it: their permits belong to the breaker that admitted them.
 */
export interface AdaptiveBreakerSnapshot {
  /** Which family made it. */
  kind: 'adaptive';
  /** `'closed'` (counting; sheds a share when accepts fall behind), `'open'` (tripped: probes only) or `'half-open'` (ramping back). */
  state: 'closed' | 'open' | 'half-open';
  /** Forced open by `isolate()`; a restored breaker stays open until `reset()`. */
  isolated: boolean;
  /** Half-open: the share of calls the ramp admits (1 otherwise). */
  admitRatio: number;
  /** Failures since the last success. */
  failuresInRow: number;
  /** Moving average of the outcomes (1 success, 0 failure) over the last outcomes. */
  successShare: number;
  /** {@link AdaptiveBreakerSnapshot.successShare} at the last success. */
  successShareBeforeRun: number;
  /** Clock time of the last success; `null` before any. */
  lastSuccessAt: number | null;
  /** Clock time of the last call admitted while shedding; `null` before any. */
  lastPass: number | null;
  /** The statistics window: successes, failures and the summed duration of the successes (ms) per bucket. */
  window: WindowSnapshot;
  /** The last timed success: its clock time and duration (whole ms); `null` or absent: the next success is timed. */
  timed?: { at: number; ms: number } | null | undefined;
}

/** The rules of {@link AdaptiveBreakerSnapshot}. */
export const adaptiveBreakerSnapshot = /* @__PURE__ */ defineRule(() => object({
  kind: oneOf(['adaptive']),
  state: breakerStateRule,
  isolated: bool('expected a boolean'),
  admitRatio: ratioRule,
  failuresInRow: intAtLeast(0),
  successShare: ratioRule,
  successShareBeforeRun: ratioRule,
  lastSuccessAt: clockTimeOrNull,
  lastPass: clockTimeOrNull,
  window: windowSnapshotRule,
  timed: optional(nullable(object({ at: clockTime, ms: intAtLeast(0) }))),
}));

/**
 * Options of {@link adaptiveBreaker} (and of `breaker()` and the builder's
 * `.breaker()`): all optional. The options it shares with `sreBreaker` keep
 * go-zero's names; how they work together: docs/breakers.md.
 *
 * @example
 * ```ts
 * breaker({ handle: (e) => !(e instanceof NotFoundError), tripMs: 500 });
 * ```
 */
export interface AdaptiveBreakerOptions {
  /**
   * Length of the statistics window: the proportional shedding and the typical call duration look this far back.
   * Short, so a new failure rate shows within a second.
   * @defaultValue 2_000
   */
  windowMs?: number | undefined;
  /**
   * Buckets in the window; must divide `windowMs`.
   * @defaultValue 20 (100 ms each)
   */
  buckets?: number | undefined;
  /**
   * Multiplier on accepted calls (go-zero `k`): the breaker sheds once calls exceed `k` times the successes among the
   * calls it let through, and then `1 − k·successes/calls` of them. Shed calls do not count.
   * @defaultValue 1.5
   */
  k?: number | undefined;
  /**
   * Calls subtracted before any proportional shedding (go-zero `protection`): no shedding on tiny traffic.
   * @defaultValue 5
   */
  protection?: number | undefined;
  /**
   * While shedding, let one call through when none has passed for longer than this (go-zero `forcePassDuration`).
   * @defaultValue 1_000
   */
  forcePassMs?: number | undefined;
  /**
   * Failures in a row that trip the breaker open, when no call has succeeded for `tripMs` either. Where failures are
   * common the run must be longer: `tripFailures` divided by the recent success share, so chance runs do not trip it.
   * Also how many calls must be waiting, with no answer at all, before a stalled dependency trips it.
   * @defaultValue 5
   */
  tripFailures?: number | undefined;
  /**
   * How long without a success (or, for a stalled dependency, without any answer, and at least three times the
   * window's mean success duration) before the breaker trips open.
   * @defaultValue 250
   */
  tripMs?: number | undefined;
  /**
   * Share of calls an open breaker lets through as probes (besides one per `forcePassMs`); the first that succeeds
   * starts the ramp back.
   * @defaultValue 0.05
   */
  probeRatio?: number | undefined;
  /**
   * How the ramp back grows: half-open, each success multiplies the share of calls admitted by this, from
   * `probeRatio × rampFactor`; at 1 the breaker closes with an empty window.
   * @defaultValue 4
   */
  rampFactor?: number | undefined;
  /**
   * Which thrown values count as failures; a throw inside it counts as a failure.
   * @defaultValue every thrown value
   */
  handle?: ((error: unknown) => boolean) | undefined;
  /**
   * Which results count as failures (e.g. an HTTP 503 response).
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * State to start from: an {@link AdaptiveBreakerPolicy.snapshot} (validated; never changed). Its window must have this breaker's grid.
   * @defaultValue a fresh, closed breaker
   */
  initialState?: AdaptiveBreakerSnapshot | undefined;
  /**
   * Names the breaker in events, errors and metrics.
   * @defaultValue `'breaker'`
   */
  name?: string | undefined;
  /**
   * The clock the breaker runs on.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
  /**
   * Random source of the shedding decisions, in [0, 1).
   * @defaultValue `Math.random`
   */
  random?: (() => number) | undefined;
}

/** The rules of {@link AdaptiveBreakerOptions} (`AdaptiveBreakerOptionsSchema` in `breakwater/config` says the same). */
export const adaptiveBreakerOptions = /* @__PURE__ */ defineRule(() => object(
  {
    windowMs: withDefault(positiveMs, 2_000),
    buckets: withDefault(intAtLeast(1), 20),
    k: withDefault(numberAtLeast(1), 1.5),
    protection: withDefault(numberAtLeast(0), 5),
    forcePassMs: withDefault(nonNegativeMs, 1_000),
    tripFailures: withDefault(intAtLeast(1), 5),
    tripMs: withDefault(nonNegativeMs, 250),
    probeRatio: withDefault(ratioRule, 0.05),
    rampFactor: withDefault(number('expected a finite number > 1', above(1, 'expected a finite number > 1')), 4),
    handle: optional(handleRule),
    handleResult: optional(handleResultRule),
    initialState: optional(adaptiveBreakerSnapshot),
    name: withDefault(name, 'breaker'),
    clock: optional(clock),
    random: optional(random),
  },
  whenValid((o, add) => {
    for (const p of [...bucketProblems(o), ...snapshotGridProblems(o)]) add(p.message, p.path);
  }),
));

/** {@link AdaptiveBreakerOptions} with defaults applied. */
export type ResolvedAdaptiveBreakerOptions = RuleOutput<typeof adaptiveBreakerOptions>;
