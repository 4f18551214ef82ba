import { BreakerPolicy, SUCCESS, type Settlement } from '../breaker/breaker.js';
import { systemClock } from '../../lib/clock.js';
import { BrokenCircuitError } from '../../lib/errors.js';
import type { BreakerState, StateChangeReason } from '../breaker/events.js';
import { checkOptions } from '../../lib/options.js';
import { goZeroOrigin, restoreWindow, RollingWindow, snapshotWindow } from '../../lib/window.js';
import { adaptiveBreakerOptions, type AdaptiveBreakerOptions, type AdaptiveBreakerSnapshot, type ResolvedAdaptiveBreakerOptions } from './options.js';

/** What {@link AdaptiveBreakerPolicy.stats} reports about the current window and streaks. */
export interface AdaptiveBreakerStats {
  /** Successes in the window (calls the breaker let through; shed calls never count). */
  readonly accepts: number;
  /** Failures in the window. */
  readonly failures: number;
  /** Mean duration of the window's successes, in ms; 0 when it holds none. */
  readonly meanMs: number;
  /** Failures since the last success. */
  readonly failuresInRow: number;
  /** Moving average of the last outcomes (1 success, 0 failure), over about the last 16. */
  readonly successShare: number;
  /** The share of calls the breaker admits now: `1 − dropRatio` closed, `probeRatio` open, the ramp's share half-open. */
  readonly admitRatio: number;
}

/** Weight of the newest outcome in `successShare`: a memory of about 16 outcomes, whatever the traffic. */
const SHARE_WEIGHT = 1 / 16;
/** A stalled dependency trips the breaker once its first unanswered call waited this many times the mean success. */
const STALL_FACTOR = 3;

/**
 * The default breaker: go-zero's proportional shedding over the calls it lets
 * through, a trip on a dependency that stopped succeeding or answering, probes,
 * and a ramp back gated by successes. Three states: `'closed'` (counting, and
 * shedding `1 − k·accepts/calls` of the calls once that is positive),
 * `'open'` (tripped: only probes go), `'half-open'` (ramping back). Why each
 * rule: docs/breakers.md.
 *
 * @example
 * ```ts
 * const b = adaptiveBreaker();
 * const user = await b.execute((ctx) => getUser(id, ctx.signal));
 * ```
 */
export class AdaptiveBreakerPolicy extends BreakerPolicy<BreakerState> {
  /** @internal the statistics window: successes, failures, summed success durations (ms). */
  readonly window: RollingWindow;
  private o: ResolvedAdaptiveBreakerOptions;
  private readonly random: () => number;
  private current: BreakerState = 'closed';
  /** Bumped by every transition: an outcome of a call admitted before one counts for nothing. */
  private generation = 0;
  /** Half-open: the share of calls admitted. */
  private admitRatio = 1;
  private failuresInRow = 0;
  private successShare = 1;
  private successShareBeforeRun = 1;
  private lastSuccessAt = -Infinity;
  /** Clock time of the last call admitted while shedding; NaN before any. */
  private lastPass = NaN;
  /** Calls admitted since the dependency last answered (any outcome), and when the first of them went out. */
  private unanswered = 0;
  private firstUnansweredAt = 0;
  private lastAnswerAt = -Infinity;
  /** The breaker's last clock reading on the call path (admission or a timed outcome). */
  private latest = -Infinity;
  /**
   * The last timed success: its duration (whole ms) and its clock time. Closed,
   * a success less than a bucket after it is not timed (docs/breakers.md,
   * "Clock reads"); -Infinity times the next one.
   */
  private heldMs = 0;
  private timedAt = -Infinity;

  /** Takes options already checked (with defaults applied); use {@link adaptiveBreaker}. */
  constructor(o: ResolvedAdaptiveBreakerOptions, name = o.name) {
    const clock = o.clock ?? systemClock;
    super(name, clock, o.handle, o.handleResult);
    this.o = o;
    this.random = o.random ?? Math.random;
    const s = o.initialState;
    this.window = s === undefined ? new RollingWindow(o.buckets, o.windowMs / o.buckets, goZeroOrigin(clock.now())) : restoreWindow(s.window);
    if (s !== undefined) {
      this.current = s.isolated ? 'open' : s.state;
      this.admitRatio = s.admitRatio;
      this.failuresInRow = s.failuresInRow;
      this.successShare = s.successShare;
      this.successShareBeforeRun = s.successShareBeforeRun;
      this.lastSuccessAt = s.lastSuccessAt ?? -Infinity;
      this.lastPass = s.lastPass ?? NaN;
      if (s.timed != null) {
        this.heldMs = s.timed.ms;
        this.timedAt = s.timed.at;
      }
      if (s.isolated) this.isolations = 1;
    }
  }

