import { z } from 'zod';
import { clockSchema, nameSchema, positiveMs } from '../../lib/schemas.js';

/**
 * Options of {@link timeout}.
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

/**
 * What {@link timeout} accepts besides a plain number of milliseconds.
 * @example
 * ```ts
 * timeout({ ms: 300, mode: 'cooperative' });
 * ```
 */
export type TimeoutOptions = z.input<typeof TimeoutOptionsSchema>;
