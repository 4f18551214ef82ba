import { z } from 'zod';
import { clockSchema, nameSchema } from '../../lib/schemas.js';

const count = (min: number) =>
  z
    .number({ message: `expected an integer >= ${min}` })
    .int({ message: `expected an integer >= ${min}` })
    .min(min, { message: `expected an integer >= ${min}` });

/** The zod schema of the options of `bulkhead`, for `fromConfig` and the JSON Schema. */
export const BulkheadOptionsSchema = z
  .object({
    /** Most calls running at once. */
    limit: count(1),
    /**
     * Most calls waiting for a slot, in arrival order; the rest are rejected with `BulkheadRejectedError`.
     * @defaultValue 0 (no queue)
     */
    queue: count(0).default(0),
    /** @defaultValue `'bulkhead'` */
    name: nameSchema.default('bulkhead'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

