/**
 * One cached value and its times, all in clock milliseconds (epoch).
 * A store keeps it as it is or serializes it (the value through its codec).
 */
export interface CacheRecord {
  /** The cached value (decoded). */
  readonly value: unknown;
  /** When it was stored. */
  readonly storedAt: number;
  /** Fresh until this time: answered from the cache without a call. */
  readonly expiresAt: number;
  /** Until this time (>= `expiresAt`) an expired value is still answered while one background call refreshes it. */
  readonly staleUntil: number;
}

/**
 * Where {@link cache} keeps values. Every method is async so that a remote
 * store (Redis, memcached) fits: a Redis store would `SET key <codec-encoded
 * record> PX retainMs`, `GET`, `DEL`. A store may drop a record before
 * `retainMs` (an LRU bound does); it must never return one whose `retainMs`
 * has passed. A store that rejects is treated as a miss (the call runs; a
 * failed write is ignored): the cache never makes a call fail.
 *
 * @example
 * ```ts
 * const store: CacheStore = { get: async (k) => map.get(k), set: async (k, r) => void map.set(k, r), delete: async (k) => void map.delete(k) };
 * ```
 */
export interface CacheStore {
  /** The record for `key`, or `undefined`: expired records are still returned until their `retainMs` passes. */
  get(key: string): Promise<CacheRecord | undefined>;
  /** Stores `record` for `key`, to be kept at most `retainMs` (`Infinity`: until evicted). */
  set(key: string, record: CacheRecord, retainMs: number): Promise<void>;
  /** Forgets `key`. */
  delete(key: string): Promise<void>;
}

/**
 * Turns values into text and back, for stores that hold text (Redis).
 * `decode(encode(v))` must give back an equal value; `encode` throws for a
 * value it cannot represent (a failed write is then ignored, nothing cached).
 */
export interface CacheCodec {
  encode(value: unknown): string;
  decode(text: string): unknown;
}

/**
 * JSON: plain data only; `undefined`, functions and symbols cannot be encoded
 * (encode throws), `Date`s come back as strings.
 *
 * @example
 * ```ts
 * memoryCacheStore({ codec: jsonCacheCodec }); // check that values survive serialization before moving to Redis
 * ```
 */
export const jsonCacheCodec: CacheCodec = {
  encode(value: unknown): string {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`jsonCacheCodec: cannot encode ${typeof value}`);
    return text;
  },
  decode(text: string): unknown {
    return JSON.parse(text);
  },
};
