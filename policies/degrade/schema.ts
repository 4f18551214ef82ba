import { z } from 'zod';
import { clockSchema, nameSchema, positiveMs, ratio } from '../../lib/schemas.js';
import { DEGRADE_THRESHOLDS } from '../../lib/sla.js';
import { DecisionTree } from './decision-tree.js';
import type { DegradeHandler, DegradePredicate } from './options.js';
import { isSignalSource, type SignalSource } from '../../lib/signals.js';

/** The zod schema of the options of `degrade`, for `fromConfig` and the JSON Schema. */
export const DegradeOptionsSchema = z
  .object({
    /** The decision: `decisionTree(...)` or a predicate over the signals. */
    when: z.custom<DecisionTree | DegradePredicate>((v) => v instanceof DecisionTree || typeof v === 'function', {
      message: 'expected decisionTree(...) or a predicate (signals) => boolean',
    }),
    /**
     * Signal sources by name. `qps` defaults to this policy's own request rate, `cpu` to `processCpu()`,
     * `health` to 1; add any others a predicate reads.
     * @defaultValue `{}`
     */
    signals: z
      .record(z.string(), z.custom<SignalSource>(isSignalSource, { message: 'expected a number, a function, { value() } or an Observable<number>' }))
      .default({}),
    /** Answers degraded calls. */
    to: z.custom<DegradeHandler<unknown>>((v) => typeof v === 'function', { message: 'expected a handler function (info, ctx) => value' }),
    /** Window of the own request-rate signal. @defaultValue 10_000 */
    rateWindowMs: positiveMs.default(10_000),
    /** @defaultValue `'degrade'` */
    name: nameSchema.default('degrade'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

const unit = ratio;
const rate = z.number({ message: 'expected a finite number >= 0' }).nonnegative({ message: 'expected a finite number >= 0' });

/** The zod schema of the thresholds of `decisionTree`, for `fromConfig` and the JSON Schema. */
export const DecisionTreeOptionsSchema = z
  .object({
    /** @defaultValue 5000 */ qpsHigh: rate.default(DEGRADE_THRESHOLDS.qpsHigh),
    /** @defaultValue 2000 */ qpsMid: rate.default(DEGRADE_THRESHOLDS.qpsMid),
    /** @defaultValue 0.85 */ cpuHigh: unit.default(DEGRADE_THRESHOLDS.cpuHigh),
    /** @defaultValue 0.92 */ cpuCritical: unit.default(DEGRADE_THRESHOLDS.cpuCritical),
    /** @defaultValue 0.9 */ healthyMin: unit.default(DEGRADE_THRESHOLDS.healthyMin),
  })
  .strict()
  .refine((t) => t.qpsHigh >= t.qpsMid, { message: 'qpsHigh must be >= qpsMid', path: ['qpsHigh'] });

