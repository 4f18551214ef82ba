import { z } from 'zod';
import { clockSchema, intAtLeast, nameSchema, positiveMs, reserveSchema } from '../../lib/schemas.js';
import { isSignalSource, type SignalSource } from '../../lib/signals.js';

/** The zod schema of the options of `loadShedder`, for `fromConfig` and the JSON Schema. */
export const LoadShedderOptionsSchema = z
  .object({
    /** CPU utilisation (0–1) from which calls may be shed (go-zero: 900‰). @defaultValue 0.9 */
    cpuThreshold: z.number({ message: 'expected a number in (0, 1)' }).gt(0, { message: 'expected a number in (0, 1)' }).lt(1, { message: 'expected a number in (0, 1)' }).default(0.9),
    /** CPU source. @defaultValue `processCpu()` */
    cpu: z.custom<SignalSource>(isSignalSource, { message: 'expected a number, a function, { value() } or an Observable<number>' }).optional(),
    /** Window of pass counts and response times (go-zero: 5 s). @defaultValue 5_000 */
    windowMs: positiveMs.default(5_000),
    /** Buckets of the window (go-zero: 50). @defaultValue 50 */
    buckets: intAtLeast(2).default(50),
    /** After a drop, keep checking throughput this long even if CPU cools (go-zero: 1 s). @defaultValue 1_000 */
    coolOffMs: positiveMs.default(1_000),
    /** Shares of what can be carried kept from default and sheddable calls. @defaultValue `{ default: 0, sheddable: 0.1 }` */
    reserve: reserveSchema.prefault({}),
    /** @defaultValue `'loadShedder'` */
    name: nameSchema.default('loadShedder'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

