import { Context, Scope, type AbortListener } from '../../lib/context.js';
import type { Chain, ExecutionContext, Operation } from '../../lib/policy.js';
import { isThenable } from '../../lib/thenable.js';

/** What a flight needs of its idempotent policy: run it, forget it, report. */
export interface FlightOwner {
  runFlight<R>(f: Flight<R>, next: Chain | undefined): Promise<R>;
  forget(f: Flight<unknown>): void;
  settled(start: number, failed: boolean, error: unknown, scope: Scope | undefined): void;
}

/**
 * One run of a key in this process (single-flight): every concurrent caller
 * of the key joins it and gets its outcome. Its scope aborts only when every
 * joined caller has left; a caller's own abort rejects that caller alone.
 */
export class Flight<R> {
  /** Callers waiting on this run. */
  callers = 0;
  /** Aborted only when every caller has left. */
  readonly scope = new Scope(undefined, undefined, Infinity, undefined, '', false);
  /** The context the shared run sees: no deadline of its own (each caller has its own), the first caller's attempt and meta. */
  readonly ctx: Context;
  /** The shared outcome. */
  readonly promise: Promise<R>;
  /** The operation as the shared run calls it, counted while it runs. */
  readonly op: Operation<R>;
  /**
   * Whether the operation's call fulfilled, and with what: an abandoned run's
   * result is still stored. Read only when the operation is the layer right
   * under the policy, which calls it once per run.
   */
  lastOk = false;
  lastValue: R | undefined = undefined;
  /**
   * Clock time the run's claim lapses (its lease, last renewal included);
   * `Infinity` until the run holds one. A caller arriving later does not
   * join: like a caller in another process, it claims the key anew and
   * takes over, instead of waiting on a run nobody guards any more.
   */
  leaseEndsAt = Infinity;
  private running = 0;
  private idleWaiter: (() => void) | undefined = undefined;

  constructor(
    readonly owner: FlightOwner,
    readonly key: string,
    private readonly inner: Operation<R>,
    first: Context,
    next: Chain | undefined,
  ) {
    this.ctx = new Context(first.clock, this.scope, undefined, first.attempt, key, first.meta);
    this.op = (ctx) => this.call(ctx);
    this.promise = owner.runFlight(this, next);
    this.promise.then(this.settled, this.settled);
  }

  /** Adds a caller; its promise settles with the run, or at once when the caller's own scope aborts. */
  join(c: Context, start: number): Promise<R> {
    this.callers++;
    return new Joiner(this, c, start).promise;
  }

  /** @internal @hidden a caller gave up on the run. */
  leave(scope: Scope): void {
    if (--this.callers > 0) return;
    this.owner.forget(this as Flight<unknown>);
    this.scope.abort(scope.reason, scope.byCaller, false);
  }

  /** Resolves once no call of the operation is still running (an abandoned one included). */
  idle(): Promise<void> {
    if (this.running === 0) return Promise.resolve();
    return new Promise<void>((resolve) => (this.idleWaiter = resolve));
  }

  private call(ctx: ExecutionContext): R | PromiseLike<R> {
    const value = this.inner(ctx);
    if (!isThenable<R>(value)) {
      this.opOk(value as R);
      return value;
    }
    this.running++;
    const p = Promise.resolve(value);
    p.then(this.opFulfilled, this.opRejected);
    return p;
  }

  private opOk(value: R): void {
    this.lastOk = true;
    this.lastValue = value;
  }

  private readonly opFulfilled = (value: unknown): void => {
    this.opOk(value as R);
    this.opSettled();
  };

  private readonly opRejected = (): void => {
    this.lastOk = false;
    this.opSettled();
  };

  private opSettled(): void {
    if (--this.running === 0 && this.idleWaiter !== undefined) {
      this.idleWaiter();
      this.idleWaiter = undefined;
    }
  }

  private readonly settled = (): void => {
    this.owner.forget(this as Flight<unknown>);
  };
}

class Joiner<R> implements AbortListener {
  readonly promise: Promise<R>;
  private resolve!: (v: R) => void;
  private reject!: (e: unknown) => void;
  private done = false;

  constructor(
    private readonly flight: Flight<R>,
    private readonly c: Context,
    private readonly start: number,
  ) {
    this.promise = new Promise<R>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    flight.promise.then(this.ok, this.err);
    const scope = c.scope;
    if (scope === undefined) return;
    // The caller's signal may abort while its key is computed (user code): then it has already left.
    if (scope.aborted && !scope.cooperative) this.onAbort(scope);
    else scope.add(this);
  }

  onAbort(scope: Scope): void {
    if (scope.cooperative) {
      scope.add(this);
      return;
    }
    if (this.done) return;
    this.done = true;
    this.flight.owner.settled(this.start, true, scope.reason, scope);
    this.reject(scope.reason);
    this.flight.leave(scope);
  }

  private readonly ok = (value: R): void => {
    if (this.done) return;
    this.done = true;
    this.c.scope?.remove(this);
    this.flight.owner.settled(this.start, false, undefined, this.c.scope);
    this.resolve(value);
  };

  private readonly err = (error: unknown): void => {
    if (this.done) return;
    this.done = true;
    this.c.scope?.remove(this);
    this.flight.owner.settled(this.start, true, error, this.c.scope);
    this.reject(error);
  };
}
