import { Context } from '../../lib/context.js';
import { SingleFlight, type FlightHost } from '../../lib/flight.js';
import type { Chain, ExecutionContext, Operation } from '../../lib/policy.js';
import { isThenable } from '../../lib/thenable.js';

/** What a flight needs of its idempotent policy, beyond a single-flight's host: run it. */
export interface FlightOwner extends FlightHost {
  /** The policy's name. */
  readonly name: string;
  runFlight<R>(f: Flight<R>, next: Chain | undefined): Promise<R>;
}

/**
 * One run of a key in this process: a single-flight whose run claims the key
 * in the store, then serves, waits or runs the operation. It counts the
 * operation's calls, so an abandoned run's result is still stored and the
 * claim is released only once no call of it still runs.
 */
export class Flight<R> extends SingleFlight<R> {
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
    owner: FlightOwner,
    key: string,
    private readonly inner: Operation<R>,
    first: Context,
    next: Chain | undefined,
  ) {
    super(key, owner.name, owner);
    this.ctx = new Context(first.clock, this.scope, undefined, first.attempt, key, first.meta);
    this.op = (ctx) => this.call(ctx);
    this.promise = owner.runFlight(this, next);
    this.promise.then(this.settled, this.settled);
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
    this.markOver();
    this.host.forget(this);
  };
}
