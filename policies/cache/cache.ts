import { PolicyBase, refuseAborted } from '../../lib/base.js';
import { deadlineTimerOf, systemClock } from '../../lib/clock.js';
import { Context, runNext, Scope, toContext } from '../../lib/context.js';
import { judge } from '../../lib/judge.js';
import { checkOptions } from '../../lib/options.js';
import { settledOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { Flight, type FlightInfo, type FlightOwner } from './flight.js';
import { memoryCacheStore } from './memory-store.js';
import { cacheOptions, type CacheOptions } from './options.js';
import type { CacheRecord, CacheStore } from './store.js';

/** The last known value of a key, fresh or not, as {@link CachePolicy.stale} returns it. */
export interface StaleEntry<V> {
  readonly value: V;
  /** Clock time it was stored. */
  readonly storedAt: number;
  /** How old it is now, in milliseconds. */
  readonly ageMs: number;
}

/**
 * A result cache with in-flight request coalescing: one real call per key at
 * a time, every other caller of that key shares it (opossum's cache and
 * coalesce). Fresh values (`ttlMs`) are answered from the store; within
 * `staleWhileRevalidateMs` after that, the expired value is answered and one
 * background call refreshes it. Failures (and results `handleResult` refuses)
 * are never cached. One caller's abort rejects that caller alone; the shared
 * call's `ctx.signal` aborts when every caller joined to it has gone.
 * {@link CachePolicy.stale} reads the last known value of a key, even
 * expired: the stale snapshot source for fallbacks (see {@link staleFallback}).
 *
 * @example
 * ```ts
 * const users = cache({ ttlMs: 30_000, staleWhileRevalidateMs: 60_000 });
 * const user = await users.execute((ctx) => getUser(id, ctx.signal), { key: `user:${id}` });
 * ```
 */
export class CachePolicy extends PolicyBase {
  private ttl!: number;
  private swr!: number;
  /** Where values are kept. */
  readonly store: CacheStore;
  private retainMs!: number;
  private key: ((ctx: ExecutionContext) => string | undefined) | undefined;
  private handleResult: ((result: unknown) => boolean) | undefined;
  private readonly flights = new Map<string, Flight<unknown>>();
  private readonly refreshing = new Set<string>();
  /** What a flight reads and calls of this cache; only the flights hold it. */
  private readonly owner: FlightOwner;

  constructor(options: CacheOptions) {
    const o = checkOptions(cacheOptions, options, 'cache');
    super(o.name, o.clock ?? systemClock);
    this.apply(o);
    this.store = o.store ?? memoryCacheStore({ clock: this.clock });
    this.owner = {
      name: this.name,
      clock: this.clock,
      lookup: (key) => this.lookup(key),
      save: (key, value) => this.save(key, value),
      forget: (flight) => this.forget(flight),
      revalidate: (key, op, ctx, next, until) => this.revalidate(key, op, ctx, next, until),
      announce: (flight, count, coalesced) => this.announce(flight, count, coalesced),
      listening: () => this.events.observed,
      settled: (start, failed, error, scope) => this.settled(start, failed, error, scope),
    };
  }

  /** Fresh time of a stored value. */
  get ttlMs(): number {
    return this.ttl;
  }

  /** How long after `ttlMs` an expired value is still answered while it is refreshed. */
  get staleWhileRevalidateMs(): number {
    return this.swr;
  }

  /**
   * Hot reload: new `ttlMs`, `staleWhileRevalidateMs`, `retainMs`, `key` and `handleResult` (omitted ones take their
   * defaults, as at construction), keeping the store and what it holds: values stored from now on get the new
   * times, values already stored keep the ones they were stored with. A bad option is a `ConfigError` and changes
   * nothing.
   */
  reconfigure(options: Omit<CacheOptions, 'clock' | 'name' | 'store'>): void {
    this.apply(checkOptions(cacheOptions, { ...options, name: this.name }, this.name));
  }

  /** Takes the options a reload may change (at construction, all of them but the store). */
  private apply(o: ReturnType<typeof cacheOptions>): void {
    this.ttl = o.ttlMs;
    this.swr = o.staleWhileRevalidateMs;
    this.retainMs = o.retainMs;
    this.key = o.key;
    this.handleResult = o.handleResult;
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    const refused = refuseAborted(c);
    if (refused !== undefined) return refused;
    let key: string | undefined;
    try {
      key = this.keyOf(c);
    } catch (error) {
      return Promise.reject(error);
    }
    if (key === undefined) return runNext(op, c, next);
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    let flight = this.flights.get(key) as Flight<R> | undefined;
    if (flight !== undefined) return flight.join(c, start);
    flight = new Flight<R>(this.owner, key, op, c, next);
    this.flights.set(key, flight as Flight<unknown>);
    const joined = flight.join(c, start);
    void flight.run();
    return joined;
  }

  /**
   * The last known value for a key (or for a call's context, through the `key`
   * option), fresh or expired, as long as the store still holds it
   * (`retainMs`); `undefined` when there is none or the store fails. Runs
   * nothing. Fallbacks use it as their stale snapshot source.
   *
   * @example
   * ```ts
   * const last = await users.stale<User>(`user:${id}`);
   * if (last !== undefined && last.ageMs < 3_600_000) return last.value;
   * ```
   */
  async stale<V = unknown>(keyOrCtx: string | ExecutionContext): Promise<StaleEntry<V> | undefined> {
    const key = typeof keyOrCtx === 'string' ? keyOrCtx : this.keyOf(keyOrCtx);
    if (key === undefined) return undefined;
    const record = await this.lookup(key);
    if (record === undefined) return undefined;
    return { value: record.value as V, storedAt: record.storedAt, ageMs: this.clock.now() - record.storedAt };
  }

  /** Forgets the value of `key`; the next call for it runs. */
  invalidate(key: string): Promise<void> {
    return this.store.delete(key);
  }

  /** The call's key: the `key` option's, or the context's. */
  private keyOf(ctx: ExecutionContext): string | undefined {
    return this.key !== undefined ? this.key(ctx) : ctx.key;
  }

  /** The store's record, or `undefined` when it has none or fails. */
  private async lookup(key: string): Promise<CacheRecord | undefined> {
    try {
      return await this.store.get(key);
    } catch {
      return undefined;
    }
  }

  /** Stores a result unless `handleResult` refuses it; false when nothing was stored. */
  private async save(key: string, value: unknown): Promise<boolean> {
    if (this.handleResult !== undefined && judge(this.handleResult, value)) return false;
    const now = this.clock.now();
    const expiresAt = now + this.ttlMs;
    const record: CacheRecord = { value, storedAt: now, expiresAt, staleUntil: expiresAt + this.staleWhileRevalidateMs };
    try {
      await this.store.set(key, record, this.retainMs);
      return true;
    } catch {
      return false;
    }
  }

  /** A flight is over (or abandoned): later callers start a new one. */
  private forget(flight: { readonly key: string }): void {
    if (this.flights.get(flight.key) === flight) this.flights.delete(flight.key);
  }

  /**
   * One background refresh per key at a time; callers are answered
   * from the stale value meanwhile. Nobody waits on it, so no caller's signal
   * applies; its deadline is the end of the stale window, after which a
   * refresh is worthless (and a hung one would block every later refresh).
   */
  private revalidate<R>(key: string, op: Operation<R>, ctx: Context, next: Chain | undefined, until: number): void {
    if (this.refreshing.has(key)) return;
    this.refreshing.add(key);
    const scope = new Scope(undefined, undefined, until, deadlineTimerOf(this.clock), this.name, false);
    let p: Promise<R>;
    try {
      p = runNext(op, new Context(this.clock, scope, until, ctx.attempt, ctx.key, ctx.meta), next);
    } catch (error) {
      p = Promise.reject(error);
    }
    p.then(
      async (value) => {
        scope.dispose();
        const ok = await this.save(key, value);
        this.refreshing.delete(key);
        if (this.events.observed) this.events.emit({ type: 'revalidated', policy: this.name, key, ok });
      },
      (error: unknown) => {
        scope.dispose();
        this.refreshing.delete(key);
        if (this.events.observed) this.events.emit({ type: 'revalidated', policy: this.name, key, ok: false, error });
      },
    );
  }

  /** Emits `count` hit or miss events for a flight whose lookup is known. */
  private announce(flight: FlightInfo, count: number, coalesced: boolean): void {
    if (!this.events.observed) return;
    const key = flight.key;
    for (let i = 0; i < count; i++) {
      if (flight.kind === 'miss') this.events.emit({ type: 'miss', policy: this.name, key, coalesced: coalesced || i > 0 });
      else this.events.emit({ type: 'hit', policy: this.name, key, stale: flight.kind === 'stale' });
    }
  }

  /** One caller's outcome; `scope` is its call's (a result `handleResult` refuses is still a success: it is only not stored). */
  private settled(start: number, failed: boolean, error: unknown, scope: Scope | undefined): void {
    if (this.events.observed) this.outcome(settledOutcome(failed, error, scope), start, error);
  }
}

/**
 * Makes a {@link CachePolicy}. Defaults: the memory store (1,000 keys, LRU)
 * on the policy's clock, key `ctx.key`, no stale-while-revalidate, values
 * retained until evicted (for {@link CachePolicy.stale}).
 *
 * @example
 * ```ts
 * const p = policy().timeout(300).cache({ ttlMs: 10_000 }).retry();
 * await p.execute(getConfig, { key: 'config' });
 * ```
 */
export function cache(options: CacheOptions): CachePolicy {
  return new CachePolicy(options);
}

/**
 * A fallback handler that answers with the last known value of the call's
 * key from `source` (fresh or expired), and rethrows the original error when
 * there is none: the stale snapshot fallback of the `slowCallShield` and
 * `fallbackChain` strategies.
 *
 * @example
 * ```ts
 * const users = cache({ ttlMs: 30_000 });
 * const p = policy().use(users).timeout(300).fallback(staleFallback<User>(users));
 * ```
 */
export function staleFallback<V = unknown>(source: CachePolicy): (error: unknown, ctx: ExecutionContext) => Promise<V> {
  return async (error, ctx) => {
    const entry = await source.stale<V>(ctx);
    if (entry === undefined) throw error;
    return entry.value;
  };
}
