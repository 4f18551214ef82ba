import { PolicyBase, refuseAborted } from '../../lib/base.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { runNext } from '../../lib/context.js';
import { ConcurrencyLimitedError } from '../../lib/errors.js';
import type { OutcomeResult } from '../../lib/events.js';
import type { LimitChangeReason } from './events.js';
import { judge } from '../../lib/judge.js';
import { checkOptions } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { algorithmOf, type LimitAlgorithm, type WindowFigures } from './algorithms.js';
import { ANSWERED, DROPPED, IGNORED, LimitedCall, LimiterPermit, type LimiterCore, type Measure } from './call.js';
import { adaptiveLimiterOptions, type AdaptiveLimiterOptions } from './options.js';
import { Sampler } from './sampler.js';
import { criticalityOf } from '../../lib/criticality.js';
import { fits, NO_PARTITION, Partitions, refusedFields, reserveFor, reshare, type Reserve } from '../../lib/shedding.js';

const NO_META: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({});

/** Answers faster than this many ms are not measured. */
const MIN_RTT_MS = 1;

/** What {@link AdaptiveLimiterPolicy.stats} reports. */
export interface AdaptiveLimiterStats {
  /** Calls admitted at once now. */
  readonly limit: number;
  /** Calls in flight now (their operations not yet settled). */
  readonly inFlight: number;
  /** Mean response time of the last window's answered calls, in ms; `undefined` before the first window. */
  readonly rttMs: number | undefined;
  /** The no-load response time the algorithm compares with, in ms; `undefined` for AIMD and before the first window. */
  readonly baselineMs: number | undefined;
  /** True while the limit doubles per window instead of growing by a step (no queueing seen since the start or the floor). */
  readonly slowStart: boolean;
}

/**
 * An adaptive concurrency limiter: admits as many calls at once as the
 * dependency answers without queueing, and sheds the rest at once with
 * `ConcurrencyLimitedError` (never retried, never counted by a breaker,
 * answered by a fallback). The limit moves once per sampling window by one
 * of three algorithms (Netflix concurrency-limits' Gradient2, AIMD, Vegas);
 * timeouts lower it, response times near the no-load baseline raise it,
 * doubling per window until the first sign of queueing (TCP's slow start).
 *
 * Place it under the retry, around the per-attempt timeout, so each attempt
 * holds a slot and a timed-out attempt is a drop:
 * `policy().timeout(300).adaptiveLimit().retry().breaker().fallback(f)`.
 * `allow()` gives the same limit to servers (the HTTP guards, the gRPC
 * interceptor).
 *
 * Lower criticality is shed first (`ctx.meta.criticality`): a `sheddable`
 * call is admitted only while fewer than `limit × (1 − reserve.sheddable)`
 * calls are in flight, a `default` one while fewer than
 * `limit × (1 − reserve.default)`. With `partitions` (Netflix
 * concurrency-limits' partitioned limiter), a class of calls under its
 * guaranteed `ceil(limit × share)` is admitted even when the limit is
 * reached, and borrows what other classes leave idle otherwise.
 *
 * @example
 * ```ts
 * const limiter = adaptiveLimiter();
 * await limiter.execute((ctx) => fetch(url, { signal: ctx.signal }));
 * ```
 */
export class AdaptiveLimiterPolicy extends PolicyBase {
  /** The clock the windows run on. */
  declare readonly clock: Clock;
  private algorithm: LimitAlgorithm;
  private readonly sampler: Sampler;
  private initialLimit: number;
  private floor: number;
  private ceiling: number;
  private readonly isOverload: ((error: unknown) => boolean) | undefined;
  private reserve: Reserve;
  private readonly partitions: Partitions | undefined;
  /** The limit as the algorithm keeps it, fractional; calls are admitted against its integer part. */
  private estimate: number;
  private admitted: number;
  private flying = 0;
  private slowStart = true;
  private lastRtt: number | undefined = undefined;
  /** What the calls and permits need of this limiter; only they hold it. */
  private readonly core: LimiterCore = {
    settle: (start, inFlight, measure, error, result) => this.settle(start, inFlight, measure, error, result),
    release: (partition) => this.release(partition),
    measureOf: (error, at) => this.measureOf(error, at),
  };

  constructor(options: AdaptiveLimiterOptions = {}) {
    const o = checkOptions(adaptiveLimiterOptions, options, 'adaptiveLimiter');
    super(o.name, o.clock ?? systemClock);
    this.algorithm = algorithmOf(o.algorithm);
    this.sampler = new Sampler(o.windowMs, o.maxWindowMs, o.minSamples, this.clock.now());
    this.initialLimit = o.initialLimit;
    this.floor = o.minLimit;
    this.ceiling = o.maxLimit;
    this.isOverload = o.isOverload;
    this.reserve = o.reserve;
    this.partitions = o.partitions === undefined ? undefined : new Partitions(o.partitions, o.partitionBy);
    this.estimate = this.admitted = o.initialLimit;
  }

  /** Calls admitted at once now. */
  get limit(): number {
    return this.admitted;
  }

