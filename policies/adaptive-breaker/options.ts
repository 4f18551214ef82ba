import { z } from 'zod';
import type { Clock } from '../../lib/clock.js';
import { checkBuckets, checkSnapshotGrid, finite, handleResultSchema, handleSchema, intSchema, ratioSchema, windowSnapshotSchema } from '../breaker/schema.js';
import { clockSchema, nameSchema, nonNegativeMs, positiveMs, randomSchema } from '../../lib/schemas.js';

/**
 * What {@link AdaptiveBreakerPolicy.snapshot} returns and `initialState` takes:
 * plain JSON (clock times are the clock's epoch ms). Calls in flight are not
 * part of it: their permits belong to the breaker that admitted them.
 */
export const AdaptiveBreakerSnapshotSchema = z
  .object({
    /** Which family made it. */
    kind: z.literal('adaptive'),
    /** `'closed'` (counting; sheds a share when accepts fall behind), `'open'` (tripped: probes only) or `'half-open'` (ramping back). */
    state: z.enum(['closed', 'open', 'half-open'], { message: "expected 'closed', 'open' or 'half-open'" }),
    /** Forced open by `isolate()`; a restored breaker stays open until `reset()`. */
    isolated: z.boolean({ message: 'expected a boolean' }),
    /** Half-open: the share of calls the ramp admits (1 otherwise). */
    admitRatio: ratioSchema,
    /** Failures since the last success. */
    failuresInRow: intSchema(0),
    /** Moving average of the outcomes (1 success, 0 failure) over the last outcomes, and its value at the last success. */
    successShare: ratioSchema,
    successShareBeforeRun: ratioSchema,
    /** Clock time of the last success; `null` before any. */
    lastSuccessAt: z.number({ message: 'expected a finite clock time or null' }).nullable(),
    /** Clock time of the last call admitted while shedding; `null` before any. */
    lastPass: z.number({ message: 'expected a finite clock time or null' }).nullable(),
    /** The statistics window: successes, failures and the summed duration of the successes (ms) per bucket. */
    window: windowSnapshotSchema,
    /** The last timed success: its clock time and duration (whole ms); `null` or absent: the next success is timed. */
    timed: z
      .object({
        at: z.number({ message: 'expected a finite clock time' }),
        ms: intSchema(0),
      })
      .strict()
      .nullable()
      .optional(),
  })
  .strict();

/** {@link AdaptiveBreakerSnapshotSchema}'s type. */
export type AdaptiveBreakerSnapshot = z.output<typeof AdaptiveBreakerSnapshotSchema>;

const atLeastOne = finite('expected a finite number >= 1').min(1, { message: 'expected a finite number >= 1' });

/**
 * The zod schema of {@link adaptiveBreaker}'s options, before the cross-field
 * rules; the options themselves are written out, with their documentation, in
 * {@link AdaptiveBreakerOptions}.
 */
export const AdaptiveBreakerShape = z
  .object({
    windowMs: positiveMs.default(2_000),
    buckets: intSchema(1).default(20),
    k: atLeastOne.default(1.5),
    protection: finite('expected a finite number >= 0').min(0, { message: 'expected a finite number >= 0' }).default(5),
    forcePassMs: nonNegativeMs.default(1_000),
    tripFailures: intSchema(1).default(5),
    tripMs: nonNegativeMs.default(250),
    probeRatio: ratioSchema.default(0.05),
    rampFactor: finite('expected a finite number > 1').gt(1, { message: 'expected a finite number > 1' }).default(4),
    handle: handleSchema.optional(),
    handleResult: handleResultSchema.optional(),
    initialState: AdaptiveBreakerSnapshotSchema.optional(),
    name: nameSchema.default('breaker'),
    clock: clockSchema.optional(),
    random: randomSchema.optional(),
  })
  .strict();

/** The cross-field rules of {@link AdaptiveBreakerShape}: buckets divide windowMs, a snapshot has the window's grid. */
export function checkAdaptive(o: { windowMs: number; buckets: number; initialState?: AdaptiveBreakerSnapshot | undefined }, ctx: z.RefinementCtx): void {
  checkBuckets(o, ctx);
  checkSnapshotGrid(o, ctx);
}

/** The zod schema of {@link adaptiveBreaker}'s options: {@link AdaptiveBreakerShape} with its cross-field rules. */
export const AdaptiveBreakerOptionsSchema = AdaptiveBreakerShape.superRefine(checkAdaptive);

/** {@link AdaptiveBreakerOptions} with defaults applied. */
export type ResolvedAdaptiveBreakerOptions = z.output<typeof AdaptiveBreakerOptionsSchema>;

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
  windowMs?: number;
  /**
   * Buckets in the window; must divide `windowMs`.
   * @defaultValue 20 (100 ms each)
   */
  buckets?: number;
  /**
   * Multiplier on accepted calls (go-zero `k`): the breaker sheds once calls exceed `k` times the successes among the
   * calls it let through, and then `1 − k·successes/calls` of them. Shed calls do not count.
   * @defaultValue 1.5
   */
  k?: number;
  /**
   * Calls subtracted before any proportional shedding (go-zero `protection`): no shedding on tiny traffic.
   * @defaultValue 5
   */
  protection?: number;
  /**
   * While shedding, let one call through when none has passed for longer than this (go-zero `forcePassDuration`).
   * @defaultValue 1_000
   */
  forcePassMs?: number;
  /**
   * Failures in a row that trip the breaker open, when no call has succeeded for `tripMs` either. Where failures are
   * common the run must be longer: `tripFailures` divided by the recent success share, so chance runs do not trip it.
   * Also how many calls must be waiting, with no answer at all, before a stalled dependency trips it.
   * @defaultValue 5
   */
  tripFailures?: number;
  /**
   * How long without a success (or, for a stalled dependency, without any answer, and at least three times the
   * window's mean success duration) before the breaker trips open.
   * @defaultValue 250
   */
  tripMs?: number;
  /**
   * Share of calls an open breaker lets through as probes (besides one per `forcePassMs`); the first that succeeds
   * starts the ramp back.
   * @defaultValue 0.05
   */
  probeRatio?: number;
  /**
   * How the ramp back grows: half-open, each success multiplies the share of calls admitted by this, from
   * `probeRatio × rampFactor`; at 1 the breaker closes with an empty window.
   * @defaultValue 4
   */
  rampFactor?: number;
  /**
   * Which thrown values count as failures; a throw inside it counts as a failure.
   * @defaultValue every thrown value
   */
  handle?: (error: unknown) => boolean;
  /**
   * Which results count as failures (e.g. an HTTP 503 response).
   * @defaultValue none
   */
  handleResult?: (result: unknown) => boolean;
  /**
   * State to start from: an {@link AdaptiveBreakerPolicy.snapshot} (validated; never changed). Its window must have this breaker's grid.
   * @defaultValue a fresh, closed breaker
   */
  initialState?: AdaptiveBreakerSnapshot;
  /**
   * Names the breaker in events, errors and metrics.
   * @defaultValue `'breaker'`
   */
  name?: string;
  /**
   * The clock the breaker runs on.
   * @defaultValue the system clock
   */
  clock?: Clock;
  /**
   * Random source of the shedding decisions, in [0, 1).
   * @defaultValue `Math.random`
   */
  random?: () => number;
}
