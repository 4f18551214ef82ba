import type { Clock } from '../../lib/clock.js';
import { clock, defineRule, fn, name, object, optional, predicate } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';

/**
 * Answers a failed call: gets what was thrown (or the result judged a
 * failure) and the context, returns the answer or a promise of it.
 */
export type FallbackHandler<F> = (error: unknown, ctx: ExecutionContext) => F | PromiseLike<F>;

/**
 * Options of {@link fallback}.
 * @example
 * ```ts
 * fallback(() => cached, { handle: (e) => isBrokenCircuitError(e) });
 * ```
 */
export interface FallbackOptions {
  /**
   * Which thrown values the fallback answers; a throw inside `handle` counts as yes.
   * @defaultValue every thrown value (but never the caller's own cancellation)
   */
  handle?: ((error: unknown) => boolean) | undefined;
  /**
   * Which results count as failures to answer (e.g. an HTTP 503 response).
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'fallback'` (`'fallbackChain'` for chains)
   */
  name?: string | undefined;
  /**
   * The clock of `execute`'s root context (its `timeout` and `deadline`) and of the durations in events.
   * @defaultValue the pipeline's clock inside a pipeline, else the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link FallbackOptions} (`FallbackOptionsSchema` in `breakwater/config` says the same). */
export const fallbackOptions = /* @__PURE__ */ defineRule(() => object({
  handle: optional(predicate),
  handleResult: optional(predicate),
  name: optional(name),
  clock: optional(clock),
}));

/** A handler given where a function was expected is a `ConfigError`; this checks it. */
export const handlerRule = /* @__PURE__ */ defineRule(() => fn<FallbackHandler<unknown>>('expected a fallback handler function (error, ctx) => value'));
