import type { Clock } from '../../lib/clock.js';
import { clock, custom, defineRule, fn, name, nonNegativeMs, object, optional, positiveMs, predicate, withDefault } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import type { CacheStore } from './store.js';

/** True for a {@link CacheStore}: an object with `get`, `set` and `delete`. */
export function isCacheStore(v: unknown): v is CacheStore {
  const s = v as CacheStore;
  return typeof v === 'object' && v !== null && typeof s.get === 'function' && typeof s.set === 'function' && typeof s.delete === 'function';
}

/**
 * Options of {@link cache}.
 * @example
 * ```ts
 * cache({ ttlMs: 60_000, staleWhileRevalidateMs: 300_000, key: (ctx) => ctx.meta.userId });
 * ```
 */
export interface CacheOptions {
  /** How long a stored value is fresh: answered without a call. */
  ttlMs: number;
  /**
   * After `ttlMs`, how long an expired value is still answered while one background call refreshes it.
   * @defaultValue 0 (an expired value is a miss)
   */
  staleWhileRevalidateMs?: number | undefined;
  /**
   * How long the store keeps a value after writing it, so that {@link CachePolicy.stale} can answer with it
   * long after it expired (for fallbacks). At least `ttlMs + staleWhileRevalidateMs`.
   * @defaultValue `Infinity` (until the store's own bound evicts it)
   */
  retainMs?: number | undefined;
  /**
   * Where values are kept.
   * @defaultValue `memoryCacheStore({ clock })` (1,000 keys, LRU)
   */
  store?: CacheStore | undefined;
  /**
   * The cache key of a call; `undefined` runs the call uncached.
   * @defaultValue `ctx.key` (`execute(op, { key })`)
   */
  key?: ((ctx: ExecutionContext) => string | undefined) | undefined;
  /**
   * Which results must not be cached (e.g. an HTTP 503 response); they are still returned.
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'cache'`
   */
  name?: string | undefined;
  /**
   * The clock of freshness and of the durations in events.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link CacheOptions} (`CacheOptionsSchema` in `breakwater/config` says the same). */
export const cacheOptions = /* @__PURE__ */ defineRule(() => object(
  {
    ttlMs: positiveMs,
    staleWhileRevalidateMs: withDefault(nonNegativeMs, 0),
    // Infinity is allowed: keep until the store's own bound evicts it.
    retainMs: withDefault(custom<number>((n) => typeof n === 'number' && n > 0, 'expected a number of milliseconds > 0'), Infinity),
    store: optional(custom<CacheStore>(isCacheStore, 'expected a CacheStore (get, set, delete)')),
    key: optional(fn<(ctx: ExecutionContext) => string | undefined>()),
    handleResult: optional(predicate),
    name: withDefault(name, 'cache'),
    clock: optional(clock),
  },
  (o, add) => {
    if (!(o.retainMs >= o.ttlMs + o.staleWhileRevalidateMs)) add('retainMs must be >= ttlMs + staleWhileRevalidateMs', ['retainMs']);
  },
));
