import { PolicyBase } from '../../lib/base.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { cancelledByCaller, runNext } from '../../lib/context.js';
import { OverloadedError } from '../../lib/errors.js';
import { checkOptions, refuseReshape } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { loadShedderOptions, type LoadShedderOptions } from './options.js';
import { processCpu, toSignal, type Signal } from '../../lib/signals.js';
import { criticalityOf } from '../../lib/criticality.js';
import { refusedFields, reserveFor, type Reserve } from '../../lib/shedding.js';

const NO_META: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({});

const FLYING_BETA = 0.9; // go-zero: moving average of calls in flight
const DEFAULT_MIN_RT_MS = 1_000; // go-zero: min response time before any call passed
const MIN_OVERLOAD_FACTOR = 0.1; // go-zero: accept at least 10 % of what could be carried

/** What a {@link ShedderPermit} needs of its shedder: where to settle it. */
export interface ShedderCore {
  settle(start: number, passed: boolean): void;
}

/** One admitted call of a {@link LoadShedderPolicy}: settle it once. */
export class ShedderPermit {
  private done = false;
  constructor(
    private readonly owner: ShedderCore,
    private readonly start: number,
  ) {}
  /** The call succeeded: its response time and pass count feed the capacity estimate. */
  success(): void {
    if (this.done) return;
    this.done = true;
    this.owner.settle(this.start, true);
  }
  /** The call failed: it leaves the in-flight count only. */
  failure(): void {
    if (this.done) return;
    this.done = true;
    this.owner.settle(this.start, false);
  }
  /** The call was cancelled by its caller: same as a failure here. */
  release(): void {
    this.failure();
  }
}

/**
 * Sheds new calls while the process is overloaded, after go-zero's adaptive
 * shedder: when CPU is at or over `cpuThreshold` (or was, within `coolOffMs`
 * of the last drop), a call is dropped if both the moving average and the
 * current number of calls in flight exceed what recent throughput and latency
 * can carry (`maxPass × minRt / bucketMs`, scaled down as CPU climbs, never
 * below 10 %). Dropped calls reject with `OverloadedError`.
 *
 * Lower criticality is shed first (`ctx.meta.criticality`, Google SRE's
 * "Handling Overload"): a `sheddable` call is dropped once the calls in
 * flight exceed `(1 − reserve.sheddable)` of what can be carried, a
 * `default` one past `(1 − reserve.default)` of it, a `critical` one only
 * past all of it.
 *
 * @example
 * ```ts
 * const shed = loadShedder({ cpuThreshold: 0.9 });
 * app.use(httpShedding(shed)); // or policy().use(shed)
 * ```
 */
export class LoadShedderPolicy extends PolicyBase {
  /** The clock of the window. */
  declare readonly clock: Clock;
  private readonly cpu: Signal;
  private threshold!: number;
  private readonly windowMs: number;
  private readonly bucketMs: number;
  private coolOff!: number;
  private reserve!: Reserve;
  private readonly pass: Float64Array;
  private readonly rtSum: Float64Array;
  private readonly epochs: Float64Array;
  private flying = 0;
  private avgFlying = 0;
  private lastDrop = -Infinity;
  /** What the permits need of this shedder; only they hold it. */
  private readonly core: ShedderCore = { settle: (start, passed) => this.settle(start, passed) };

  constructor(options: LoadShedderOptions = {}) {
    const o = checkOptions(loadShedderOptions, options, 'loadShedder');
    super(o.name, o.clock ?? systemClock);
    this.cpu = o.cpu === undefined ? processCpu({ clock: this.clock }) : toSignal(o.cpu);
    this.apply(o);
    this.windowMs = o.windowMs;
    this.bucketMs = o.windowMs / o.buckets;
    this.pass = new Float64Array(o.buckets);
    this.rtSum = new Float64Array(o.buckets);
    this.epochs = new Float64Array(o.buckets).fill(-Infinity);
  }

  /** Calls in flight now. */
  get inFlight(): number {
    return this.flying;
  }

  /** CPU utilisation (0–1) from which calls may be shed. */
  get cpuThreshold(): number {
    return this.threshold;
  }

  /** How long after a drop throughput is still checked, even if CPU cools. */
  get coolOffMs(): number {
    return this.coolOff;
  }

