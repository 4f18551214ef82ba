import type { Clock } from '../../lib/clock.js';
import { anything, clock, custom, defineRule, fn, intAtLeast, name, object, optional, positiveMs, random, record, withDefault, type RuleOutput } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { isWriteQueue, type WriteQueue } from './queue.js';

/** Delivers one payload for real; `ctx.key` is the write's id, for idempotency at the target. */
export type Deliver<P> = (payload: P, ctx: ExecutionContext) => unknown;

/** Options of {@link writeBehind}. */
export interface WriteBehindOptions<P> {
  /** Delivers a payload (a named function, so queued payloads can be replayed after a restart). */
  deliver: Deliver<P>;
  /** Ordering key of a payload; writes of one key are delivered in order. @defaultValue one key for all writes */
  keyOf?: ((payload: P) => string) | undefined;
  /** Where undelivered writes wait. @defaultValue `memoryWriteQueue()` (this process only) */
  store?: WriteQueue | undefined;
  /** Timeout of each delivery. @defaultValue 1_000 */
  timeoutMs?: number | undefined;
  /** How often the replayer retries the queue while it is not empty. @defaultValue 1_000 */
  replayIntervalMs?: number | undefined;
  /** Writes replayed per round. @defaultValue 100 */
  batch?: number | undefined;
  /** Options of the breaker in front of `deliver` (the default breaker's, `adaptiveBreaker()`). */
  breaker?: Record<string, unknown> | undefined;
  /** The name in events. @defaultValue `'writeBehind'` */
  name?: string | undefined;
  /** @defaultValue the system clock */
  clock?: Clock | undefined;
  /** Random source of the write ids and the breaker. @defaultValue `Math.random` */
  random?: (() => number) | undefined;
}

/** The rules of {@link WriteBehindOptions} (`WriteBehindOptionsSchema` in `breakwater/config` says the same). */
export const writeBehindOptions = /* @__PURE__ */ defineRule(() => object({
  deliver: fn<Deliver<unknown>>(),
  keyOf: optional(fn<(payload: unknown) => string>()),
  store: optional(custom<WriteQueue>(isWriteQueue, 'expected a WriteQueue (push, peek, ack)')),
  timeoutMs: withDefault(positiveMs, 1_000),
  replayIntervalMs: withDefault(positiveMs, 1_000),
  batch: withDefault(intAtLeast(1), 100),
  breaker: optional(record(anything)),
  name: withDefault(name, 'writeBehind'),
  clock: optional(clock),
  random: optional(random),
}));

/** {@link WriteBehindOptions} with defaults applied. */
export type ResolvedWriteBehindOptions = RuleOutput<typeof writeBehindOptions>;
