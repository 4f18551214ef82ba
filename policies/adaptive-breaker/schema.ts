import { z } from 'zod';
import type { AdaptiveBreakerSnapshot } from './options.js';
import { checkBuckets, checkSnapshotGrid, finite, handleResultSchema, handleSchema, intSchema, ratioSchema, windowSnapshotSchema } from '../breaker/schema.js';
import { clockSchema, nameSchema, nonNegativeMs, onceValid, positiveMs, randomSchema } from '../../lib/schemas.js';

/** The zod schema of `AdaptiveBreakerSnapshot`. */
export const AdaptiveBreakerSnapshotSchema = z
  .object({
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

const atLeastOne = finite('expected a finite number >= 1').min(1, { message: 'expected a finite number >= 1' });

/**
 * The zod schema of `adaptiveBreaker`'s options, before the cross-field
 * rules; the options themselves are written out, with their documentation, in
 * `AdaptiveBreakerOptions`.
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

/** The cross-field rules of `AdaptiveBreakerShape`: buckets divide windowMs, a snapshot has the window's grid. */
export function checkAdaptive(o: { windowMs: number; buckets: number; initialState?: AdaptiveBreakerSnapshot | undefined }, ctx: z.RefinementCtx): void {
  checkBuckets(o, ctx);
  checkSnapshotGrid(o, ctx);
}

/** The zod schema of `adaptiveBreaker`'s options: `AdaptiveBreakerShape` with its cross-field rules. */
export const AdaptiveBreakerOptionsSchema = AdaptiveBreakerShape.superRefine(checkAdaptive, onceValid);

