import { Context, runNext } from '../../lib/context.js';
import { SingleFlight, type FlightHost } from '../../lib/flight.js';
import type { Chain, Operation } from '../../lib/policy.js';
import type { Clock } from '../../lib/clock.js';
import type { CacheRecord } from './store.js';

/** What a flight needs of its cache, beyond a single-flight's host: look up, save, revalidate, announce. */
export interface FlightOwner extends FlightHost {
  readonly name: string;
  readonly clock: Clock;
  lookup(key: string): Promise<CacheRecord | undefined>;
  save(key: string, value: unknown): Promise<boolean>;
  revalidate<R>(key: string, op: Operation<R>, ctx: Context, next: Chain | undefined, until: number): void;
  announce(flight: FlightInfo, count: number, coalesced: boolean): void;
}

/** What the cache policy reads of a flight. */
export interface FlightInfo {
  readonly key: string;
  readonly kind: 'hit' | 'stale' | 'miss' | undefined;
}

/**
 * One lookup-and-maybe-call per key at a time, shared by every caller of that
 * key that arrives meanwhile (opossum's coalescing): a single-flight whose run
 * answers from the store or makes the one real call, and stores its value.
 */
export class Flight<R> extends SingleFlight<R> implements FlightInfo {
  readonly promise: Promise<R>;
  /** What the lookup found; `undefined` until it is known. */
  kind: 'hit' | 'stale' | 'miss' | undefined = undefined;
  private resolve!: (value: R) => void;
  private reject!: (error: unknown) => void;

  constructor(
    private readonly owner: FlightOwner,
    key: string,
    private readonly op: Operation<R>,
    private readonly ctx: Context,
    private readonly next: Chain | undefined,
  ) {
    super(key, owner.name, owner);
    this.promise = new Promise<R>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Adds a caller (a hit or miss event once the lookup is known); its own abort (caller or deadline) rejects it alone. */
  override join(ctx: Context, start: number): Promise<R> {
    if (this.kind !== undefined) this.owner.announce(this, 1, this.joins > 0);
    return super.join(ctx, start);
  }

  /** Looks the key up, then answers from the store or makes the one real call. */
  async run(): Promise<void> {
    const owner = this.owner;
    const record = await owner.lookup(this.key);
    if (this.scope.aborted) return this.fail(this.scope.reason);
    const now = owner.clock.now();
    if (record !== undefined && now < record.staleUntil) {
      const stale = now >= record.expiresAt;
      this.found(stale ? 'stale' : 'hit');
      this.succeed(record.value as R);
      owner.forget(this);
      if (stale) owner.revalidate(this.key, this.op, this.ctx, this.next, record.staleUntil);
      return;
    }
    this.found('miss');
    const c = this.ctx;
    let value: R;
    try {
      // No deadline: the first caller's is not the flight's (its scope does not enforce it, and
      // a policy inside that deferred to it would then never end the call for the callers left).
      value = await runNext(this.op, new Context(c.clock, this.scope, undefined, c.attempt, c.key, c.meta), this.next);
    } catch (error) {
      owner.forget(this);
      return this.fail(error);
    }
    this.succeed(value);
    // Callers arriving while the value is written still join this flight, so none makes a second call.
    await owner.save(this.key, value);
    owner.forget(this);
  }

  private found(kind: 'hit' | 'stale' | 'miss'): void {
    this.kind = kind;
    if (this.joins > 0) this.owner.announce(this, this.joins, false);
  }

  private succeed(value: R): void {
    this.markOver();
    this.scope.dispose();
    this.resolve(value);
  }

  private fail(error: unknown): void {
    this.markOver();
    this.scope.dispose();
    this.reject(error);
  }
}