  /**
   * The breaker's state, streaks and window as plain JSON, for
   * `initialState` (e.g. across a restart). Calls in flight are not part of
   * it. Reading it changes nothing.
   *
   * @example
   * ```ts
   * const saved = JSON.stringify(b.snapshot());
   * const again = breaker({ initialState: JSON.parse(saved) });
   * ```
   */
  snapshot(): AdaptiveBreakerSnapshot {
    return {
      kind: 'adaptive',
      state: this.current,
      isolated: this.isolations > 0,
      admitRatio: this.admitRatio,
      failuresInRow: this.failuresInRow,
      successShare: this.successShare,
      successShareBeforeRun: this.successShareBeforeRun,
      lastSuccessAt: Number.isFinite(this.lastSuccessAt) ? this.lastSuccessAt : null,
      lastPass: Number.isFinite(this.lastPass) ? this.lastPass : null,
      window: snapshotWindow(this.window),
      timed: Number.isFinite(this.timedAt) ? { at: this.timedAt, ms: this.heldMs } : null,
    };
  }

  get state(): BreakerState {
    return this.current;
  }

  /**
   * Changes every option but `windowMs` and `buckets` in place (hot reload),
   * keeping the state and the window. `windowMs` and `buckets` shape the
   * window and cannot change in place; asking to is a `ConfigError`, and
   * nothing changes.
   *
   * @example
   * ```ts
   * b.reconfigure({ tripMs: 500, probeRatio: 0.02 });
   * ```
   */
  reconfigure(options: Omit<AdaptiveBreakerOptions, 'clock' | 'random' | 'name' | 'initialState'>): void {
    const o = this.reparse((i, p) => checkOptions(adaptiveBreakerOptions, i, p), options, this.o, ['windowMs', 'buckets']);
    this.o = { ...o, clock: this.o.clock, random: this.o.random };
  }

  /** The current window's counts, the streaks, and the share of calls admitted now. */
  stats(): AdaptiveBreakerStats {
    const w = this.window;
    w.read(this.clock.now());
    const { v0: successes, v1: failures, v2: successMs } = w;
    const admitRatio = this.current === 'closed' ? 1 - Math.max(0, this.dropRatio(successes, failures)) : this.current === 'open' ? this.o.probeRatio : this.admitRatio;
    return {
      accepts: successes,
      failures,
      meanMs: successes === 0 ? 0 : successMs / successes,
      failuresInRow: this.failuresInRow,
      successShare: this.successShare,
      admitRatio: this.isolations > 0 ? 0 : admitRatio,
    };
  }

  /**
   * @internal True when a fresh breaker would decide as this one does at
   * `now`, so a registry may drop it when idle: not isolated and nothing left
   * in its window (an open or half-open breaker whose window has emptied
   * closes on its next call). A streak is forgotten with it.
   */
  evictable(now: number): boolean {
    if (this.isolations > 0) return false;
    const w = this.window;
    w.read(now);
    const { v0: successes, v1: failures } = w;
    return successes + failures === 0;
  }

  protected admit(start: number): number {
    this.latest = start;
    if (this.isolations > 0) this.shed(new BrokenCircuitError(this.name), undefined);
    const o = this.o;
    // A stalled dependency: more than `tripFailures` calls went out (admitted, not shed) and nothing at all came back.
    if (this.current !== 'open' && this.unanswered >= o.tripFailures && start - this.firstUnansweredAt > o.tripMs && this.stalled(start)) {
      this.trip(start, 'stalled', start - this.firstUnansweredAt);
      return this.pass(start, 1 - o.probeRatio);
    }
    const token = this.decide(start);
    // Only a call that goes out waits for an answer: the shed ones threw above.
    if (this.current !== 'open' && this.unanswered++ === 0) this.firstUnansweredAt = start;
    return token;
  }

