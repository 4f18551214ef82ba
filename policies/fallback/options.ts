import { z } from 'zod';
import { clockSchema, nameSchema } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';

/**
 * Answers a failed call: gets what was thrown (or the result judged a
 * failure) and the context, returns the answer or a promise of it.
 */
export type FallbackHandler<F> = (error: unknown, ctx: ExecutionContext) => F | PromiseLike<F>;

/** Options of {@link fallback}. */
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

/**
 * Options of {@link fallback}.
 * @example
 * ```ts
 * fallback(() => cached, { handle: (e) => isBrokenCircuitError(e) });
 * ```
 */
export type FallbackOptions = z.input<typeof FallbackOptionsSchema>;

/** A handler given where a function was expected is a `ConfigError`; this checks it. */
export const HandlerSchema = z.custom<FallbackHandler<unknown>>((v) => typeof v === 'function', {
  message: 'expected a fallback handler function (error, ctx) => value',
});
