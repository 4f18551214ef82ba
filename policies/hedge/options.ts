import type { Clock } from '../../lib/clock.js';
import { clock, custom, defineRule, fn, intAtLeast, name, object, optional, predicate, withDefault } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';

/** Milliseconds to wait before the hedge numbered `attempt` (2 for the first hedge); `Infinity`: only after a failure. */
export type HedgeDelay = (attempt: number, ctx: ExecutionContext) => number;

/**
 * Options of {@link hedge}.
 * @example
 * ```ts
 * hedge({ delayMs: 50, maxHedged: 2, handle: (e) => !(e instanceof ValidationError) });
 * ```
 */
export interface HedgeOptions {
  /**
   * How long an attempt may run before the next one starts beside it. `0` starts every attempt at once;
   * `Infinity` starts the next one only when an attempt fails (Polly's "fallback mode").
   * @defaultValue 2_000 (Polly's default)
   */
  delayMs?: number | undefined;
  /**
   * The delay as a function of the attempt about to start (2 for the first hedge) and the context;
   * exclusive with `delayMs`.
   * @defaultValue none
   */
  delay?: HedgeDelay | undefined;
  /**
   * Extra attempts at most, the primary one not counted.
   * @defaultValue 1
   */
  maxHedged?: number | undefined;
  /**
   * Which thrown values are failures worth hedging; a throw inside `handle` counts as yes. A thrown value
   * it refuses ends the call at once with that error.
   * @defaultValue every thrown value
   */
  handle?: ((error: unknown) => boolean) | undefined;
  /**
   * Which results are failures worth hedging (e.g. an HTTP 503 response).
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'hedge'`
   */
  name?: string | undefined;
  /**
   * The clock of the delays and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link HedgeOptions} (`HedgeOptionsSchema` in `breakwater/config` says the same). */
export const hedgeOptions = /* @__PURE__ */ defineRule(() => object(
  {
    // Infinity is allowed here: it means "hedge only after a failure".
    delayMs: optional(custom<number>((n) => typeof n === 'number' && n >= 0, 'expected a number of milliseconds >= 0 (Infinity: hedge only after a failure)')),
    delay: optional(fn<HedgeDelay>()),
    maxHedged: withDefault(intAtLeast(1), 1),
    handle: optional(predicate),
    handleResult: optional(predicate),
    name: withDefault(name, 'hedge'),
    clock: optional(clock),
  },
  (o, add) => {
    if (o.delayMs !== undefined && o.delay !== undefined) add('give delayMs or delay, not both', ['delay']);
  },
));
