import { z } from 'zod';
import { clockSchema, fnSchema, nameSchema, nonNegativeMs, positiveMs } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';
import type { CacheStore } from './store.js';
import { isCacheStore } from './options.js';
import { isCacheCodec } from './memory-store.js';
import type { CacheCodec } from './store.js';

/** Options of `cache`. */
export const CacheOptionsSchema = z
  .object({
    /** How long a stored value is fresh: answered without a call. */
    ttlMs: positiveMs,
    /**
     * After `ttlMs`, how long an expired value is still answered while one background call refreshes it.
     * @defaultValue 0 (an expired value is a miss)
     */
    staleWhileRevalidateMs: nonNegativeMs.default(0),
    /**
     * How long the store keeps a value after writing it, so that `CachePolicy.stale` can answer with it
     * long after it expired (for fallbacks). At least `ttlMs + staleWhileRevalidateMs`.
     * @defaultValue `Infinity` (until the store's own bound evicts it)
     */
    retainMs: z.custom<number>((n) => typeof n === 'number' && n > 0, { message: 'expected a number of milliseconds > 0' }).default(Infinity),
    /** Where values are kept. @defaultValue `memoryCacheStore({ clock })` (1,000 keys, LRU) */
    store: z.custom<CacheStore>(isCacheStore, { message: 'expected a CacheStore (get, set, delete)' }).optional(),
    /**
     * The cache key of a call; `undefined` runs the call uncached.
     * @defaultValue `ctx.key` (`execute(op, { key })`)
     */
    key: fnSchema<(ctx: ExecutionContext) => string | undefined>().optional(),
    /**
     * Which results must not be cached (e.g. an HTTP 503 response); they are still returned.
     * @defaultValue none
     */
    handleResult: fnSchema<(result: unknown) => boolean>().optional(),
    /** @defaultValue `'cache'` */
    name: nameSchema.default('cache'),
    /** @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict()
  .refine((o) => o.retainMs >= o.ttlMs + o.staleWhileRevalidateMs, {
    message: 'retainMs must be >= ttlMs + staleWhileRevalidateMs',
    path: ['retainMs'],
  });


/** The zod schema of the options of `memoryCacheStore`, for `fromConfig` and the JSON Schema. */
export const MemoryCacheStoreOptionsSchema = z
  .object({
    /** Most keys kept; the least recently used is evicted first. @defaultValue 1_000 */
    maxEntries: z
      .number({ message: 'expected an integer >= 1' })
      .int({ message: 'expected an integer >= 1' })
      .min(1, { message: 'expected an integer >= 1' })
      .default(1_000),
    /**
     * Serializes values on write and deserializes on read, so each read gets its own copy and values are
     * checked as a remote store would check them.
     * @defaultValue none: values are kept and returned as they are (the same object each time)
     */
    codec: z
      .custom<CacheCodec>(isCacheCodec, {
        message: 'expected a codec (encode, decode)',
      })
      .optional(),
    /** The clock `retainMs` runs on. @defaultValue the system clock (the cache policy passes its own) */
    clock: clockSchema.optional(),
  })
  .strict();
