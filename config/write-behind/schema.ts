import { z } from 'zod';
import { clockSchema, fnSchema, intAtLeast, nameSchema, positiveMs, randomSchema } from '../../lib/schemas.js';
import type { Deliver } from './options.js';
import { isWriteQueue, type WriteQueue } from './queue.js';

/** The zod schema of `writeBehind`'s options (the writer checks them with the plain rules of `writeBehindOptions`). */
export const WriteBehindOptionsSchema = z
  .object({
    /** Delivers a payload (a named function, so queued payloads can be replayed after a restart). */
    deliver: fnSchema<Deliver<unknown>>(),
    /** Ordering key of a payload; writes of one key are delivered in order. @defaultValue one key for all writes */
    keyOf: fnSchema<(payload: unknown) => string>().optional(),
    /** Where undelivered writes wait. @defaultValue `memoryWriteQueue()` (this process only) */
    store: z.custom<WriteQueue>(isWriteQueue, { message: 'expected a WriteQueue (push, peek, ack)' }).optional(),
    /** Timeout of each delivery. @defaultValue 1_000 */
    timeoutMs: positiveMs.default(1_000),
    /** How often the replayer retries the queue while it is not empty. @defaultValue 1_000 */
    replayIntervalMs: positiveMs.default(1_000),
    /** Writes replayed per round. @defaultValue 100 */
    batch: intAtLeast(1).default(100),
    /** Options of the breaker in front of `deliver` (the default breaker's). */
    breaker: z.record(z.string(), z.unknown()).optional(),
    /** @defaultValue `'writeBehind'` */
    name: nameSchema.default('writeBehind'),
    clock: clockSchema.optional(),
    random: randomSchema.optional(),
  })
  .strict();
