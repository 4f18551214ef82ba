/**
 * What a store answers to a claim: the key is now ours (`claimed`, with its
 * fencing token; `takeover` when a dead claimant's lease had expired), it
 * already has a stored result (`success`), its operation ran but left a
 * result the codec cannot keep (`notStorable`: nothing to serve, nothing to
 * run), or someone else holds a live lease (`pending`, for `retryInMs` more
 * at most).
 */
export type ClaimResult =
  | { readonly state: 'claimed'; readonly token: string; readonly takeover: boolean }
  | { readonly state: 'success'; readonly value: string }
  | { readonly state: 'notStorable' }
  | { readonly state: 'pending'; readonly retryInMs: number };

/**
 * Where the idempotent executor keeps one record per key:
 * `pending` (with a lease), `success` (the encoded result, kept `ttlMs`),
 * `notStorable` (the operation ran, its result could not be encoded; kept
 * `ttlMs`) or `failed`. Every method must be atomic per key: `memoryStore()` is, and
 * `redisStore()` (from `breakwater/redis`) does each in one Lua script.
 *
 * @example
 * ```ts
 * const p = idempotent({ store: redisStore(redis, { prefix: 'orders:' }) });
 * ```
 */
export interface IdempotencyStore {
  /**
   * Claims `key` for `leaseMs` when it has no record, a `failed` one, or a
   * `pending` one whose lease has expired; a new claim gets a new fencing
   * token. Otherwise tells what the record is.
   */
  claim(key: string, leaseMs: number, ttlMs: number): Promise<ClaimResult>;
  /** Stores `value` as the key's result, kept `ttlMs`, if the record is still `pending` under `token` (compare-and-set); false otherwise. */
  complete(key: string, token: string, value: string, ttlMs: number): Promise<boolean>;
  /**
   * Marks the key `notStorable`, kept `ttlMs`, if the record is still `pending` under `token`: the operation
   * ran, so it must not run again, but there is no result to serve. False otherwise.
   */
  completeNotStorable(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Marks the key `failed` (claimable again) if the record is still `pending` under `token`; false otherwise. */
  release(key: string, token: string, ttlMs: number): Promise<boolean>;
  /** Extends a `pending` claim held under `token` to `leaseMs` from now; false when it is no longer ours. Needed for `renewLease`. */
  extend?(key: string, token: string, leaseMs: number): Promise<boolean>;
}

/** True for an {@link IdempotencyStore}. */
export function isIdempotencyStore(value: unknown): value is IdempotencyStore {
  const s = value as IdempotencyStore;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof s.claim === 'function' &&
    typeof s.complete === 'function' &&
    typeof s.completeNotStorable === 'function' &&
    typeof s.release === 'function'
  );
}
