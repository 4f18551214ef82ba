import type { Observable } from 'rxjs';
import { systemClock, type Clock } from '../../lib/clock.js';
import { executeWith, runNext, toContext, type Context, type Scope } from '../../lib/context.js';
import { BulkheadRejectedError } from '../../lib/errors.js';
import { EventSource, type OutcomeResult, type PolicyEvent } from '../../lib/events.js';
import { checkOptions } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../../lib/policy.js';
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
export class BulkheadPolicy implements Policy<never> {
  declare readonly [ANSWER]?: () => never;
  readonly name: string;
  /** Most calls running at once. */
  readonly limit: number;
  /** Most calls waiting. */
  readonly queueLimit: number;
  readonly events$: Observable<PolicyEvent>;
  /** @internal @hidden */
  readonly events = new EventSource();
  /** @internal @hidden */
  readonly clock: Clock;
  private running = 0;
  private readonly waiting = new WaitQueue();

  constructor(options: BulkheadOptions) {
    const o = checkOptions(bulkheadOptions, options, 'bulkhead');
    this.name = o.name;
    this.limit = o.limit;
    this.queueLimit = o.queue;
    this.clock = o.clock ?? systemClock;
    this.events$ = this.events.events$;
  }

  /** Calls running now (their operations not yet settled). */
  get executing(): number {
    return this.running;
  }

  /** Calls waiting for a slot now. */
  get queued(): number {
    return this.waiting.size;
  }

  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R> {
    return executeWith(this, op, options, this.clock);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    if (this.running < this.limit && this.waiting.size === 0) {
      this.running++;
      return this.run(op, c, next, start);
    }
    const scope = c.scope;
    if (scope !== undefined && scope.aborted && !scope.cooperative) return Promise.reject(scope.reason);
    if (this.waiting.size >= this.queueLimit) {
      const error = new BulkheadRejectedError(this.name);
      if (this.events.observed) {
        this.events.emit({ type: 'limitRejected', policy: this.name, reason: 'bulkheadFull' });
        this.report(thrownOutcome(error, undefined), start, error);
      }
      return Promise.reject(error);
    }
    const waiter = new Waiter<R>(this, op, c, next, start);
    this.waiting.push(waiter);
    if (this.events.observed) this.events.emit({ type: 'queued', policy: this.name, queued: this.waiting.size });
    return waiter.promise;
  }

  /** @internal @hidden runs a call that holds a slot; the slot is freed when the chain and every operation call it made have settled. */
  run<R>(op: Operation<R>, c: Context, next: Chain | undefined, start: number): Promise<R> {
    const slot = new Slot<R>(this, op, start, c.scope);
    let p: Promise<R>;
    try {
      p = runNext(slot.op, c, next);
    } catch (error) {
      p = Promise.reject(error);
    }
    p.then(slot.ok, slot.err);
    return p;
  }

  /** @internal @hidden a slot's work is done: hand it to the first waiter, if any. */
  release(): void {
    const waiter = this.waiting.shift();
    if (waiter === undefined) this.running--;
    else waiter.grant();
  }

  /** @internal @hidden a waiter left the queue because its call was cancelled. */
  dequeue(waiter: QueueNode, scope: Scope, start: number): void {
    this.waiting.remove(waiter);
    if (this.events.observed) this.report(thrownOutcome(scope.reason, scope), start, scope.reason);
  }

  /** @internal @hidden */
  report(result: OutcomeResult, start: number, error?: unknown): void {
    this.events.emit({ type: 'outcome', policy: this.name, result, durationMs: this.clock.now() - start, error });
  }

  /** @internal @hidden the outcome of a call that ran under `scope`. */
  settled(start: number, failed: boolean, error: unknown, scope: Scope | undefined): void {
    if (!this.events.observed) return;
    if (!failed) this.report('success', start);
    else this.report(thrownOutcome(error, scope), start, error);
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
