import { Context, Guard, runNext, Scope } from '../../lib/context.js';
import type { Chain, Operation } from '../../lib/policy.js';
import type { Clock } from '../../lib/clock.js';
import type { CacheRecord } from './store.js';

/** What a flight needs of its cache: look up, save, forget, revalidate, report. */
export interface FlightOwner {
  readonly name: string;
  readonly clock: Clock;
  lookup(key: string): Promise<CacheRecord | undefined>;
  save(key: string, value: unknown): Promise<boolean>;
  forget(flight: FlightInfo): void;
  revalidate<R>(key: string, op: Operation<R>, ctx: Context, next: Chain | undefined, until: number): void;
  announce(flight: FlightInfo, count: number, coalesced: boolean): void;
  observe<V>(p: Promise<V>, start: number): Promise<V>;
  settled(start: number, failed: boolean, error: unknown, scope: Scope | undefined): void;
}

/** What the cache policy reads of a flight. */
export interface FlightInfo {
  readonly key: string;
  readonly kind: 'hit' | 'stale' | 'miss' | undefined;
}

/**
 * One lookup-and-maybe-call per key at a time, shared by every caller of that
 * key that arrives meanwhile (opossum's coalescing). The shared call runs
 * under its own scope, which aborts only when every joined caller has left.
 */
export class Flight<R> implements FlightInfo {
  readonly done: Promise<R>;
  /** What the lookup found; `undefined` until it is known. */
  kind: 'hit' | 'stale' | 'miss' | undefined = undefined;
  private resolve!: (value: R) => void;
  private reject!: (error: unknown) => void;
  private readonly scope: Scope;
  private members = 0;
  private joins = 0;
  private settled = false;

  constructor(
    /** @internal */ readonly owner: FlightOwner,
    readonly key: string,
    private readonly op: Operation<R>,
    private readonly ctx: Context,
    private readonly next: Chain | undefined,
  ) {
    this.done = new Promise<R>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.scope = new Scope(undefined, undefined, Infinity, undefined, owner.name, false);
  }

  /** Adds a caller; its own abort (caller or deadline) rejects it alone. */
  join(ctx: Context, start: number): Promise<R> {
    this.members++;
    this.joins++;
    if (this.kind !== undefined) this.owner.announce(this, 1, this.joins > 1);
    const scope = ctx.scope;
    if (scope === undefined) return this.owner.observe(this.done, start);
    return new Member<R>(scope, this, start).watch(this.done);
  }

  /** A caller gave up; the last one to leave aborts the shared call. */
  leave(scope: Scope): void {
    if (--this.members > 0 || this.settled) return;
    this.owner.forget(this);
    this.scope.abort(scope.reason, scope.byCaller, false);
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
    this.settled = true;
    this.scope.dispose();
    this.resolve(value);
  }

  private fail(error: unknown): void {
    this.settled = true;
    this.scope.dispose();
    this.reject(error);
  }
}

/** One caller's wait on a flight: settles with it, or alone when the caller's own scope aborts. */
class Member<R> extends Guard<R> {
  constructor(
    scope: Scope,
    private readonly flight: Flight<R>,
    private readonly start: number,
  ) {
    super(scope, false);
  }

  protected override settleOk(value: R): void {
    this.flight.owner.settled(this.start, false, undefined, this.scope);
    super.settleOk(value);
  }

  protected override settleErr(error: unknown): void {
    this.flight.owner.settled(this.start, true, error, this.scope);
    super.settleErr(error);
  }

  protected override fail(error: unknown): void {
    if (this.settled) return;
    this.flight.leave(this.scope);
    this.flight.owner.settled(this.start, true, error, this.scope);
    super.fail(error);
  }
}
