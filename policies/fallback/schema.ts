import { z } from 'zod';
import { clockSchema, nameSchema } from '../../lib/schemas.js';

/** The zod schema of the options of `fallback`, for `fromConfig` and the JSON Schema. */
export const FallbackOptionsSchema = z
  .object({
    /**
     * Which thrown values the fallback answers; a throw inside `handle` counts as yes.
     * @defaultValue every thrown value (but never the caller's own cancellation)
     */
    handle: z.custom<(error: unknown) => boolean>((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
    /**
     * Which results count as failures to answer (e.g. an HTTP 503 response).
     * @defaultValue none
     */
    handleResult: z.custom<(result: unknown) => boolean>((v) => typeof v === 'function', { message: 'expected a function' }).optional(),
    /** @defaultValue `'fallback'` (`'fallbackChain'` for chains) */
    name: nameSchema.optional(),
    /**
     * The clock of `execute`'s root context (its `timeout` and `deadline`) and of the durations in events.
     * @defaultValue the pipeline's clock inside a pipeline, else the system clock
     */
    clock: clockSchema.optional(),
  })
  .strict();