  /**
   * Hot reload: a new `cpuThreshold`, `coolOffMs` and `reserve` (omitted ones take their defaults, as at
   * construction) for the calls admitted from now on, keeping the window of passes and response times, the calls in
   * flight, their moving average and the time of the last drop (a cool-off under way runs to the new `coolOffMs`).
   * `windowMs` and `buckets` shape the window and cannot change in place: a value other than the current one is a
   * `ConfigError` (build a new load shedder). A bad option is a `ConfigError` and changes nothing.
   *
   * @example
   * ```ts
   * shed.reconfigure({ cpuThreshold: 0.8, coolOffMs: 2_000 });
   * ```
   */
  reconfigure(options: Omit<LoadShedderOptions, 'clock' | 'name' | 'cpu'>): void {
    const o = checkOptions(loadShedderOptions, { ...options, name: this.name }, this.name);
    refuseReshape(this.name, ['windowMs', 'buckets'], { windowMs: this.windowMs, buckets: this.pass.length }, o, 'window', 'load shedder');
    this.apply(o);
  }

  /** Takes the options a reload may change. */
  private apply(o: ReturnType<typeof loadShedderOptions>): void {
    this.threshold = o.cpuThreshold;
    this.coolOff = o.coolOffMs;
    this.reserve = o.reserve;
  }

  /** Admits a call (of the criticality in `ctx.meta`, when given) or throws `OverloadedError`; settle the permit once. */
  allow(ctx?: Pick<ExecutionContext, 'meta'>): ShedderPermit {
    return this.admit(this.clock.now(), ctx?.meta ?? NO_META);
  }

  /** Admits a call labelled `meta` arriving at clock time `now`, or throws `OverloadedError`. */
  private admit(now: number, meta: Readonly<Record<string, string>>): ShedderPermit {
    const cpu = this.cpu.value();
    const hot = cpu >= this.threshold || now - this.lastDrop < this.coolOff;
    if (hot) {
      const factor = Math.min(1, Math.max(MIN_OVERLOAD_FACTOR, (1 - cpu) / (1 - this.threshold)));
      const max = this.maxFlight(now) * factor * (1 - reserveFor(this.reserve, criticalityOf({ meta })));
      if (this.avgFlying > max && this.flying > max) {
        this.lastDrop = now;
        const error = new OverloadedError(this.name);
        if (this.events.observed) {
          this.events.emit({ type: 'shed', policy: this.name, cpu, inFlight: this.flying, maxInFlight: max, ...refusedFields(meta) });
          // Shed at admission: no time passed.
          this.outcome(thrownOutcome(error, undefined), now, error, now);
        }
        throw error;
      }
    }
    this.flying++;
    return new ShedderPermit(this.core, now);
  }

  async [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const start = this.clock.now();
    const permit = this.admit(start, ctx.meta);
    try {
      const value = await runNext(op, ctx, next);
      permit.success();
      if (this.events.observed) this.outcome('success', start);
      return value;
    } catch (error) {
      if (cancelledByCaller(ctx)) permit.release();
      else permit.failure();
      if (this.events.observed) this.outcome(thrownOutcome(error, ctx), start, error);
      throw error;
    }
  }

  /** A permit settled. */
  private settle(start: number, passed: boolean): void {
    this.flying--;
    this.avgFlying = this.avgFlying * FLYING_BETA + this.flying * (1 - FLYING_BETA);
    if (!passed) return;
    const now = this.clock.now();
    const i = this.bucket(now);
    this.pass[i]!++;
    this.rtSum[i]! += now - start;
  }

  /** go-zero's maxFlight: max passes per bucket × min mean response time, per bucket length; at least 1. */
  private maxFlight(now: number): number {
    const current = Math.floor(now / this.bucketMs);
    const n = this.pass.length;
    let maxPass = 0;
    let minRt = Infinity;
    for (let i = 0; i < n; i++) {
      const epoch = this.epochs[i]!;
      // the current bucket is still filling; go-zero leaves it out too
      if (epoch >= current || epoch <= current - n) continue;
      const p = this.pass[i]!;
      if (p > maxPass) maxPass = p;
      if (p > 0) minRt = Math.min(minRt, this.rtSum[i]! / p);
    }
    if (minRt === Infinity) minRt = DEFAULT_MIN_RT_MS;
    return Math.max(1, (maxPass * minRt) / this.bucketMs);
  }

  private bucket(now: number): number {
    const epoch = Math.floor(now / this.bucketMs);
    const n = this.pass.length;
    const i = ((epoch % n) + n) % n;
    if (this.epochs[i] !== epoch) {
      this.epochs[i] = epoch;
      this.pass[i] = 0;
      this.rtSum[i] = 0;
    }
    return i;
  }
}

/**
 * Makes a {@link LoadShedderPolicy} (go-zero's adaptive shedder; defaults: CPU
 * threshold 0.9, window 5 s in 50 buckets, cool-off 1 s).
 *
 * @example
 * ```ts
 * const p = policy().use(loadShedder({ cpuThreshold: 0.85 }));
 * ```
 */
export function loadShedder(options: LoadShedderOptions = {}): LoadShedderPolicy {
  return new LoadShedderPolicy(options);
}