  /** Admits (returning the generation) or sheds (throwing) a call of `state` at `start`. */
  private decide(start: number): number {
    const o = this.o;
    const w = this.window;
    const state = this.current;
    if (state === 'closed') {
      // Failures within `protection`: the drop ratio is <= 0 whatever the window holds (k >= 1).
      const { s1: failuresHeld } = w;
      if (failuresHeld <= o.protection) return this.generation;
      w.read(start);
      const { v0: successes, v1: failures } = w;
      const dropRatio = this.dropRatio(successes, failures);
      return dropRatio <= 0 ? this.generation : this.pass(start, dropRatio);
    }
    w.read(start);
    const { v0: successes, v1: failures } = w;
    if (successes + failures === 0) {
      // Nothing recorded for a whole window: nothing left to judge the dependency by, the streaks included.
      this.forget();
      this.toClosed('windowExpired', undefined);
      return this.generation;
    }
    return this.pass(start, state === 'open' ? 1 - o.probeRatio : 1 - this.admitRatio);
  }

  protected record(token: number, start: number, settlement: Settlement, at?: number): number {
    // Closed, a success within a bucket of the last timed one needs no clock: it is counted at the breaker's last
    // reading (this call's start or later) with the last measured duration.
    const sinceTimed = this.latest - this.timedAt;
    if (settlement === SUCCESS && token === this.generation && this.current === 'closed' && sinceTimed >= 0 && sinceTimed < this.window.bucketMs) {
      this.answered(this.latest);
      this.recordSuccess(this.latest, this.heldMs);
      return NaN;
    }
    // A time the call's settlement already read serves (the layers around share one read).
    const now = (this.latest = at !== undefined && at === at ? at : this.clock.now());
    this.answered(now);
    // An outcome of a call admitted before a transition says nothing about the dependency now (gobreaker's generations).
    if (token !== this.generation) return now;
    if (settlement === SUCCESS) {
      this.heldMs = durationMs(start, now);
      this.timedAt = now;
      this.recordSuccess(now, this.heldMs);
    } else this.recordFailure(now);
    return now;
  }

  /** Any outcome, from any generation, is an answer: the dependency is not stalled. */
  private answered(now: number): void {
    this.lastAnswerAt = now;
    this.unanswered = 0;
  }

  /** Records a success at `now` that took `ms`, and ramps back when not closed. */
  private recordSuccess(now: number, ms: number): void {
    const o = this.o;
    this.window.add(now, 1, 0, ms);
    this.successShare += (1 - this.successShare) * SHARE_WEIGHT;
    this.successShareBeforeRun = this.successShare;
    this.failuresInRow = 0;
    this.lastSuccessAt = now;
    if (this.current === 'open') {
      // The ramp starts with a clean slate: the outage's failures say nothing about chance runs from here on.
      this.successShare = this.successShareBeforeRun = 1;
      this.admitRatio = Math.min(1, o.probeRatio * o.rampFactor);
      this.enter('half-open', 'probeSucceeded', this.admitRatio);
      if (this.admitRatio >= 1) this.toClosed('probesSucceeded', 1);
    } else if (this.current === 'half-open') {
      this.admitRatio = Math.min(1, this.admitRatio * o.rampFactor);
      if (this.admitRatio >= 1) this.toClosed('probesSucceeded', 1);
    }
  }

  /** Records a failure at `now`, and trips on a run longer than chance explains. */
  private recordFailure(now: number): void {
    const o = this.o;
    this.window.add(now, 0, 1, 0);
    this.successShare -= this.successShare * SHARE_WEIGHT;
    const run = ++this.failuresInRow;
    // A run longer than chance explains at the recent success share, and no success for tripMs.
    if (this.current !== 'open' && run >= o.tripFailures && now - this.lastSuccessAt >= o.tripMs && run * this.successShareBeforeRun >= o.tripFailures) {
      this.trip(now, this.current === 'closed' ? 'threshold' : 'probeFailed', run);
    }
  }

  protected release(_token: number, start: number): void {
    // A cancelled call is neither an answer nor a missing one. (One that went out in the same millisecond as the
    // last answer may have gone out before it: it stays counted until the next answer.)
    if (start > this.lastAnswerAt && this.unanswered > 0) this.unanswered--;
  }

