import { z } from 'zod';
import { clockSchema, nameSchema, positiveMs } from '../../lib/schemas.js';

/**
 * The zod schema of the options of `timeout`, for `fromConfig` and the
 * JSON Schema; `timeout()` itself checks them with plain rules.
 */
export const TimeoutOptionsSchema = z
  .object({
    /** Milliseconds each call may take. */
    ms: positiveMs,
    /**
     * `'aggressive'`: reject with `TimeoutError` exactly at the deadline, even while the operation runs on.
     * `'cooperative'`: abort `ctx.signal` at the deadline, then wait for the operation and reject only if it rejects.
     * @defaultValue `'aggressive'`
     */
    mode: z.enum(['aggressive', 'cooperative']).default('aggressive'),
    /** @defaultValue `'timeout'` */
    name: nameSchema.default('timeout'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();
