import type { AbortListener, Context, Scope } from '../../lib/context.js';
import type { Chain, ExecutionContext, Operation } from '../../lib/policy.js';
import type { QueueNode } from '../../lib/wait-queue.js';
import { isThenable } from '../../lib/thenable.js';
import { NO_PARTITION } from '../../lib/shedding.js';

/** What a waiter and a slot need of their bulkhead: run a call, take a waiter out, report, free a slot. */
export interface SlotOwner {
  run<R>(op: Operation<R>, c: Context, next: Chain | undefined, start: number, partition: number): Promise<R>;
  dequeue(waiter: Waiter<unknown>, scope: Scope, start: number): void;
  settled(start: number, failed: boolean, error: unknown, scope: Scope | undefined): void;
  release(partition: number): void;
}

/**
 * A call waiting for a bulkhead slot: a node of the wait queue and a
 * listener on its call's scope, so an abort takes it out of the queue at
 * once, in O(1).
 */
export class Waiter<R> implements AbortListener, QueueNode {
  prev: QueueNode | undefined = undefined;
  next: QueueNode | undefined = undefined;
  readonly promise: Promise<R>;
  private resolve!: (value: R | Promise<R>) => void;
  private reject!: (error: unknown) => void;

  constructor(
    private readonly owner: SlotOwner,
    private readonly op: Operation<R>,
    private readonly ctx: Context,
    private readonly chain: Chain | undefined,
    /** When the call arrived, on the bulkhead's clock. */
    readonly start: number,
    /** The rank of the call's criticality (0 critical, 1 default, 2 sheddable): the queue it waits in. */
    readonly rank: number = 1,
    /** The call's partition, or `NO_PARTITION`. */
    readonly partition: number = NO_PARTITION,
  ) {
    this.promise = new Promise<R>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    ctx.scope?.add(this);
  }

  /** A slot is ours: stop listening and run. */
  grant(): void {
    this.ctx.scope?.remove(this);
    this.resolve(this.owner.run(this.op, this.ctx, this.chain, this.start, this.partition));
  }

  /** A more important call took our place in a full queue: stop listening and reject with `error`. */
  evict(error: unknown): void {
    this.ctx.scope?.remove(this);
    this.reject(error);
  }

  /** The labels of the call, for the refusal event. */
  get meta(): Readonly<Record<string, string>> {
    return this.ctx.meta;
  }

  onAbort(scope: Scope): void {
    if (scope.cooperative) {
      // a cooperative deadline asks the operation to stop; nobody stops waiting for the slot
      scope.add(this);
      return;
    }
    this.owner.dequeue(this as Waiter<unknown>, scope, this.start);
    this.reject(scope.reason);
  }
}

/**
 * The slot of one running call. It counts the chain and every call of the
 * operation still in flight, and frees the slot when all have settled.
 */
export class Slot<R> {
  private pending = 1;

  constructor(
    private readonly owner: SlotOwner,
    private readonly inner: Operation<R>,
    private readonly start: number,
    private readonly scope: Scope | undefined,
    private readonly partition: number = NO_PARTITION,
  ) {}

  /** The operation as the inner chain sees it: counted while it runs. */
  readonly op = (ctx: ExecutionContext): R | PromiseLike<R> => {
    if (this.pending === 0) return this.inner(ctx);
    this.pending++;
    let value: R | PromiseLike<R>;
    try {
      value = this.inner(ctx);
    } catch (error) {
      this.done();
      throw error;
    }
    if (!isThenable<R>(value)) {
      this.done();
      return value;
    }
    const p = Promise.resolve(value);
    p.then(this.done, this.done);
    return p;
  };

  readonly ok = (): void => {
    this.owner.settled(this.start, false, undefined, this.scope);
    this.done();
  };

  readonly err = (error: unknown): void => {
    this.owner.settled(this.start, true, error, this.scope);
    this.done();
  };

  private readonly done = (): void => {
    if (--this.pending === 0) this.owner.release(this.partition);
  };
}
