import type { LimitChangeReason } from './events.js';
import type { ResolvedAlgorithm } from './options.js';

/** What one sampling window measured. */
export interface WindowFigures {
  /** Mean response time of the answered calls, in ms; `undefined` when every call was a drop. */
  readonly rttMs: number | undefined;
  /** Most calls in flight when any of the window's calls started. */
  readonly maxInFlight: number;
  /** Calls measured, drops included. */
  readonly samples: number;
  /** Calls that timed out or failed with an overload error. */
  readonly drops: number;
}

/** Where an algorithm would take the limit, and why; `'hold'` leaves it. */
export interface Move {
  readonly limit: number;
  readonly reason: Exclude<LimitChangeReason, 'slowStart' | 'reset' | 'reconfigure'> | 'hold';
  /** The window showed calls queueing at the dependency (or dropped): the end of slow start. */
  readonly queueing: boolean;
}

/** One way of moving a concurrency limit from window to window. */
export interface LimitAlgorithm {
  /** Which algorithm it is. */
  readonly kind: ResolvedAlgorithm['kind'];
  /** Takes new tuning of its own kind (hot reload), keeping what it has measured. */
  retune(o: ResolvedAlgorithm): void;
  /** The move for `window`, from the current (fractional) limit; `atFloor` when that limit is the minimum. */
  next(limit: number, window: WindowFigures, atFloor: boolean): Move;
  /** The no-load response time it compares with, in ms; `undefined` when it keeps none or has not measured one. */
  readonly baselineMs: number | undefined;
  /** An answer slower than this counts as a drop; `undefined`: none. */
  readonly slowMs: number | undefined;
  /** Forgets everything measured. */
  reset(): void;
}

const hold = (limit: number, queueing = false): Move => ({ limit, reason: 'hold', queueing });
const drop = (limit: number): Move => ({ limit, reason: 'drop', queueing: true });

/** Windows averaged plainly before the baseline becomes a moving average (Gradient2's warm-up). */
const WARMUP_WINDOWS = 10;

/**
 * Gradient2 (Netflix concurrency-limits), per window: the gradient
 * `tolerance × baseline / rtt`, clamped to [0.5, 1], lowers the limit
 * (smoothed) when response times rise above the no-load baseline, and the
 * limit grows by `queueSize` while they stay near it. Three changes, each
 * for a known failure of the original:
 *
 * - timeouts are drops, not response times: a dependency that times out at a
 *   steady deadline has a steady "response time", a gradient of 1, and drove
 *   Gradient2's limit to its maximum (concurrency-limits #137); a drop lowers
 *   the limit by `backoffRatio`, as Netflix's AIMD and Gradient do;
 * - the queue allowance is added only at a gradient of 1, so moderate
 *   queueing cannot creep the limit up (concurrency-limits #134);
 * - only a window that shows no queueing moves the baseline up (its mean
 *   within √tolerance of it: the limit settles where response times are
 *   `tolerance` × the baseline, and windows there must not count), so a
 *   long incident cannot pull the baseline up to its own response times
 *   until they look normal (failsafe-go #127). At the minimum limit, where this
 *   client adds all but no queueing of its own, the baseline rises just
 *   enough that the window counts as normal: a dependency that got slower
 *   for good is re-learned instead of throttled forever.
 */
export class Gradient implements LimitAlgorithm {
  readonly kind = 'gradient';
  readonly slowMs = undefined;
  private baseline: number | undefined = undefined;
  private windows = 0;
  private factor!: number;

  constructor(private o: Extract<ResolvedAlgorithm, { kind: 'gradient' }>) {
    this.retune(o);
  }

  /** New tuning; the baseline and the warm-up so far are kept, and a new `baselineWindows` weighs the windows to come. */
  retune(o: ResolvedAlgorithm): void {
    if (o.kind !== 'gradient') return;
    this.o = o;
    this.factor = 2 / (o.baselineWindows + 1);
  }

  get baselineMs(): number | undefined {
    return this.baseline;
  }

  next(limit: number, w: WindowFigures, atFloor: boolean): Move {
    if (w.drops > 0 || w.rttMs === undefined) return drop(limit * this.o.backoffRatio);
    const rtt = w.rttMs;
    const base = this.learn(rtt, atFloor);
    // App-limited: too few calls in flight for the response times to say anything of the limit (Gradient2).
    if (w.maxInFlight < limit / 2) return hold(limit);
    const gradient = Math.max(0.5, Math.min(1, (this.o.tolerance * base) / rtt));
    // Beyond √tolerance calls visibly queue, though not yet enough to lower the limit: slow start ends there.
    if (gradient >= 1) return { limit: limit + this.o.queueSize, reason: 'increase', queueing: rtt * rtt > this.o.tolerance * base * base };
    return { limit: limit * (1 - this.o.smoothing * (1 - gradient)), reason: 'queueing', queueing: true };
  }

