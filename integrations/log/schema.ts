import { z } from 'zod';
import { clockSchema, nonNegativeMs } from '../../lib/schemas.js';

/** The zod schema of `logEvents`'s options (it checks them with the plain rules of `logEventsOptions`). */
export const LogEventsOptionsSchema = z
  .object({
    /**
     * At most one line per policy and kind of event in this many milliseconds; the
     * rest are counted, and the last of them is logged when the interval ends,
     * with `suppressed` saying how many were not. 0 logs every event.
     * @defaultValue 1000
     */
    rateLimitMs: nonNegativeMs.default(1_000),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();
