import { PolicyBase, refuseAborted } from '../../lib/base.js';
import { systemClock } from '../../lib/clock.js';
import { runNext, toContext, type Scope } from '../../lib/context.js';
import { ConfigError, IdempotencyInProgressError, IdempotencyKeyMissingError, IdempotencyResultNotStorableError } from '../../lib/errors.js';
import { judge } from '../../lib/judge.js';
import { checkOptions } from '../../lib/options.js';
import { settledOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { sleep } from '../../lib/sleep.js';
import { encodeChecked, jsonIdempotencyCodec, type IdempotencyCodec } from './codec.js';
import { Flight, type FlightOwner } from './flight.js';
import { memoryStore } from './memory-store.js';
import { idempotentOptions, type IdempotentOptions } from './options.js';
import type { ClaimResult, IdempotencyStore } from './store.js';
import { LeaseRenewer } from './renewer.js';
import { boundedStoreCall } from '../../lib/store-call.js';

/**
 * Runs an operation at most once per key.
 * Concurrent callers of a key in this process share one run (single-flight);
 * across processes the store arbitrates: a claim is atomic and carries a
 * fencing token, a stored result is served without running the operation,
 * another process's live claim is waited on (or rejected), a dead claimant's
 * lease expires and is taken over once. Failures are never stored: the
 * callers of a failed run get its error and the next caller runs again. A
 * success the codec cannot keep is still a run: its callers get the result,
 * and later callers get `IdempotencyResultNotStorableError` for `ttlMs`.
 *
 * @example
 * ```ts
 * const charge = idempotent({ store: redisStore(redis, { prefix: 'charge:' }), leaseMs: 10_000 });
 * const receipt = await charge.execute((ctx) => psp.charge(order, { signal: ctx.signal }), { key: `order:${order.id}` });
 * ```
 */
export class IdempotentPolicy extends PolicyBase {
  /** Where records live. */
  readonly store: IdempotencyStore;
  private readonly flights = new Map<string, Flight<unknown>>();
  private readonly keyOf: ((ctx: ExecutionContext) => string | undefined) | undefined;
  private readonly codec: IdempotencyCodec;
  private readonly handleResult: ((result: unknown) => boolean) | undefined;
  private o: ReturnType<typeof parseIdempotentOptions>;
  /** What a flight calls of this policy; only the flights hold it. */
  private readonly owner: FlightOwner = {
    name: this.name,
    runFlight: (f, next) => this.runFlight(f, next),
    forget: (f) => this.forget(f),
    settled: (start, failed, error, scope) => this.settled(start, failed, error, scope),
    listening: () => this.events.observed,
  };

  constructor(options: IdempotentOptions = {}) {
    const o = parseIdempotentOptions(options);
    super(o.name, o.clock ?? systemClock);
    this.o = o;
    this.store = o.store ?? memoryStore({ clock: this.clock });
    if (o.renewLease && typeof this.store.extend !== 'function') {
      throw new ConfigError('idempotent', [{ path: 'renewLease', message: 'the store has no extend(key, token, leaseMs) to renew leases with' }]);
    }
    this.keyOf = o.key;
    this.codec = o.codec ?? jsonIdempotencyCodec;
    this.handleResult = o.handleResult;
  }

  /** How long a claim holds its key before another caller may take it over. */
  get leaseMs(): number {
    return this.o.leaseMs;
  }

  /** How long a stored result (and a failed or not-storable record) is kept. */
  get ttlMs(): number {
    return this.o.ttlMs;
  }

  /**
   * Hot reload: new `ttlMs`, `leaseMs`, `renewLease`, `onInProgress`, `pollMs`, `storeTimeoutMs` and `failOpen`
   * (omitted ones take their defaults, as at construction) for the claims made from now on. What the store holds is
   * kept: stored results keep the TTL they were written with, and a claim in flight keeps its callers, its lease and
   * the renewal of that lease (its result is stored with the TTL in force when it completes). The store, the codec, `key` and `handleResult` are kept (they are not options of a
   * reload). `renewLease` on a store without `extend` is a `ConfigError`, as at construction; a bad option is a
   * `ConfigError` and changes nothing.
   *
   * @example
   * ```ts
   * charge.reconfigure({ leaseMs: 20_000, ttlMs: 3_600_000 });
   * ```
   */
  reconfigure(options: Omit<IdempotentOptions, 'clock' | 'name' | 'store' | 'codec' | 'key' | 'handleResult'>): void {
    const o = checkOptions(idempotentOptions, { ...options, name: this.name }, this.name);
    if (o.renewLease && typeof this.store.extend !== 'function') {
      throw new ConfigError(this.name, [{ path: 'renewLease', message: 'the store has no extend(key, token, leaseMs) to renew leases with' }]);
    }
    this.o = { ...o, store: this.o.store, key: this.o.key, codec: this.o.codec, handleResult: this.o.handleResult, clock: this.o.clock };
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    const scope = c.scope;
    const refused = refuseAborted(c);
    if (refused !== undefined) return refused;
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    let key: string | undefined;
    try {
      key = c.key ?? this.keyOf?.(c);
    } catch (error) {
      this.settled(start, true, error, scope);
      return Promise.reject(error);
    }
    if (typeof key !== 'string' || key === '') {
      const error = new IdempotencyKeyMissingError(this.name);
      this.settled(start, true, error, scope);
      return Promise.reject(error);
    }
    let flight = this.flights.get(key) as Flight<R> | undefined;
    if (flight === undefined || this.clock.now() >= flight.leaseEndsAt) {
      flight = new Flight<R>(this.owner, key, op, c, next);
      this.flights.set(key, flight as Flight<unknown>);
    } else if (this.events.observed) {
      this.events.emit({ type: 'joined', policy: this.name, key, callers: flight.callers + 1 });
    }
    return flight.join(c, start);
  }

  /** The shared run of a key: claim, then serve, wait or run. */
  private async runFlight<R>(f: Flight<R>, next: Chain | undefined): Promise<R> {
    for (;;) {
      // Read per claim: a hot reload applies to the next claim, and a claim's run keeps the lease it was claimed with.
      const { leaseMs, ttlMs } = this.o;
      let claim: ClaimResult;
      try {
        claim = await this.storeCall('claim', () => this.store.claim(f.key, leaseMs, ttlMs));
      } catch (error) {
        if (!this.o.failOpen) throw error;
        f.leaseEndsAt = this.clock.now() + leaseMs;
        return runNext(f.op, f.ctx, next);
      }
      if (claim.state === 'success') {
        if (this.events.observed) this.events.emit({ type: 'served', policy: this.name, key: f.key });
        return this.codec.decode(claim.value) as R;
      }
      if (claim.state === 'notStorable') throw new IdempotencyResultNotStorableError(this.name, f.key);
      if (claim.state === 'claimed') {
        if (this.events.observed) {
          this.events.emit({ type: claim.takeover ? 'takeover' : 'claimed', policy: this.name, key: f.key, token: claim.token });
        }
        return this.runClaimed(f, next, claim.token, leaseMs);
      }
      if (this.o.onInProgress === 'reject') throw new IdempotencyInProgressError(this.name, f.key);
      await sleep(this.clock, Math.max(1, Math.min(this.o.pollMs, claim.retryInMs)), f.scope);
    }
  }

  private async runClaimed<R>(f: Flight<R>, next: Chain | undefined, token: string, leaseMs: number): Promise<R> {
    f.leaseEndsAt = this.clock.now() + leaseMs;
    if (!this.o.renewLease) return this.runAndSettle(f, next, token);
    const { key } = f;
    const renewer = new LeaseRenewer(this.clock, leaseMs / 3, async () => {
      const at = this.clock.now();
      const ours = await this.storeCall('extend', () => this.store.extend!(key, token, leaseMs));
      f.leaseEndsAt = ours ? at + leaseMs : -Infinity;
      return ours;
    });
    try {
      return await this.runAndSettle(f, next, token);
    } finally {
      renewer.stop();
    }
  }

  private async runAndSettle<R>(f: Flight<R>, next: Chain | undefined, token: string): Promise<R> {
    let value: R;
    try {
      value = await runNext(f.op, f.ctx, next);
    } catch (error) {
      // Callers still wait: they get the error now, not when an operation that
      // ignores its signal ends (it may never). The claim is released later.
      if (next !== undefined || !f.scope.aborted) {
        this.release(f, token);
        throw error;
      }
      // Every caller left, but the operation may run on and succeed: its effect
      // then happened, so its result is stored and nobody runs it again. Only
      // when nothing sits between us and the operation: an inner policy may
      // have judged that value a failure.
      await f.idle();
      if (!f.lastOk) {
        this.release(f, token);
        throw error;
      }
      value = f.lastValue as R;
    }
    if (this.handleResult !== undefined && judge(this.handleResult, value)) {
      this.release(f, token);
      return value;
    }
    // The operation has run: its result is the callers' even if the store
    // misses the write (the claim then lapses after leaseMs), and even if the
    // codec cannot keep it. Its effect happened either way, so the key is
    // never released to run again: it is recorded as run, with no result.
    let text: string;
    try {
      text = encodeChecked(this.codec, value, f.key);
    } catch (error) {
      if (this.events.observed) this.events.emit({ type: 'notStorable', policy: this.name, key: f.key, error });
      await this.storeCall('complete', () => this.store.completeNotStorable(f.key, token, this.o.ttlMs)).catch(noop);
      return value;
    }
    await this.storeCall('complete', () => this.store.complete(f.key, token, text, this.o.ttlMs)).catch(noop);
    return value;
  }

  /**
   * Marks the claim failed once no call of the operation still runs, so that
   * it never overlaps a new claimant's run; in the background (nobody waits
   * for it, and it never rejects). Until then the key stays claimed.
   */
  private release(f: Flight<unknown>, token: string): void {
    void f.idle().then(() => this.storeCall('release', () => this.store.release(f.key, token, this.o.ttlMs)).catch(noop));
  }

  private storeCall<T>(what: string, call: () => Promise<T>): Promise<T> {
    return boundedStoreCall(this.clock, this.o.storeTimeoutMs, this.name, what, call);
  }

  /** A flight is over (or abandoned): later callers start a new one. */
  private forget(f: { readonly key: string }): void {
    if (this.flights.get(f.key) === f) this.flights.delete(f.key);
  }

  /**
   * One caller's outcome, under its call's `scope` (a
   * result `handleResult` refuses is still a success: it is only not stored).
   */
  private settled(start: number, failed: boolean, error: unknown, scope: Scope | undefined): void {
    if (this.events.observed) this.outcome(settledOutcome(failed, error, scope), start, error);
  }
}

function noop(): void {}

function parseIdempotentOptions(options: IdempotentOptions) {
  return checkOptions(idempotentOptions, options, 'idempotent');
}

/**
 * Makes an {@link IdempotentPolicy}. The key comes from `execute(op, { key })`
 * or the `key(ctx)` option; a call without one rejects with
 * `IdempotencyKeyMissingError`. Defaults: a `memoryStore`, results kept 24 h,
 * 30 s leases, `onInProgress: 'wait'`, JSON codec, 1 s per store call.
 *
 * @example
 * ```ts
 * const p = policy().timeout(5_000).idempotent({ leaseMs: 10_000 });
 * await p.execute(() => sendInvoice(id), { key: `invoice:${id}` }); // sent once, however often retried
 * ```
 */
export function idempotent(options: IdempotentOptions = {}): IdempotentPolicy {
  return new IdempotentPolicy(options);
}
