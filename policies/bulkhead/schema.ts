import { z } from 'zod';
import { clockSchema, nameSchema, partitionsSchema, positiveMs, reserveSchema } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';

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


/** The zod schema of the options of `keyedBulkhead`, for `fromConfig` and the JSON Schema: a bulkhead's, per key. */
export const KeyedBulkheadOptionsSchema = BulkheadOptionsSchema.extend({
  /** @defaultValue `'keyedBulkhead'` */
  name: nameSchema.default('keyedBulkhead'),
  /** The call's key: each key has its own bulkhead of `limit` and `queue`. */
  key: z.custom<(ctx: ExecutionContext) => string>((v) => typeof v === 'function', { message: 'expected a function (ctx) => string' }),
  /** Most keys held at once; a new key that finds them all busy is refused. @defaultValue 10_000 */
  maxKeys: count(1).default(10_000),
  /** A key unused for longer than this is dropped, if nothing runs or waits in it. @defaultValue 300_000 */
  idleMs: positiveMs.default(300_000),
}).strict();
