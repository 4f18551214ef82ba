import { PolicyBase, refuseAborted } from '../../lib/base.js';
import { systemClock } from '../../lib/clock.js';
import { runNext, toContext, type Context, type Scope } from '../../lib/context.js';
import { BulkheadRejectedError } from '../../lib/errors.js';
import { checkOptions } from '../../lib/options.js';
import { settledOutcome, thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { bulkheadOptions, type BulkheadOptions } from './options.js';
import { WaitQueue, type QueueNode } from '../../lib/wait-queue.js';
import { Slot, Waiter, type SlotOwner } from './queue.js';

/**
 * Bounds how many calls run at once (a bulkhead: isolation, so one slow dependency cannot take every worker): at
 * most `limit` run, up to `queue` more wait in arrival order, the rest are
 * rejected at once with `BulkheadRejectedError`. A waiter whose caller
 * aborts (or whose deadline passes) leaves the queue at once. A slot is held
 * until the operation itself settles, even when an inner aggressive timeout
 * or the caller has stopped waiting for it: an abandoned operation still uses
 * the resource the bulkhead bounds.
 *
 * @example
 * ```ts
 * const b = bulkhead({ limit: 10, queue: 20 });
 * await b.execute((ctx) => db.query(sql, { signal: ctx.signal }));
 * ```
 */
export class BulkheadPolicy extends PolicyBase {
  /** Most calls running at once. */
  readonly limit: number;
  /** Most calls waiting. */
  readonly queueLimit: number;
  private running = 0;
  private readonly waiting = new WaitQueue();
  /** What the queue's waiters and slots may do to this bulkhead; only they hold it. */
  private readonly slots: SlotOwner = {
    run: (op, c, next, start) => this.run(op, c, next, start),
    dequeue: (waiter, scope, start) => this.dequeue(waiter, scope, start),
    settled: (start, failed, error, scope) => this.settled(start, failed, error, scope),
    release: () => this.release(),
  };

  constructor(options: BulkheadOptions) {
    const o = checkOptions(bulkheadOptions, options, 'bulkhead');
    super(o.name, o.clock ?? systemClock);
    this.limit = o.limit;
    this.queueLimit = o.queue;
  }

  /** Calls running now (their operations not yet settled). */
  get executing(): number {
    return this.running;
  }

  /** Calls waiting for a slot now. */
  get queued(): number {
    return this.waiting.size;
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    if (this.running < this.limit && this.waiting.size === 0) {
      this.running++;
      return this.run(op, c, next, start);
    }
    const refused = refuseAborted(c);
    if (refused !== undefined) return refused;
    if (this.waiting.size >= this.queueLimit) {
      const error = new BulkheadRejectedError(this.name);
      if (this.events.observed) {
        this.events.emit({ type: 'limitRejected', policy: this.name, reason: 'bulkheadFull' });
        this.outcome(thrownOutcome(error, undefined), start, error);
      }
      return Promise.reject(error);
    }
    const waiter = new Waiter<R>(this.slots, op, c, next, start);
    this.waiting.push(waiter);
    if (this.events.observed) this.events.emit({ type: 'queued', policy: this.name, queued: this.waiting.size });
    return waiter.promise;
  }

  /** Runs a call that holds a slot; the slot is freed when the chain and every operation call it made have settled. */
  private run<R>(op: Operation<R>, c: Context, next: Chain | undefined, start: number): Promise<R> {
    const slot = new Slot<R>(this.slots, op, start, c.scope);
    let p: Promise<R>;
    try {
      p = runNext(slot.op, c, next);
    } catch (error) {
      p = Promise.reject(error);
    }
    p.then(slot.ok, slot.err);
    return p;
  }

  /** A slot's work is done: hand it to the first waiter, if any. */
  private release(): void {
    const waiter = this.waiting.shift();
    if (waiter === undefined) this.running--;
    else waiter.grant();
  }

  /** A waiter left the queue because its call was cancelled. */
  private dequeue(waiter: QueueNode, scope: Scope, start: number): void {
    this.waiting.remove(waiter);
    if (this.events.observed) this.outcome(thrownOutcome(scope.reason, scope), start, scope.reason);
  }

  /** Reports the outcome of a call that ran under `scope`. */
  private settled(start: number, failed: boolean, error: unknown, scope: Scope | undefined): void {
    if (this.events.observed) this.outcome(settledOutcome(failed, error, scope), start, error);
  }
}

/**
 * Makes a {@link BulkheadPolicy}: at most `limit` calls at once, `queue`
 * (default 0) waiting in order, the rest rejected with `BulkheadRejectedError`.
 *
 * @example
 * ```ts
 * const p = policy().timeout(1_000).bulkhead({ limit: 8, queue: 16 }); // the queue wait counts against no timeout
 * ```
 */
export function bulkhead(options: BulkheadOptions): BulkheadPolicy {
  return new BulkheadPolicy(options);
}
