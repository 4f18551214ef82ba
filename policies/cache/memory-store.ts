import { systemClock, type Clock } from '../../lib/clock.js';
import { checkOptions, clock, custom, defineRule, intAtLeast, object, optional, type RuleOutput, withDefault } from '../../lib/options.js';
import type { CacheCodec, CacheRecord, CacheStore } from './store.js';

/**
 * Options of {@link memoryCacheStore}.
 * @example
 * ```ts
 * memoryCacheStore({ maxEntries: 10_000 });
 * ```
 */
export interface MemoryCacheStoreOptions {
  /**
   * Most keys kept; the least recently used is evicted first.
   * @defaultValue 1_000
   */
  maxEntries?: number | undefined;
  /**
   * Serializes values on write and deserializes on read, so each read gets its own copy and values are
   * checked as a remote store would check them.
   * @defaultValue none: values are kept and returned as they are (the same object each time)
   */
  codec?: CacheCodec | undefined;
  /**
   * The clock `retainMs` runs on.
   * @defaultValue the system clock (the cache policy passes its own)
   */
  clock?: Clock | undefined;
}

/** True for a {@link CacheCodec}: an object with `encode` and `decode`. */
export const isCacheCodec = (v: unknown): v is CacheCodec => typeof (v as CacheCodec)?.encode === 'function' && typeof (v as CacheCodec)?.decode === 'function';

/** The rules of {@link MemoryCacheStoreOptions} (`MemoryCacheStoreOptionsSchema` in `breakwater/config` says the same). */
export const memoryCacheStoreOptions = /* @__PURE__ */ defineRule(() => object({
  maxEntries: withDefault(intAtLeast(1), 1_000),
  codec: optional(custom<CacheCodec>(isCacheCodec, 'expected a codec (encode, decode)')),
  clock: optional(clock),
}));


interface Slot {
  record: CacheRecord | string;
  times: Omit<CacheRecord, 'value'> | undefined;
  dropAt: number;
}

class MemoryCacheStore implements CacheStore {
  // A Map iterates in insertion order: re-inserting on read keeps the least recently used first.
  private readonly slots = new Map<string, Slot>();
  private readonly maxEntries: number;
  private readonly codec: CacheCodec | undefined;
  private readonly clock: Clock;

  constructor(o: RuleOutput<typeof memoryCacheStoreOptions>) {
    this.maxEntries = o.maxEntries;
    this.codec = o.codec;
    this.clock = o.clock ?? systemClock;
  }

  get(key: string): Promise<CacheRecord | undefined> {
    const slot = this.slots.get(key);
    if (slot === undefined) return Promise.resolve(undefined);
    this.slots.delete(key);
    if (slot.dropAt <= this.clock.now()) return Promise.resolve(undefined);
    this.slots.set(key, slot);
    if (this.codec === undefined) return Promise.resolve(slot.record as CacheRecord);
    try {
      return Promise.resolve({ ...slot.times!, value: this.codec.decode(slot.record as string) });
    } catch (error) {
      return Promise.reject(error);
    }
  }

  set(key: string, record: CacheRecord, retainMs: number): Promise<void> {
    let stored: CacheRecord | string = record;
    let times: Omit<CacheRecord, 'value'> | undefined;
    if (this.codec !== undefined) {
      try {
        stored = this.codec.encode(record.value);
      } catch (error) {
        return Promise.reject(error);
      }
      times = { storedAt: record.storedAt, expiresAt: record.expiresAt, staleUntil: record.staleUntil };
    }
    this.slots.delete(key);
    this.slots.set(key, { record: stored, times, dropAt: this.clock.now() + retainMs });
    while (this.slots.size > this.maxEntries) this.slots.delete(this.slots.keys().next().value!);
    return Promise.resolve();
  }

  delete(key: string): Promise<void> {
    this.slots.delete(key);
    return Promise.resolve();
  }

  get size(): number {
    return this.slots.size;
  }
}

/**
 * An in-process {@link CacheStore}: a `Map` bounded to `maxEntries` keys
 * (least recently used evicted first), each kept `retainMs` on the clock.
 * The default store of {@link cache}.
 *
 * @example
 * ```ts
 * const users = cache({ ttlMs: 30_000, store: memoryCacheStore({ maxEntries: 10_000 }) });
 * ```
 */
export function memoryCacheStore(options: MemoryCacheStoreOptions = {}): CacheStore & { readonly size: number } {
  return new MemoryCacheStore(checkOptions(memoryCacheStoreOptions, options, 'memoryCacheStore'));
}
