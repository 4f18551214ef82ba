import { z } from 'zod';
import { finite, handleResultSchema, handleSchema, intSchema, windowSnapshotSchema } from '../breaker/schema.js';
import { sreProblems, type SreBreakerSnapshot } from './options.js';
import { clockSchema, nameSchema, nonNegativeMs, onceValid, positiveMs, randomSchema } from '../../lib/schemas.js';

/** The zod schema of `SreBreakerSnapshot`. */
export const SreBreakerSnapshotSchema = z
  .object({
    /** Which family made it. */
    kind: z.literal('sre'),
    /** The last decision's drop ratio was > 0. */
    open: z.boolean({ message: 'expected a boolean' }),
    /** Forced open by `isolate()`; a restored breaker stays open until `reset()`. */
    isolated: z.boolean({ message: 'expected a boolean' }),
    /** Clock time of the last call let through while shedding; `null` before any. */
    lastPass: z.number({ message: 'expected a finite clock time or null' }).nullable(),
    /** The statistics window. */
    window: windowSnapshotSchema,
  })
  .strict();

/** The zod schema of the options of `sreBreaker`, before the cross-field rules. */
export const SreBreakerShape = z
  .object({
    /**
     * Length of the statistics window (go-zero `window`).
     * @defaultValue 10_000
     */
    windowMs: positiveMs.default(10_000),
    /**
     * Buckets in the window (go-zero `buckets`); must divide `windowMs`.
     * @defaultValue 40 (250 ms each)
     */
    buckets: intSchema(1).default(40),
    /**
     * Multiplier on accepted calls (go-zero `k`, the SRE book's K): the higher, the later shedding starts.
     * @defaultValue 1.5
     */
    k: finite('expected a finite number').default(1.5),
    /**
     * Floor of the weight as failing buckets pile up (go-zero `minK`); `k >= minK >= 1`.
     * @defaultValue 1.1
     */
    minK: finite('expected a finite number >= 1').min(1, { message: 'expected a finite number >= 1' })
      .default(1.1),
    /**
     * Calls subtracted from the total before any shedding (go-zero `protection`): no shedding on tiny traffic.
     * @defaultValue 5
     */
    protection: finite('expected a finite number >= 0').min(0, { message: 'expected a finite number >= 0' })
      .default(5),
    /**
     * While shedding, let one call through when none has passed for longer than this (go-zero `forcePassDuration`).
     * @defaultValue 1_000
     */
    forcePassMs: nonNegativeMs.default(1_000),
    /**
     * Which thrown values count as failures (go-zero's `acceptable` is its negation); a throw inside it counts as a failure.
     * @defaultValue every thrown value
     */
    handle: handleSchema.optional(),
    /** Which results count as failures. @defaultValue none */
    handleResult: handleResultSchema.optional(),
    /**
     * State to start from: a `SreBreakerPolicy.snapshot` (validated; never changed). Its window must have this breaker's grid.
     * @defaultValue a fresh, closed breaker
     */
    initialState: SreBreakerSnapshotSchema.optional(),
    /** @defaultValue `'breaker'` */
    name: nameSchema.default('breaker'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
    /** Random source for the drop decision, in [0, 1). @defaultValue `Math.random` */
    random: randomSchema.optional(),
  })
  .strict();

/** The cross-field rules of `SreBreakerShape`: buckets divide windowMs, k >= minK. */
export function checkSre(o: { windowMs: number; buckets: number; k: number; minK: number; initialState?: SreBreakerSnapshot | undefined }, ctx: z.RefinementCtx): void {
  for (const p of sreProblems(o)) ctx.addIssue({ code: 'custom', path: [...p.path], message: p.message });
}

/** The zod schema of the options of `sreBreaker`, for `fromConfig` and the JSON Schema. */
export const SreBreakerOptionsSchema = SreBreakerShape.superRefine(checkSre, onceValid);