  /** Moves the baseline with a window's mean response time; returns the baseline to compare with. */
  private learn(rtt: number, atFloor: boolean): number {
    let base = this.baseline;
    if (base === undefined || this.windows < WARMUP_WINDOWS) {
      // The least loaded window of the warm-up: a start under load must not take its queueing for the baseline.
      this.windows++;
      base = base === undefined ? rtt : Math.min(base, rtt);
    } else if (rtt * rtt <= this.o.tolerance * base * base) {
      base += (rtt - base) * this.factor;
      // Gradient2: after a long stretch of slow answers, come back down without waiting for the average.
      if (base > 2 * rtt) base *= 0.95;
    } else if (atFloor) {
      base = rtt / this.o.tolerance;
    }
    this.baseline = base;
    return base;
  }

  reset(): void {
    this.baseline = undefined;
    this.windows = 0;
  }
}

/** AIMD, per window: a drop multiplies the limit by `backoffRatio`; otherwise it grows by `increase` while half of it is in use. */
export class Aimd implements LimitAlgorithm {
  readonly kind = 'aimd';
  readonly baselineMs = undefined;
  slowMs: number | undefined;

  constructor(private o: Extract<ResolvedAlgorithm, { kind: 'aimd' }>) {
    this.slowMs = o.slowMs;
  }

  /** New tuning (AIMD measures nothing to keep). */
  retune(o: ResolvedAlgorithm): void {
    if (o.kind !== 'aimd') return;
    this.o = o;
    this.slowMs = o.slowMs;
  }

  next(limit: number, w: WindowFigures): Move {
    if (w.drops > 0) return drop(limit * this.o.backoffRatio);
    if (w.maxInFlight * 2 >= limit) return { limit: limit + this.o.increase, reason: 'increase', queueing: false };
    return hold(limit);
  }

  reset(): void {}
}

/** `log10` of the limit as Netflix's Vegas uses it: an integer, at least 1. */
const log10 = (limit: number): number => Math.max(1, Math.floor(Math.log10(limit)));

/**
 * TCP Vegas as Netflix's VegasLimit adapts it, per window: the calls queued
 * at the dependency are estimated as `inFlight × (1 − baseline / rtt)`, from
 * the window's own concurrency (the limit may have moved since those calls
 * started); with at most `log10(limit)` queued the limit grows by
 * `beta × log10`, with fewer than `alpha × log10` by `log10`, with more than
 * `beta × log10` it sheds the excess at once. The baseline is the lowest
 * window mean seen (Vegas's `rtt_noload`) and is not probed again, so it
 * never drifts up; a dependency that got slower for good needs `reset()`.
 */
export class Vegas implements LimitAlgorithm {
  readonly kind = 'vegas';
  readonly slowMs = undefined;
  private baseline: number | undefined = undefined;

  constructor(private o: Extract<ResolvedAlgorithm, { kind: 'vegas' }>) {}

  /** New tuning; the baseline is kept. */
  retune(o: ResolvedAlgorithm): void {
    if (o.kind === 'vegas') this.o = o;
  }

  get baselineMs(): number | undefined {
    return this.baseline;
  }

  next(limit: number, w: WindowFigures): Move {
    const lg = log10(limit);
    if (w.drops > 0 || w.rttMs === undefined) return drop(limit - lg);
    const rtt = w.rttMs;
    const base = (this.baseline = this.baseline === undefined ? rtt : Math.min(this.baseline, rtt));
    if (w.maxInFlight * 2 < limit) return hold(limit);
    const queue = Math.ceil(w.maxInFlight * (1 - base / rtt));
    const alpha = this.o.alpha * lg;
    const beta = this.o.beta * lg;
    if (queue <= lg) return { limit: limit + beta, reason: 'increase', queueing: false };
    // A queue this short is within the noise of a window's mean at high concurrency: still no reason to leave slow start.
    if (queue < alpha) return { limit: limit + lg, reason: 'increase', queueing: false };
    if (queue > beta) return { limit: Math.min(limit - lg, w.maxInFlight - (queue - beta)), reason: 'queueing', queueing: true };
    return hold(limit, true);
  }

  reset(): void {
    this.baseline = undefined;
  }
}

/** The algorithm of a parsed `algorithm` option. */
export function algorithmOf(o: ResolvedAlgorithm): LimitAlgorithm {
  switch (o.kind) {
    case 'aimd':
      return new Aimd(o);
    case 'vegas':
      return new Vegas(o);
    case 'gradient':
      return new Gradient(o);
  }
}
