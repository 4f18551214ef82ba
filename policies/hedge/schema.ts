import { z } from 'zod';
import { clockSchema, fnSchema, nameSchema } from '../../lib/schemas.js';
import type { HedgeDelay } from './options.js';

// zod's number() refuses Infinity, which means "hedge only after a failure" here.
const delayMs = z.custom<number>((n) => typeof n === 'number' && n >= 0, {
  message: 'expected a number of milliseconds >= 0 (Infinity: hedge only after a failure)',
});

/** The zod schema of the options of `hedge`, for `fromConfig` and the JSON Schema. */
export const HedgeOptionsSchema = z
  .object({
    /**
     * How long an attempt may run before the next one starts beside it. `0` starts every attempt at once;
     * `Infinity` starts the next one only when an attempt fails (Polly's "fallback mode").
     * @defaultValue 2_000 (Polly's default)
     */
    delayMs: delayMs.optional(),
    /**
     * The delay as a function of the attempt about to start (2 for the first hedge) and the context;
     * exclusive with `delayMs`.
     * @defaultValue none
     */
    delay: fnSchema<HedgeDelay>().optional(),
    /**
     * Extra attempts at most, the primary one not counted.
     * @defaultValue 1
     */
    maxHedged: z
      .number({ message: 'expected an integer >= 1' })
      .int({ message: 'expected an integer >= 1' })
      .min(1, { message: 'expected an integer >= 1' })
      .default(1),
    /**
     * Which thrown values are failures worth hedging; a throw inside `handle` counts as yes. A thrown value
     * it refuses ends the call at once with that error.
     * @defaultValue every thrown value
     */
    handle: fnSchema<(error: unknown) => boolean>().optional(),
    /**
     * Which results are failures worth hedging (e.g. an HTTP 503 response).
     * @defaultValue none
     */
    handleResult: fnSchema<(result: unknown) => boolean>().optional(),
    /** @defaultValue `'hedge'` */
    name: nameSchema.default('hedge'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict()
  .refine((o) => o.delayMs === undefined || o.delay === undefined, {
    message: 'give delayMs or delay, not both',
    path: ['delay'],
  });

