import { systemClock, type Clock } from '../../lib/clock.js';
import { checkOptions, clock, defineRule, object, optional } from '../../lib/options.js';
import type { ClaimResult, IdempotencyStore } from './store.js';

interface MemoryRecord {
  state: 'pending' | 'success' | 'notStorable' | 'failed';
  token: string;
  leaseUntil: number;
  value: string;
  expiresAt: number;
}

/**
 * The in-process {@link IdempotencyStore}: records in a `Map`, expiry by
 * the clock (expired records are swept lazily, in amortized O(1) per
 * claim). Enough for one process; use `redisStore` to share keys between
 * processes.
 */
export class MemoryStore implements IdempotencyStore {
  private readonly records = new Map<string, MemoryRecord>();
  private seq = 0;
  private claimsSinceSweep = 0;

  constructor(private readonly clock: Clock = systemClock) {}

  /** Records held now, expired ones not yet swept included. */
  get size(): number {
    return this.records.size;
  }

  claim(key: string, leaseMs: number, ttlMs: number): Promise<ClaimResult> {
    const now = this.clock.now();
    if (++this.claimsSinceSweep > this.records.size) this.sweep(now);
    const rec = this.live(key, now);
    if (rec?.state === 'success') return Promise.resolve({ state: 'success', value: rec.value });
    if (rec?.state === 'notStorable') return Promise.resolve({ state: 'notStorable' });
    if (rec?.state === 'pending' && rec.leaseUntil > now) return Promise.resolve({ state: 'pending', retryInMs: rec.leaseUntil - now });
    const token = String(++this.seq);
    this.records.set(key, { state: 'pending', token, leaseUntil: now + leaseMs, value: '', expiresAt: now + Math.max(ttlMs, leaseMs) });
    return Promise.resolve({ state: 'claimed', token, takeover: rec?.state === 'pending' });
  }

  complete(key: string, token: string, value: string, ttlMs: number): Promise<boolean> {
    return Promise.resolve(this.settle(key, token, 'success', value, ttlMs));
  }

  completeNotStorable(key: string, token: string, ttlMs: number): Promise<boolean> {
    return Promise.resolve(this.settle(key, token, 'notStorable', '', ttlMs));
  }

  release(key: string, token: string, ttlMs: number): Promise<boolean> {
    return Promise.resolve(this.settle(key, token, 'failed', '', ttlMs));
  }

  extend(key: string, token: string, leaseMs: number): Promise<boolean> {
    const now = this.clock.now();
    const rec = this.live(key, now);
    if (rec === undefined || rec.state !== 'pending' || rec.token !== token) return Promise.resolve(false);
    rec.leaseUntil = now + leaseMs;
    rec.expiresAt = Math.max(rec.expiresAt, rec.leaseUntil);
    return Promise.resolve(true);
  }

  private settle(key: string, token: string, state: 'success' | 'notStorable' | 'failed', value: string, ttlMs: number): boolean {
    const now = this.clock.now();
    const rec = this.live(key, now);
    if (rec === undefined || rec.state !== 'pending' || rec.token !== token) return false;
    rec.state = state;
    rec.value = value;
    rec.expiresAt = now + ttlMs;
    return true;
  }

  private live(key: string, now: number): MemoryRecord | undefined {
    const rec = this.records.get(key);
    if (rec !== undefined && rec.expiresAt <= now) {
      this.records.delete(key);
      return undefined;
    }
    return rec;
  }

  private sweep(now: number): void {
    this.claimsSinceSweep = 0;
    for (const [key, rec] of this.records) if (rec.expiresAt <= now) this.records.delete(key);
  }
}

/**
 * Options of {@link memoryStore}.
 * @example
 * ```ts
 * memoryStore({ clock: new TestClock() });
 * ```
 */
export interface MemoryStoreOptions {
  /**
   * Clock of leases and TTLs.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

/** The rules of {@link MemoryStoreOptions} (`MemoryStoreOptionsSchema` in `breakwater/config` says the same). */
export const memoryStoreOptions = /* @__PURE__ */ defineRule(() => object({ clock: optional(clock) }));

/**
 * Makes a {@link MemoryStore}, the default store of `idempotent`.
 *
 * @example
 * ```ts
 * const store = memoryStore({ clock });
 * const a = idempotent({ store }), b = idempotent({ store }); // share records
 * ```
 */
export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  const o = checkOptions(memoryStoreOptions, options, 'memoryStore');
  return new MemoryStore(o.clock ?? systemClock);
}
