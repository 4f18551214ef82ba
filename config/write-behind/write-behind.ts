import { merge, type Observable } from 'rxjs';
import { adaptiveBreaker, type AdaptiveBreakerPolicy } from '../../policies/adaptive-breaker/index.js';
import { timeout } from '../../policies/timeout/index.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { isBrokenCircuitError } from '../../lib/errors.js';
import { EventSource, type PolicyEvent } from '../../lib/events.js';
import { checkOptions } from '../../lib/options.js';
import { pipe, type Pipeline } from '../../lib/pipe.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { memoryWriteQueue, type QueuedWrite, type WriteQueue } from './queue.js';
import { writeBehindOptions, type Deliver, type ResolvedWriteBehindOptions, type WriteBehindOptions } from './options.js';

export type { Deliver, WriteBehindOptions } from './options.js';

/** What {@link WriteBehind.write} reports: delivered now, or safely queued for the replayer. */
export type WriteResult = { readonly status: 'delivered'; readonly id: string } | { readonly status: 'queued'; readonly id: string };

/**
 * Strategy #9 (asynchronous writes as degradation): a writer, not
 * a pipeline. `write(payload)` delivers through `timeout → breaker`; when
 * that fails or is shed, the payload is queued in the store and the call
 * resolves as `queued`. A replayer drains the queue through the same
 * pipeline, in order per key, each write carrying its id as `ctx.key` so the
 * target can make replays idempotent. Once `write` has resolved, nothing is lost
 * while the store holds (a Redis queue survives restarts; memory does not).
 */
export class WriteBehind<P = unknown> {
  /** The name in events. */
  readonly name: string;
  /** The delivery pipeline: timeout → breaker (the default breaker). */
  readonly pipeline: Pipeline<never>;
  /** The breaker in front of `deliver`. */
  readonly breaker: AdaptiveBreakerPolicy;
  /** Every event: the pipeline's, plus `writeQueued` and `replayed`. */
  readonly events$: Observable<PolicyEvent>;
  private readonly events = new EventSource();
  private readonly o: ResolvedWriteBehindOptions;
  private readonly store: WriteQueue;
  private readonly clock: Clock;
  private readonly random: () => number;
  /** Keys with writes waiting in the queue (this process's view, loaded from the store at start). */
  private readonly waiting = new Map<string, number>();
  private readonly ready: Promise<void>;
  private timer: unknown = undefined;
  private replaying: Promise<void> | undefined;
  private seq = 0;
  private closed = false;

  constructor(options: WriteBehindOptions<P>) {
    this.o = checkOptions(writeBehindOptions, options, 'writeBehind');
    this.name = this.o.name;
    this.clock = this.o.clock ?? systemClock;
    this.random = this.o.random ?? Math.random;
    this.store = this.o.store ?? memoryWriteQueue();
    this.breaker = adaptiveBreaker({ ...this.o.breaker, name: `${this.name}.breaker`, clock: this.clock, random: this.random });
    this.pipeline = pipe(timeout({ ms: this.o.timeoutMs, name: `${this.name}.timeout`, clock: this.clock }), this.breaker);
    this.events$ = merge(this.pipeline.events$, this.events.events$);
    // Writes queued before a restart keep their order: learn their keys, then replay them.
    this.ready = this.store.peek(Number.MAX_SAFE_INTEGER).then(
      (items) => {
        for (const item of items) this.waiting.set(item.key, (this.waiting.get(item.key) ?? 0) + 1);
        if (items.length > 0) this.schedule();
      },
      () => undefined,
    );
  }

  /**
   * Writes `payload`: delivered now, or queued when delivery fails or is shed
   * (and, to keep order, when earlier writes of its key are still queued).
   * Rejects only when the caller aborts before it is queued, or the store
   * itself fails (then nothing was accepted).
   */
  async write(payload: P, options: { key?: string; signal?: AbortSignal } = {}): Promise<WriteResult> {
    await this.ready;
    const key = options.key ?? this.o.keyOf?.(payload) ?? '';
    const item: QueuedWrite = { id: `${this.clock.now().toString(36)}-${(this.seq++).toString(36)}-${Math.floor(this.random() * 1e9).toString(36)}`, key, payload, queuedAt: this.clock.now() };
    if (!this.waiting.has(key)) {
      try {
        await this.deliver(item, options.signal);
        this.kick();
        return { status: 'delivered', id: item.id };
      } catch (error) {
        if (options.signal?.aborted) throw error;
      }
    }
    await this.store.push(item);
    this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
    if (this.events.observed) this.events.emit({ type: 'writeQueued', policy: this.name, id: item.id, key });
    this.schedule();
    return { status: 'queued', id: item.id };
  }

  /** Writes waiting in this process's view of the queue. */
  get queued(): number {
    let n = 0;
    for (const c of this.waiting.values()) n += c;
    return n;
  }

  /** Runs one replay round now (normally the timer does); resolves when it ends. */
  replay(): Promise<void> {
    this.replaying ??= this.round().finally(() => {
      this.replaying = undefined;
      if (this.waiting.size > 0) this.schedule();
    });
    return this.replaying;
  }

  /** Stops the replayer's timer; queued writes stay in the store. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private deliver(item: QueuedWrite, signal?: AbortSignal): Promise<unknown> {
    const deliver = this.o.deliver;
    return this.pipeline.execute((ctx) => deliver(item.payload, ctx), { key: item.id, ...(signal ? { signal } : {}) });
  }

  private async round(): Promise<void> {
    const blocked = new Set<string>();
    const items = await this.store.peek(this.o.batch).catch(() => [] as QueuedWrite[]);
    for (const item of items) {
      if (blocked.has(item.key)) continue;
      try {
        await this.deliver(item);
      } catch (error) {
        // Keep order: nothing after a failed write of the same key goes first.
        blocked.add(item.key);
        if (isBrokenCircuitError(error)) return;
        continue;
      }
      try {
        await this.store.ack(item.id);
      } catch {
        // Delivered but still queued: the store is failing, so stop here; the write is replayed (same id) later.
        return;
      }
      const left = (this.waiting.get(item.key) ?? 1) - 1;
      if (left > 0) this.waiting.set(item.key, left);
      else this.waiting.delete(item.key);
      if (this.events.observed) this.events.emit({ type: 'replayed', policy: this.name, id: item.id, key: item.key });
    }
  }

  /** A direct delivery succeeded: the dependency is back, so drain now rather than at the next tick. */
  private kick(): void {
    if (this.waiting.size > 0 && this.replaying === undefined) {
      if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
      this.timer = undefined;
      void this.replay();
    }
  }

  private schedule(): void {
    if (this.closed || this.timer !== undefined || this.replaying !== undefined) return;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      void this.replay();
    }, this.o.replayIntervalMs);
  }
}

/**
 * Makes a {@link WriteBehind} writer.
 *
 * @example
 * ```ts
 * const orders = writeBehind({ deliver: saveOrder, keyOf: (o: Order) => o.customerId });
 * const r = await orders.write(order); // { status: 'delivered' } or { status: 'queued' }
 * ```
 */
export function writeBehind<P>(options: WriteBehindOptions<P>): WriteBehind<P> {
  return new WriteBehind<P>(options);
}