  /** Calls in flight now. */
  get inFlight(): number {
    return this.flying;
  }

  /** The limit never falls below this. */
  get minLimit(): number {
    return this.floor;
  }

  /** The limit never rises above this. */
  get maxLimit(): number {
    return this.ceiling;
  }

  /**
   * Hot reload: new tuning (omitted options take their defaults, as at construction), keeping the calls in flight
   * (each keeps its slot) and the current limit, moved into the new `[minLimit, maxLimit]` when outside it (a
   * `limitChanged` event of reason `'reconfigure'`). `minLimit`, `maxLimit`, `reserve` and the partitions' shares
   * apply to the next call; `windowMs`, `maxWindowMs` and `minSamples` to the window under way; `initialLimit` is
   * what `reset()` returns to. The algorithm's tuning changes in place, keeping what it has measured (the baseline);
   * another kind of algorithm also changes in place, cheaply: it starts with nothing measured, as after `reset()`, from
   * the current limit, and the window under way starts again. `isOverload` is kept. Other partitions (names, order or
   * `partitionBy`) shape the bookkeeping and cannot change in place: a `ConfigError` (build a new limiter). A bad option
   * is a `ConfigError` and changes nothing.
   *
   * @example
   * ```ts
   * limiter.reconfigure({ algorithm: { kind: 'gradient', tolerance: 2 }, maxLimit: 50 });
   * ```
   */
  reconfigure(options: Omit<AdaptiveLimiterOptions, 'clock' | 'name' | 'isOverload'>): void {
    const o = checkOptions(adaptiveLimiterOptions, { ...options, name: this.name }, this.name);
    reshare(this.name, this.partitions, o.partitions, o.partitionBy, 'adaptive limiter');
    const now = this.clock.now();
    if (o.algorithm.kind === this.algorithm.kind) this.algorithm.retune(o.algorithm);
    else {
      this.algorithm = algorithmOf(o.algorithm);
      this.sampler.clear(now);
    }
    this.sampler.retune(o.windowMs, o.maxWindowMs, o.minSamples);
    this.initialLimit = o.initialLimit;
    this.floor = o.minLimit;
    this.ceiling = o.maxLimit;
    this.reserve = o.reserve;
    const from = this.admitted;
    this.estimate = Math.min(this.ceiling, Math.max(this.floor, this.estimate));
    this.admitted = Math.floor(this.estimate);
    if (from !== this.admitted && this.events.observed) {
      this.events.emit({ type: 'limitChanged', policy: this.name, from, to: this.admitted, reason: 'reconfigure', rttMs: undefined, baselineMs: undefined, maxInFlight: 0, samples: 0, drops: 0 });
    }
  }

  /** The limit, the calls in flight and the figures the limit was last moved on. */
  stats(): AdaptiveLimiterStats {
    return { limit: this.admitted, inFlight: this.flying, rttMs: this.lastRtt, baselineMs: this.algorithm.baselineMs, slowStart: this.slowStart };
  }

  /** Calls of partition `name` in flight now (0 for a name that is no partition). */
  inFlightIn(name: string): number {
    const i = this.partitions?.names.indexOf(name) ?? NO_PARTITION;
    return this.partitions?.inFlight(i) ?? 0;
  }

  /**
   * Admits a call now, or throws `ConcurrencyLimitedError` when as many are
   * in flight as the limit (as its criticality and partition, read from
   * `ctx.meta`, allow): the synchronous admission the gRPC interceptor and
   * the HTTP guards use. Settle the permit once.
   */
  allow(ctx?: Pick<ExecutionContext, 'meta'>): LimiterPermit {
    const meta = ctx?.meta ?? NO_META;
    const start = this.clock.now();
    const partition = this.partitionOf(meta);
    if (!this.mayAdmit(partition, meta)) throw this.shed(meta, partition);
    this.take(partition);
    return new LimiterPermit(this.core, start, this.flying, partition);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    // A call its caller (or an aggressive deadline) already gave up takes no slot and measures nothing.
    const refused = refuseAborted(ctx);
    if (refused !== undefined) return refused;
    const partition = this.partitionOf(ctx.meta);
    if (!this.mayAdmit(partition, ctx.meta)) return Promise.reject(this.shed(ctx.meta, partition));
    this.take(partition);
    // Read whether or not anyone listens: the start is the response time's too.
    const start = this.clock.now();
    const call = new LimitedCall<R>(this.core, op, start, this.flying, ctx, partition);
    let p: Promise<R>;
    try {
      p = runNext(call.op, ctx, next);
    } catch (error) {
      p = Promise.reject(error);
    }
    p.then(call.ok, call.err);
    return p;
  }

  /** Back to the initial limit, in slow start, with nothing measured; calls in flight keep their slots. */
  reset(): void {
    const from = this.admitted;
    this.algorithm.reset();
    this.sampler.clear(this.clock.now());
    this.slowStart = true;
    this.lastRtt = undefined;
    this.estimate = this.admitted = this.initialLimit;
    if (from !== this.admitted && this.events.observed) {
      this.events.emit({ type: 'limitChanged', policy: this.name, from, to: this.admitted, reason: 'reset', rttMs: undefined, baselineMs: undefined, maxInFlight: 0, samples: 0, drops: 0 });
    }
  }

