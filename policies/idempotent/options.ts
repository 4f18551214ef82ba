import type { Clock } from '../../lib/clock.js';
import { bool, clock, custom, defineRule, fn, name, object, oneOf, optional, positiveMs, predicate, withDefault } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { isIdempotencyCodec, type IdempotencyCodec } from './codec.js';
import { isIdempotencyStore, type IdempotencyStore } from './store.js';

/**
 * Options of {@link idempotent}.
 * @example
 * ```ts
 * idempotent({ store: redisStore(redis), leaseMs: 10_000, onInProgress: 'wait' });
 * ```
 */
export interface IdempotentOptions {
  /**
   * Where records live: `memoryStore()` in this process, `redisStore(redis)` from `breakwater/redis` across processes.
   * @defaultValue a `memoryStore` on the policy's clock
   */
  store?: IdempotencyStore | undefined;
  /**
   * Derives the key when the caller passes none in `execute(op, { key })`.
   * @defaultValue none: `ctx.key` is required
   */
  key?: ((ctx: ExecutionContext) => string | undefined) | undefined;
  /**
   * How long a stored result (and a failed or not-storable record) is kept.
   * @defaultValue 86,400,000 (24 h)
   */
  ttlMs?: number | undefined;
  /**
   * How long a claim holds its key before another caller may take it over (a claimant that died).
   * Keep it above the operation's longest run: put a `timeout` inside `idempotent`.
   * @defaultValue 30,000
   */
  leaseMs?: number | undefined;
  /**
   * While the operation runs, extend its lease every `leaseMs / 3` (the store needs `extend`), so a live
   * claimant keeps its key however long it runs and `leaseMs` only bounds how long a dead one blocks it.
   * @defaultValue false
   */
  renewLease?: boolean | undefined;
  /**
   * What to do when another process holds a live claim: wait for its result or reject with `IdempotencyInProgressError`.
   * @defaultValue `'wait'`
   */
  onInProgress?: 'wait' | 'reject' | undefined;
  /**
   * Polling interval while waiting on another process's claim.
   * @defaultValue 100
   */
  pollMs?: number | undefined;
  /**
   * Encodes results for the store.
   * @defaultValue JSON (`undefined` kept)
   */
  codec?: IdempotencyCodec | undefined;
  /**
   * Each store call's own deadline; past it the call fails with `StoreUnavailableError`.
   * @defaultValue 1,000
   */
  storeTimeoutMs?: number | undefined;
  /**
   * When the store cannot be reached, run the operation anyway (no exactly-once) instead of rejecting.
   * @defaultValue false
   */
  failOpen?: boolean | undefined;
  /**
   * Which results count as failures (not stored; the caller still gets them).
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'idempotent'`
   */
  name?: string | undefined;
  /**
   * The clock of leases, TTLs and the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link IdempotentOptions} (`IdempotentOptionsSchema` in `breakwater/config` says the same). */
export const idempotentOptions = /* @__PURE__ */ defineRule(() => object({
  store: optional(custom<IdempotencyStore>(isIdempotencyStore, 'expected an IdempotencyStore (claim, complete, completeNotStorable, release)')),
  key: optional(fn<(ctx: ExecutionContext) => string | undefined>()),
  ttlMs: withDefault(positiveMs, 86_400_000),
  leaseMs: withDefault(positiveMs, 30_000),
  renewLease: withDefault(bool('expected a boolean'), false),
  onInProgress: withDefault(oneOf(['wait', 'reject']), 'wait'),
  pollMs: withDefault(positiveMs, 100),
  codec: optional(custom<IdempotencyCodec>(isIdempotencyCodec, 'expected a codec { encode, decode }')),
  storeTimeoutMs: withDefault(positiveMs, 1_000),
  failOpen: withDefault(bool('expected a boolean'), false),
  handleResult: optional(predicate),
  name: withDefault(name, 'idempotent'),
  clock: optional(clock),
}));