  protected onIsolate(): void {
    this.enter('open', 'isolated', undefined);
  }

  protected onReset(): void {
    this.forget();
    this.toClosed('reset', undefined);
  }

  /** Forgets the streaks, the success share and the last pass, as a fresh breaker has them (the window is cleared on closing). */
  private forget(): void {
    this.failuresInRow = 0;
    this.successShare = this.successShareBeforeRun = 1;
    this.lastSuccessAt = -Infinity;
    this.lastPass = NaN;
    this.unanswered = 0;
  }

  /** True when the first call sent since the last answer has waited longer than `STALL_FACTOR` mean successes. */
  private stalled(now: number): boolean {
    const w = this.window;
    w.read(now);
    const { v0: successes, v2: successMs } = w;
    return successes === 0 || now - this.firstUnansweredAt > (STALL_FACTOR * successMs) / successes;
  }

  /** Admits with probability `1 − dropRatio`, and at least one call per `forcePassMs`; throws when it sheds. */
  private pass(now: number, dropRatio: number): number {
    const sinceLastPass = now - this.lastPass;
    // go-zero: `lastPass > 0 && timex.Since(lastPass) > forcePassDuration` (NaN before any pass).
    if (sinceLastPass > this.o.forcePassMs) {
      if (this.events.observed) this.events.emit({ type: 'forcePass', policy: this.name, dropRatio, sinceLastPassMs: sinceLastPass });
    } else if (this.random() < dropRatio) {
      this.shed(new BrokenCircuitError(this.name), dropRatio);
    }
    this.lastPass = now;
    return this.generation;
  }

  /** go-zero's drop ratio over the calls let through only: `(calls − protection − k·accepts) / (calls + 1)`. */
  private dropRatio(accepts: number, failures: number): number {
    const calls = accepts + failures;
    return (calls - this.o.protection - this.o.k * accepts) / (calls + 1);
  }

  private trip(now: number, reason: StateChangeReason, figure: number): void {
    this.unanswered = 0;
    this.lastPass = now;
    this.enter('open', reason, figure);
  }

  private toClosed(reason: StateChangeReason, figure: number | undefined): void {
    // The dependency answers again: the failures of the outage no longer count against it.
    this.window.clear();
    this.admitRatio = 1;
    this.enter('closed', reason, figure);
  }

  private enter(state: BreakerState, reason: StateChangeReason, figure: number | undefined): void {
    const from = this.current;
    this.current = state;
    this.generation++;
    // The dependency may answer at another pace from here on: time the next success.
    this.timedAt = -Infinity;
    this.transition(from, state, reason, figure);
  }
}

/** A success's duration as the window stores it: whole milliseconds, never negative (a clock may step back). */
function durationMs(start: number, now: number): number {
  const d = Math.round(now - start);
  return d > 0 ? Math.min(d, 0x7fff_ffff) : 0;
}

/**
 * Makes an {@link AdaptiveBreakerPolicy}, the default breaker (also `breaker()` and
 * the builder's `.breaker()`). Defaults: a 2 s window in 20 buckets, `k` 1.5,
 * `protection` 5, `forcePassMs` 1 000, `tripFailures` 5, `tripMs` 250,
 * `probeRatio` 0.05, `rampFactor` 4.
 *
 * @example
 * ```ts
 * const b = adaptiveBreaker({ handle: (e) => !(e instanceof NotFoundError) });
 * ```
 */
export function adaptiveBreaker(options: AdaptiveBreakerOptions = {}): AdaptiveBreakerPolicy {
  return new AdaptiveBreakerPolicy(checkOptions(adaptiveBreakerOptions, options, 'breaker'));
}

/**
 * The default breaker: an {@link AdaptiveBreakerPolicy}. For go-zero's own
 * Google-SRE breaker, exactly, use `sreBreaker()`.
 *
 * @example
 * ```ts
 * const b = breaker();
 * const p = policy().timeout(300).retry({ maxAttempts: 3 }).use(b).fallback(() => null);
 * ```
 */
export function breaker(options: AdaptiveBreakerOptions = {}): AdaptiveBreakerPolicy {
  return adaptiveBreaker(options);
}
