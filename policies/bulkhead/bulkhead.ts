import { PolicyBase, refuseAborted } from '../../lib/base.js';
import { systemClock } from '../../lib/clock.js';
import { runNext, toContext, type Context, type Scope } from '../../lib/context.js';
import { BulkheadRejectedError } from '../../lib/errors.js';
import { checkOptions } from '../../lib/options.js';
import { settledOutcome, thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { bulkheadOptions, type BulkheadOptions } from './options.js';
import { WaitQueue } from '../../lib/wait-queue.js';
import { criticalityOf, criticalityRank, CRITICALITIES } from '../../lib/criticality.js';
import { fits, NO_PARTITION, Partitions, refusedFields, reserveFor, reshare, type Reserve } from '../../lib/shedding.js';
import { Slot, Waiter, type SlotOwner } from './queue.js';

/**
 * Bounds how many calls run at once (a bulkhead: isolation, so one slow dependency cannot take every worker): at
 * most `limit` run, up to `queue` more wait in arrival order, the rest are
 * rejected at once with `BulkheadRejectedError`.
 *
 * Lower criticality is shed first (`ctx.meta.criticality`, see
 * docs/bulkhead.md): a `sheddable` call runs only while fewer than
 * `limit × (1 − reserve.sheddable)` run, a `default` one while fewer than
 * `limit × (1 − reserve.default)` run; waiters are served critical first,
 * then default, then sheddable, each in arrival order, and a full queue makes
 * room for a more critical call by refusing its newest least critical waiter.
 * With `partitions`, each class of calls is guaranteed its share of the
 * limit: it may borrow slots others leave idle, and a class under its share
 * takes the next free slot before any class over it (the bulkhead never runs
 * more than `limit`, so a guarantee is a first claim on slots, not the
 * pre-emption of running calls). A waiter whose caller
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
  private max: number;
  private queueMax: number;
  private reserve: Reserve;
  private readonly partitions: Partitions | undefined;
  private running = 0;
  private waitingCount = 0;
  /** One queue per criticality, most critical first. */
  private readonly waiting: readonly WaitQueue[] = CRITICALITIES.map(() => new WaitQueue());
  /** What the queue's waiters and slots may do to this bulkhead; only they hold it. */
  private readonly slots: SlotOwner = {
    run: (op, c, next, start, partition) => this.run(op, c, next, start, partition),
    dequeue: (waiter, scope, start) => this.dequeue(waiter, scope, start),
    settled: (start, failed, error, scope) => this.settled(start, failed, error, scope),
    release: (partition) => this.release(partition),
  };

  constructor(options: BulkheadOptions) {
    const o = checkOptions(bulkheadOptions, options, 'bulkhead');
    super(o.name, o.clock ?? systemClock);
    this.max = o.limit;
    this.queueMax = o.queue;
    this.reserve = o.reserve;
    this.partitions = o.partitions === undefined ? undefined : new Partitions(o.partitions, o.partitionBy);
  }

  /** Most calls running at once. */
  get limit(): number {
    return this.max;
  }

  /** Most calls waiting. */
  get queueLimit(): number {
    return this.queueMax;
  }

  /**
   * Hot reload: a new `limit`, `queue` and `reserve`, keeping the calls running and waiting. A higher limit lets
   * waiters in at once; a lower one lets running calls finish and admits no more until fewer run; a shorter queue
   * keeps its waiters and refuses new ones until it has room. `partitions` and `partitionBy` shape the bookkeeping
   * and cannot change in place (a `ConfigError`; build a new bulkhead). A bad option is a `ConfigError` and changes
   * nothing.
   */
  reconfigure(options: Omit<BulkheadOptions, 'clock' | 'name'>): void {
    const o = checkOptions(bulkheadOptions, { ...options, name: this.name }, this.name);
    reshare(this.name, this.partitions, o.partitions, o.partitionBy, 'bulkhead');
    this.max = o.limit;
    this.queueMax = o.queue;
    this.reserve = o.reserve;
    this.admitWaiters();
  }

  /** Calls running now (their operations not yet settled). */
  get executing(): number {
    return this.running;
  }

  /** Calls waiting for a slot now. */
  get queued(): number {
    return this.waitingCount;
  }

  /** Calls of partition `name` running now (0 for a name that is no partition). */
  runningIn(name: string): number {
    const i = this.partitions?.names.indexOf(name) ?? NO_PARTITION;
    return this.partitions?.inFlight(i) ?? 0;
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    const rank = criticalityRank(criticalityOf(c));
    const partition = this.partitions === undefined ? NO_PARTITION : this.partitions.of(c.meta);
    // No waiter may run while a slot is free (release hands free slots on at once): a call that may run overtakes nobody who could.
    if (this.mayRun(rank, partition)) {
      this.take(partition);
      return this.run(op, c, next, start, partition);
    }
    const refused = refuseAborted(c);
    if (refused !== undefined) return refused;
    if (this.waitingCount >= this.queueMax) {
      const victim = this.queueMax === 0 ? undefined : this.victimFor(rank, partition);
      if (victim === undefined) return Promise.reject(this.refuse(c.meta, partition, start));
      this.waiting[victim.rank]!.remove(victim);
      this.waitingCount--;
      victim.evict(this.refuse(victim.meta, victim.partition, victim.start));
    }
    const waiter = new Waiter<R>(this.slots, op, c, next, start, rank, partition);
    this.waiting[rank]!.push(waiter);
    this.waitingCount++;
    if (this.events.observed) this.events.emit({ type: 'queued', policy: this.name, queued: this.waitingCount });
    return waiter.promise;
  }

  /** True when a call of criticality rank `rank` in `partition` may take a slot now. */
  private mayRun(rank: number, partition: number): boolean {
    if (this.running >= this.max) return false;
    if (this.partitions?.under(partition, this.max) === true) return true;
    return fits(this.running, this.max, reserveFor(this.reserve, CRITICALITIES[rank]!));
  }

  private take(partition: number): void {
    this.running++;
    this.partitions?.enter(partition);
  }

  /**
   * The waiter a full queue gives up for a call of `rank` in `partition`:
   * the newest of the least critical waiters less critical than it; else,
   * when the call's partition is under its share, the newest waiter of a
   * partition that is not.
   */
  private victimFor(rank: number, partition: number): Waiter<unknown> | undefined {
    for (let r = this.waiting.length - 1; r > rank; r--) {
      const last = this.waiting[r]!.last;
      if (last !== undefined) return last as Waiter<unknown>;
    }
    const parts = this.partitions;
    if (parts === undefined || !parts.under(partition, this.max)) return undefined;
    for (let r = this.waiting.length - 1; r >= 0; r--) {
      for (let w = this.waiting[r]!.last as Waiter<unknown> | undefined; w !== undefined; w = w.prev as Waiter<unknown> | undefined) {
        if (w.partition !== partition && !parts.under(w.partition, this.max)) return w;
      }
    }
    return undefined;
  }

  /** Makes the refusal of a call with labels `meta` that arrived at `start`, and reports it. */
  private refuse(meta: Readonly<Record<string, string>>, partition: number, start: number): BulkheadRejectedError {
    const error = new BulkheadRejectedError(this.name);
    if (this.events.observed) {
      this.events.emit({ type: 'limitRejected', policy: this.name, reason: 'bulkheadFull', ...refusedFields(meta, this.partitions?.nameOf(partition)) });
      const now = this.clock.now();
      this.outcome(thrownOutcome(error, undefined), start, error, now);
    }
    return error;
  }

  /** Runs a call that holds a slot; the slot is freed when the chain and every operation call it made have settled. */
  private run<R>(op: Operation<R>, c: Context, next: Chain | undefined, start: number, partition: number): Promise<R> {
    const slot = new Slot<R>(this.slots, op, start, c.scope, partition);
    let p: Promise<R>;
    try {
      p = runNext(slot.op, c, next);
    } catch (error) {
      p = Promise.reject(error);
    }
    p.then(slot.ok, slot.err);
    return p;
  }

  /** A slot's work is done: hand the free slots to the waiters that may have them. */
  private release(partition: number): void {
    this.running--;
    this.partitions?.leave(partition);
    this.admitWaiters();
  }

  /** Hands the free slots to the waiters that may have them. */
  private admitWaiters(): void {
    for (let w = this.nextWaiter(); w !== undefined; w = this.nextWaiter()) {
      this.waiting[w.rank]!.remove(w);
      this.waitingCount--;
      this.take(w.partition);
      w.grant();
    }
  }

  /**
   * The waiter the next free slot goes to: the first (most critical, then
   * oldest) of a partition under its share; else the first that its reserve
   * lets run. `undefined` when the bulkhead is full or no waiter may run.
   */
  private nextWaiter(): Waiter<unknown> | undefined {
    if (this.running >= this.max || this.waitingCount === 0) return undefined;
    const parts = this.partitions;
    if (parts !== undefined) {
      for (const q of this.waiting) {
        for (let w = q.first as Waiter<unknown> | undefined; w !== undefined; w = w.next as Waiter<unknown> | undefined) {
          if (parts.under(w.partition, this.max)) return w;
        }
      }
    }
    for (const q of this.waiting) {
      const w = q.first as Waiter<unknown> | undefined;
      // Within a criticality the reserve is the same: if the oldest may not run, none may.
      if (w !== undefined && this.mayRun(w.rank, w.partition)) return w;
    }
    return undefined;
  }

  /** A waiter left the queue because its call was cancelled. */
  private dequeue(waiter: Waiter<unknown>, scope: Scope, start: number): void {
    this.waiting[waiter.rank]!.remove(waiter);
    this.waitingCount--;
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
