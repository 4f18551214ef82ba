import type { Clock, TimerHandle } from '../../lib/clock.js';
import { toContext, type AbortListener, type Scope } from '../../lib/context.js';
import { checkOptions, defineRule, object, optional } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { WaitQueue, type QueueNode } from '../../lib/wait-queue.js';
import { retryAfter, type RateAlgorithm } from './algorithm.js';
import { nonNegativeInt, perSecond } from './numbers.js';

/**
 * Options of {@link leakyBucket}.
 * @example
 * ```ts
 * leakyBucket({ rate: 10, capacity: 20 });
 * ```
 */
export interface LeakyBucketOptions {
  /** Calls released per second, evenly spaced (one every `1000 / rate` ms). */
  rate: number;
  /**
   * Most calls waiting to be released; the rest are refused with `RateLimitedError`.
   * @defaultValue `max(1, ceil(rate))` (about a second of waiting)
   */
  capacity?: number | undefined;
}

/** The rules of {@link LeakyBucketOptions}, key by key. */
export const leakyBucketShape = /* @__PURE__ */ defineRule(() => ({ rate: perSecond, capacity: optional(nonNegativeInt) }));

/** The rules of {@link LeakyBucketOptions} (`LeakyBucketOptionsSchema` in `breakwater/config` says the same). */
export const leakyBucketOptions = /* @__PURE__ */ object(leakyBucketShape);



class Drop implements QueueNode, AbortListener {
  prev: QueueNode | undefined = undefined;
  next: QueueNode | undefined = undefined;
  readonly promise: Promise<number>;
  private resolve!: (v: number) => void;
  private reject!: (e: unknown) => void;

  constructor(
    private readonly owner: LeakyBucket,
    private readonly scope: Scope | undefined,
  ) {
    this.promise = new Promise<number>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    scope?.add(this);
  }

  grant(): void {
    this.scope?.remove(this);
    this.resolve(0);
  }

  onAbort(scope: Scope): void {
    if (scope.cooperative) {
      scope.add(this);
      return;
    }
    this.owner.leave(this);
    this.reject(scope.reason);
  }
}

/**
 * A leaky bucket as a queue: calls leave it one at a time,
 * every `1000 / rate` ms, however they arrive; up to `capacity` wait, the
 * rest are refused. A waiting call whose caller aborts leaves at once; a
 * call that could not be released before its deadline is refused at once.
 */
export class LeakyBucket implements RateAlgorithm {
  readonly kind = 'leakyBucket';
  private perSecond!: number;
  private room!: number;
  private interval!: number;
  private readonly queue = new WaitQueue();
  private nextAt = -Infinity;
  private timer: TimerHandle = undefined;
  private clock: Clock | undefined = undefined;

  constructor(options: LeakyBucketOptions) {
    this.reconfigure(options);
  }

  /** Calls released per second. */
  get rate(): number {
    return this.perSecond;
  }

  /** Most calls waiting at once. */
  get capacity(): number {
    return this.room;
  }

  /**
   * Hot reload: a new `rate` and `capacity`, keeping the calls that wait (in order; a lower capacity admits no
   * more until the queue is under it). The next release keeps its time; the ones after it follow the new rate.
   * A bad option is a `ConfigError` and changes nothing.
   */
  reconfigure(options: LeakyBucketOptions): void {
    const o = checkOptions(leakyBucketOptions, options, 'leakyBucket');
    this.perSecond = o.rate;
    this.room = o.capacity ?? Math.max(1, Math.ceil(o.rate));
    this.interval = 1000 / o.rate;
  }

  /** Calls waiting now. */
  get waiting(): number {
    return this.queue.size;
  }

  /** True when no call waits and the next may leave at clock time `now`, as from a new bucket. */
  idle(now: number): boolean {
    return this.queue.size === 0 && now >= this.nextAt;
  }

  /** Releases the call now, queues it, or refuses it; a call with a `reserve` may only join a queue under `capacity × (1 − reserve)`. */
  acquire(ctx: ExecutionContext, reserve = 0): number | Promise<number> {
    const clock = ctx.clock;
    const now = clock.now();
    if (this.queue.size === 0 && now >= this.nextAt) {
      this.nextAt = now + this.interval;
      return 0;
    }
    const headAt = Math.max(this.nextAt, now);
    if (this.queue.size >= this.room * (1 - reserve)) return retryAfter(headAt - now);
    const at = headAt + this.queue.size * this.interval;
    if (ctx.deadline !== undefined && at >= ctx.deadline) {
      // it could not leave before its deadline: refuse now rather than time out later
      return retryAfter(at - now);
    }
    const drop = new Drop(this, toContext(ctx).scope);
    this.queue.push(drop);
    if (this.timer === undefined) {
      this.clock = clock;
      this.timer = clock.setTimeout(this.tick, headAt - now);
    }
    return drop.promise;
  }

  /** @internal @hidden a waiting call was cancelled. */
  leave(drop: Drop): void {
    this.queue.remove(drop);
    if (this.queue.size === 0 && this.timer !== undefined) {
      this.clock!.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private readonly tick = (): void => {
    this.timer = undefined;
    const head = this.queue.shift();
    if (head === undefined) return;
    this.nextAt = this.clock!.now() + this.interval;
    head.grant();
    if (this.queue.size > 0) this.timer = this.clock!.setTimeout(this.tick, this.interval);
  };
}

/**
 * Makes a {@link LeakyBucket} for {@link rateLimiter}: calls are released at
 * a fixed `rate` per second, up to `capacity` waiting.
 *
 * @example
 * ```ts
 * const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 5, capacity: 10 }) });
 * ```
 */
export function leakyBucket(options: LeakyBucketOptions): LeakyBucket {
  return new LeakyBucket(options);
}