  /** What a thrown `error` measures: a drop (a timeout, an overload error) or nothing. */
  private measureOf(error: unknown, at: ExecutionContext | undefined): Measure {
    const result = thrownOutcome(error, at);
    if (result === 'timeout') return DROPPED;
    if (result === 'failure' && this.isOverload !== undefined && judge(this.isOverload, error)) return DROPPED;
    return IGNORED;
  }

  /** Measures a call that started at `start` with `inFlight` calls in flight, and reports its outcome. */
  private settle(start: number, inFlight: number, measure: Measure, error: unknown, result: OutcomeResult): void {
    const now = this.clock.now();
    const rtt = now - start;
    // An answer within the clock's resolution says nothing of queueing, and a zero baseline would make any later answer look infinitely slow (Netflix's minRttThreshold).
    if (measure === DROPPED || (measure === ANSWERED && rtt >= MIN_RTT_MS)) {
      const slow = this.algorithm.slowMs;
      const window = this.sampler.add(now, rtt, inFlight, measure === DROPPED || (slow !== undefined && rtt > slow));
      if (window !== undefined) {
        this.move(window);
        this.sampler.clear(now);
      }
    }
    if (this.events.observed) this.outcome(result, start, error, now);
  }

  /** The partition of a call labelled `meta`. */
  private partitionOf(meta: Readonly<Record<string, string>>): number {
    return this.partitions === undefined ? NO_PARTITION : this.partitions.of(meta);
  }

  /**
   * True when a call labelled `meta` in `partition` may have a slot:
   * concurrency-limits refuses a call only when the limit is reached and its
   * partition is at or over its share; the reserve of its criticality lowers
   * that limit.
   */
  private mayAdmit(partition: number, meta: Readonly<Record<string, string>>): boolean {
    if (this.partitions?.under(partition, this.admitted) === true) return true;
    return fits(this.flying, this.admitted, reserveFor(this.reserve, criticalityOf({ meta })));
  }

  /** A call of `partition` takes a slot. */
  private take(partition: number): void {
    this.flying++;
    this.partitions?.enter(partition);
  }

  /** A slot of `partition` is free again. */
  private release(partition: number): void {
    this.flying--;
    this.partitions?.leave(partition);
  }

  /** Moves the limit at the end of a window. */
  private move(w: WindowFigures): void {
    if (w.rttMs !== undefined) this.lastRtt = w.rttMs;
    const from = this.estimate;
    const atFloor = from <= this.floor;
    const m = this.algorithm.next(from, w, atFloor);
    let to = m.limit;
    let reason: LimitChangeReason | 'hold' = m.reason;
    if (m.queueing) this.slowStart = false;
    else if (reason === 'increase' && this.slowStart && w.maxInFlight >= this.admitted && 2 * from > to) {
      to = 2 * from;
      reason = 'slowStart';
    }
    to = Math.min(this.ceiling, Math.max(this.floor, to));
    // At the floor the limiter knows nothing of the capacity any more: find it again as at the start (TCP after a timeout).
    if (to <= this.floor) this.slowStart = true;
    this.estimate = to;
    const limit = Math.floor(to);
    if (limit === this.admitted) return;
    const previous = this.admitted;
    this.admitted = limit;
    if (this.events.observed && reason !== 'hold') {
      this.events.emit({
        type: 'limitChanged',
        policy: this.name,
        from: previous,
        to: limit,
        reason,
        rttMs: w.rttMs,
        baselineMs: this.algorithm.baselineMs,
        maxInFlight: w.maxInFlight,
        samples: w.samples,
        drops: w.drops,
      });
    }
  }

  /** Reports a shed call and makes its error. */
  private shed(meta: Readonly<Record<string, string>>, partition: number): ConcurrencyLimitedError {
    const retryAfterMs = this.lastRtt === undefined ? undefined : Math.ceil(this.lastRtt);
    const error = new ConcurrencyLimitedError(this.name, this.admitted, retryAfterMs);
    if (this.events.observed) {
      this.events.emit({ type: 'concurrencyRejected', policy: this.name, reason: 'concurrencyLimited', limit: this.admitted, inFlight: this.flying, ...(retryAfterMs === undefined ? {} : { retryAfterMs }), ...refusedFields(meta, this.partitions?.nameOf(partition)) });
      // Shed at admission: no time passed.
      this.outcome(thrownOutcome(error, undefined), 0, error, 0);
    }
    return error;
  }
}

/**
 * Makes an {@link AdaptiveLimiterPolicy}: Gradient2 by default, starting at
 * 20 calls at once, between 1 and 200, moved once per window of at least
 * 100 ms and 10 calls.
 *
 * @example
 * ```ts
 * const p = policy().timeout(300).adaptiveLimit().retry({ maxAttempts: 3 }).fallback(() => null);
 * ```
 */
export function adaptiveLimiter(options: AdaptiveLimiterOptions = {}): AdaptiveLimiterPolicy {
  return new AdaptiveLimiterPolicy(options);
}
