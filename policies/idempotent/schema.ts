import { z } from 'zod';
import { clockSchema, fnSchema, nameSchema, positiveMs } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { isIdempotencyCodec, type IdempotencyCodec } from './codec.js';
import { isIdempotencyStore, type IdempotencyStore } from './store.js';

/** The zod schema of the options of `idempotent`, for `fromConfig` and the JSON Schema. */
export const IdempotentOptionsSchema = z
  .object({
    /**
     * Where records live: `memoryStore()` in this process, `redisStore(redis)` from `breakwater/redis` across processes.
     * @defaultValue a `memoryStore` on the policy's clock
     */
    store: z.custom<IdempotencyStore>(isIdempotencyStore, { message: 'expected an IdempotencyStore (claim, complete, completeNotStorable, release)' }).optional(),
    /**
     * Derives the key when the caller passes none in `execute(op, { key })`.
     * @defaultValue none: `ctx.key` is required
     */
    key: fnSchema<(ctx: ExecutionContext) => string | undefined>().optional(),
    /** How long a stored result (and a failed or not-storable record) is kept. @defaultValue 86,400,000 (24 h) */
    ttlMs: positiveMs.default(86_400_000),
    /**
     * How long a claim holds its key before another caller may take it over (a claimant that died).
     * Keep it above the operation's longest run: put a `timeout` inside `idempotent`.
     * @defaultValue 30,000
     */
    leaseMs: positiveMs.default(30_000),
    /**
     * While the operation runs, extend its lease every `leaseMs / 3` (the store needs `extend`), so a live
     * claimant keeps its key however long it runs and `leaseMs` only bounds how long a dead one blocks it.
     * @defaultValue false
     */
    renewLease: z.boolean({ message: 'expected a boolean' }).default(false),
    /** What to do when another process holds a live claim: wait for its result or reject with `IdempotencyInProgressError`. @defaultValue `'wait'` */
    onInProgress: z.enum(['wait', 'reject']).default('wait'),
    /** Polling interval while waiting on another process's claim. @defaultValue 100 */
    pollMs: positiveMs.default(100),
    /** Encodes results for the store. @defaultValue JSON (`undefined` kept) */
    codec: z.custom<IdempotencyCodec>(isIdempotencyCodec, { message: 'expected a codec { encode, decode }' }).optional(),
    /** Each store call's own deadline; past it the call fails with `StoreUnavailableError`. @defaultValue 1,000 */
    storeTimeoutMs: positiveMs.default(1_000),
    /** When the store cannot be reached, run the operation anyway (no exactly-once) instead of rejecting. @defaultValue false */
    failOpen: z.boolean({ message: 'expected a boolean' }).default(false),
    /** Which results count as failures (not stored; the caller still gets them). @defaultValue none */
    handleResult: fnSchema<(result: unknown) => boolean>().optional(),
    /** @defaultValue `'idempotent'` */
    name: nameSchema.default('idempotent'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();


/** The zod schema of the options of `memoryStore`, for `fromConfig` and the JSON Schema. */
export const MemoryStoreOptionsSchema = z
  .object({
    /** Clock of leases and TTLs. @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();
