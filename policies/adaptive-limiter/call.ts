import { thrownOutcome } from '../../lib/outcome.js';
import type { ExecutionContext, Operation } from '../../lib/policy.js';
import { isThenable } from '../../lib/thenable.js';
import { NO_PARTITION } from '../../lib/shedding.js';

/** What a settled call says about the dependency's capacity. */
export const ANSWERED = 0;
/** It timed out, or failed with an overload error: the limit must come down. */
export const DROPPED = 1;
/** Nothing: the caller cancelled, an inner policy shed it, or it failed for another reason. */
export const IGNORED = 2;
/** One of {@link ANSWERED}, {@link DROPPED}, {@link IGNORED}. */
export type Measure = 0 | 1 | 2;

/** What a call and a permit call back into. */
export interface LimiterCore {
  /** Records a call that started at `start` with `inFlight` calls in flight, and reports its outcome. */
  settle(start: number, inFlight: number, measure: Measure, error: unknown, result: ReturnType<typeof thrownOutcome> | 'success'): void;
  /** A slot of `partition` is free again. */
  release(partition: number): void;
  /** What a thrown `error` measures, from the point of view `at` of its call. */
  measureOf(error: unknown, at: ExecutionContext | undefined): Measure;
}

/**
 * One call admitted through `execute`. The call is measured when the chain
 * under the limiter settles (at an enclosing deadline, a drop); its slot is
 * freed when the chain and every operation call it made have settled, since
 * an abandoned operation still loads the dependency.
 */
export class LimitedCall<R> {
  private pending = 1;

  constructor(
    private readonly owner: LimiterCore,
    private readonly inner: Operation<R>,
    private readonly start: number,
    private readonly inFlight: number,
    private readonly ctx: ExecutionContext,
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
    this.owner.settle(this.start, this.inFlight, ANSWERED, undefined, 'success');
    this.done();
  };

  readonly err = (error: unknown): void => {
    this.owner.settle(this.start, this.inFlight, this.owner.measureOf(error, this.ctx), error, thrownOutcome(error, this.ctx));
    this.done();
  };

  private readonly done = (): void => {
    if (--this.pending === 0) this.owner.release(this.partition);
  };
}

/**
 * A call admitted through the permit API (`allow()`): settle it once with
 * `success()`, `failure(error)` or `release()`; later calls do nothing. A
 * `failure` with a `TimeoutError` (or an error the limiter's `isOverload`
 * accepts) is a drop; any other failure, and a release, free the slot and
 * measure nothing.
 *
 * @example
 * ```ts
 * const permit = limiter.allow(); // throws ConcurrencyLimitedError when shed
 * try { const r = await call(); permit.success(); return r; }
 * catch (e) { permit.failure(e); throw e; }
 * ```
 */
export class LimiterPermit {
  private settled = false;

  constructor(
    private readonly owner: LimiterCore,
    private readonly start: number,
    private readonly inFlight: number,
    private readonly partition: number = NO_PARTITION,
  ) {}

  /** The call was answered: its response time is measured. */
  success(): void {
    if (this.settled) return;
    this.settled = true;
    this.owner.settle(this.start, this.inFlight, ANSWERED, undefined, 'success');
    this.owner.release(this.partition);
  }

  /** The call failed; `error` goes into the `outcome` event and decides whether it was a drop. */
  failure(error?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.owner.settle(this.start, this.inFlight, this.owner.measureOf(error, undefined), error, thrownOutcome(error, undefined));
    this.owner.release(this.partition);
  }

  /** The call ended without an answer worth measuring (its caller went away): frees the slot. */
  release(): void {
    if (this.settled) return;
    this.settled = true;
    this.owner.settle(this.start, this.inFlight, IGNORED, undefined, 'cancelled');
    this.owner.release(this.partition);
  }
}
