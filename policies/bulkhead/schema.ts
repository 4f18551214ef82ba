import { z } from 'zod';
import { clockSchema, nameSchema, partitionsSchema, reserveSchema } from '../../lib/schemas.js';

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
    /**
     * Shares of `limit` kept from the lower criticalities: a `sheddable` call runs only while fewer than
     * `limit × (1 − sheddable)` run, a `default` one while fewer than `limit × (1 − default)`.
     * @defaultValue `{ default: 0, sheddable: 0.1 }`
     */
    reserve: reserveSchema.prefault({}),
    /** Shares of `limit` guaranteed to classes of calls, by `ctx.meta[partitionBy]`; they borrow idle slots. @defaultValue none */
    partitions: partitionsSchema.optional(),
    /** The `ctx.meta` key naming a call's partition. @defaultValue `'criticality'` */
    partitionBy: nameSchema.default('criticality'),
    /** @defaultValue `'bulkhead'` */
    name: nameSchema.default('bulkhead'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

