import { BreakerPolicy, SUCCESS, TIMEOUT, type Settlement } from '../breaker/breaker.js';
import { systemClock } from '../../lib/clock.js';
import { BrokenCircuitError, ConfigError } from '../../lib/errors.js';
import type { BreakerState, StateChangeReason } from '../breaker/events.js';
import { checkOptions, refuseReshape } from '../../lib/options.js';
import { leapArrayOrigin, restoreWindow, RollingWindow, snapshotWindow } from '../../lib/window.js';
import { CountWindow, restoreCountWindow, snapshotCountWindow } from './count-window.js';
import {
  circuitBreakerOptions,
  hasOption,
  isOpenBackoff,
  type CircuitBreakerOptions,
  type CircuitBreakerSnapshot,
  type CircuitBreakerStats,
  type ResolvedCircuitBreakerOptions,
} from './options.js';
import { tripFigure } from './trips.js';

/**
 * The three-state breaker of Sentinel and gobreaker: closed (counting in a
 * leap-array window), open (shedding until `openMs` has passed), half-open
 * (at most `probes` probes at once; `probes` successes close it, one failure
 * reopens it). Every transition starts a new generation: an outcome that
 * arrives after one is discarded. No timer: time is looked at only when a
 * call asks or settles. Behaviour: docs/breakers.md, "The state machine".
 *
 * @example
 * ```ts
 * const b = circuitBreaker({ trip: 'errorRatio', threshold: 0.5, minRequests: 20 });
 * b.state$.subscribe((s) => log.info('breaker', s));
 * ```
 */
export class CircuitBreakerPolicy extends BreakerPolicy<BreakerState> {
  /** @internal the statistics window (Sentinel alignment: multiples of the bucket length): calls, failures, slow calls. */
  readonly window: RollingWindow;
  /** @internal the count window (`window: { type: 'count' }`), which then counts instead of {@link window}. */
  readonly calls: CountWindow | undefined;
  private o: ResolvedCircuitBreakerOptions;
  private slowCallMs: number;
  private current: BreakerState = 'closed';
  /** Bumped by every transition; a permit remembers the one it was admitted in. */
  private generation = 0;
  private retryAt = 0;
  /** When half-open began, or when a probe went out with none in flight: the wait `maxHalfOpenMs` bounds. */
  private halfOpenSince = 0;
  private inFlight = 0;
  private probeSuccesses = 0;
  private consecutiveFailures = 0;
  private consecutiveSuccesses = 0;
  /** Outcomes of the last (up to 3) probes, newest in bit 0, 1 = success (dynamicThreshold). */
  private probeBits = 0;
  private probeCount = 0;
  /** Openings in a row since the breaker last closed: what a growing `openMs` is given. */
  private openings = 0;
  /** The open period last given (a backoff's `previous`); the default period before the first. */
  private openPeriod = DEFAULT_OPEN_MS;

  /** Takes options already checked (with defaults applied); use {@link circuitBreaker}. */
  constructor(o: ResolvedCircuitBreakerOptions, name = o.name) {
    const clock = o.clock ?? systemClock;
    super(name, clock, o.handle, o.handleResult);
    this.o = o;
    const bucketMs = o.windowMs / o.buckets;
    const s = o.initialState;
    this.window = s === undefined ? new RollingWindow(o.buckets, bucketMs, leapArrayOrigin(clock.now(), bucketMs)) : restoreWindow(s.window);
    this.calls = o.window === undefined ? undefined : s?.calls !== undefined ? restoreCountWindow(s.calls) : new CountWindow(o.window.size);
    this.timed = o.strategy === 'slowCallRatio';
    this.slowCallMs = o.strategy === 'slowCallRatio' ? o.slowCallMs : Infinity;
    if (s !== undefined) this.restore(s);
  }

  /**
   * The breaker's state, streaks and window as plain JSON, for
   * `initialState` (e.g. across a restart). Calls in flight are not part of
   * it. Reading it changes nothing.
   *
   * @example
   * ```ts
   * const saved = JSON.stringify(b.snapshot());
   * const again = circuitBreaker({ trip: 'errorRatio', initialState: JSON.parse(saved) });
   * ```
   */
  snapshot(): CircuitBreakerSnapshot {
    return {
      kind: 'circuit',
      state: this.current,
      isolated: this.isolations > 0,
      retryAt: Number.isFinite(this.retryAt) ? this.retryAt : null,
      halfOpenSince: this.halfOpenSince,
      probeSuccesses: this.probeSuccesses,
      consecutiveFailures: this.consecutiveFailures,
      consecutiveSuccesses: this.consecutiveSuccesses,
      probeBits: this.probeBits,
      probeCount: this.probeCount,
      window: snapshotWindow(this.window),
      openings: this.openings,
      ...(this.calls === undefined ? {} : { calls: snapshotCountWindow(this.calls) }),
    };
  }

  get state(): BreakerState {
    return this.current;
  }

  /**
   * Changes thresholds and timings in place (hot reload): the window's counts,
   * the state and the streaks survive, and the next call sees the new options.
   * `trip`, `window`, `windowMs` and `buckets` shape the window and cannot change
   * in place; asking to is a `ConfigError`, and nothing changes. A new `openMs`
   * applies from the next opening.
   *
   * @example
   * ```ts
   * b.reconfigure({ trip: 'errorRatio', threshold: 0.3, openMs: 10_000 });
   * ```
   */
  reconfigure(options: CircuitBreakerOptions extends infer O ? (O extends unknown ? Omit<O, 'clock' | 'name' | 'initialState'> : never) : never): void {
    let o: ResolvedCircuitBreakerOptions;
    try {
      o = this.reparse((i, p) => this.sameWindow(checkOptions(circuitBreakerOptions, i, p)), options, this.o, ['strategy', 'windowMs', 'buckets']);
    } catch (e) {
      // The rules already say `trip` to a caller who wrote it (and refuse both spellings under `strategy`);
      // only the in-place check speaks of the resolved field.
      if (!(e instanceof ConfigError) || !hasOption(options, 'trip') || hasOption(options, 'strategy')) throw e;
      throw new ConfigError(this.name, e.issues.map((i) => (i.path === 'strategy' ? { ...i, path: 'trip' } : i)));
    }
    this.o = { ...o, clock: this.o.clock, random: o.random ?? this.o.random };
    this.slowCallMs = o.strategy === 'slowCallRatio' ? o.slowCallMs : Infinity;
  }

  /** `o`, unless it asks for another kind or size of window than this breaker's (checked before anything changes). */
  private sameWindow(o: ResolvedCircuitBreakerOptions): ResolvedCircuitBreakerOptions {
    refuseReshape(this.name, ['window'], { window: this.o.window?.size }, { window: o.window?.size }, 'window', 'breaker');
    return o;
  }

  /** The current window's counts and the current streaks. */
  stats(): CircuitBreakerStats {
    const c = this.calls;
    if (c !== undefined) {
      return { total: c.total, failures: c.failures, slow: c.slow, consecutiveFailures: this.consecutiveFailures, consecutiveSuccesses: this.consecutiveSuccesses };
    }
    const w = this.window;
    w.read(this.clock.now());
    const { v0: total, v1: failures, v2: slow } = w;
    return {
      total,
      failures,
      slow,
      consecutiveFailures: this.consecutiveFailures,
      consecutiveSuccesses: this.consecutiveSuccesses,
    };
  }

  /**
   * @internal True when a registry may drop it when idle at `now`: not
   * isolated, not open before `retryAt`, no probe unanswered, and (closed)
   * nothing left in its window. A streak outside the window is forgotten.
   * A count window never empties with time: idle eviction is the only
   * forgetting it has, so a closed count-window breaker is always evictable.
   */
  evictable(now: number): boolean {
    if (this.isolations > 0) return false;
    if (this.current === 'open') return now >= this.retryAt;
    if (this.current === 'half-open') return this.inFlight === 0;
    if (this.calls !== undefined) return true;
    const w = this.window;
    w.read(now);
    const { v0: total } = w;
    return total === 0;
  }

  protected admit(start: number): number {
    if (this.current === 'closed') return this.generation;
    const now = start;
    if (this.current === 'open') {
      if (this.isolations > 0) this.shed(new BrokenCircuitError(this.name), undefined);
      if (now < this.retryAt) this.shed(new BrokenCircuitError(this.name, this.retryAt - now), undefined);
      this.toHalfOpen(now);
      return this.generation;
    }
    if (this.halfOpenExpired(now)) this.shed(new BrokenCircuitError(this.name, this.retryAt - now), undefined);
    if (this.inFlight >= this.o.probes) this.shed(new BrokenCircuitError(this.name), undefined);
    if (this.inFlight++ === 0) this.halfOpenSince = now; // a new wait for answers starts
    return this.generation;
  }

  protected record(token: number, start: number, settlement: Settlement): number {
    const now = this.clock.now();
    if (this.current === 'half-open') this.halfOpenExpired(now);
    // gobreaker's generations: an outcome from before a transition changes nothing.
    if (token !== this.generation) return now;
    const failed = settlement !== SUCCESS;
    const slow = this.timed && (settlement === TIMEOUT || now - start > this.slowCallMs);
    if (this.current === 'closed') {
      let total: number, failures: number, slowCalls: number;
      const c = this.calls;
      if (c === undefined) {
        const w = this.window;
        w.add(now, 1, failed ? 1 : 0, slow ? 1 : 0);
        total = w.s0;
        failures = w.s1;
        slowCalls = w.s2;
      } else {
        c.add(failed, slow);
        total = c.total;
        failures = c.failures;
        slowCalls = c.slow;
      }
      if (failed) {
        this.consecutiveFailures++;
        this.consecutiveSuccesses = 0;
      } else {
        this.consecutiveSuccesses++;
        this.consecutiveFailures = 0;
      }
      const psr = this.o.strategy === 'dynamicThreshold' ? this.probeSuccessRate() : 1;
      const figure = tripFigure(this.o, total, failures, slowCalls, this.consecutiveFailures, psr, this);
      if (figure === figure) this.toOpen(now, 'threshold', figure);
      return now;
    }
    // Half-open: the only other state that admits calls.
    this.inFlight--;
    const probeFailed = failed || slow;
    this.probeBits = ((this.probeBits << 1) | (probeFailed ? 0 : 1)) & 7;
    if (this.probeCount < 3) this.probeCount++;
    if (probeFailed) this.toOpen(now, 'probeFailed', undefined);
    else if (++this.probeSuccesses >= this.o.probes) this.toClosed('probesSucceeded', this.probeSuccesses);
    return now;
  }

  protected release(token: number): void {
    if (this.current !== 'half-open') return;
    if (this.halfOpenExpired(this.clock.now())) return;
    if (token === this.generation) this.inFlight--;
  }

  protected onIsolate(): void {
    const from = this.current;
    this.enter('open');
    this.retryAt = Infinity;
    this.transition(from, 'open', 'isolated', undefined);
  }

  protected onReset(): void {
    this.probeBits = this.probeCount = 0;
    this.toClosed('reset', undefined);
  }

  /** Takes the fields of a validated snapshot (the window is already rebuilt). */
  private restore(s: CircuitBreakerSnapshot): void {
    this.current = s.isolated ? 'open' : s.state;
    this.retryAt = s.isolated || s.retryAt === null ? Infinity : s.retryAt;
    this.halfOpenSince = s.halfOpenSince;
    this.probeSuccesses = s.probeSuccesses;
    this.consecutiveFailures = s.consecutiveFailures;
    this.consecutiveSuccesses = s.consecutiveSuccesses;
    this.probeBits = s.probeBits;
    this.probeCount = s.probeCount;
    this.openings = s.openings ?? 0;
    if (s.isolated) this.isolations = 1;
  }

  /** Success rate of the last (up to) 3 probes, for the `dynamicThreshold` rule; 1 when there were none. */
  private probeSuccessRate(): number {
    if (this.probeCount === 0) return 1;
    let ok = 0;
    for (let i = 0; i < this.probeCount; i++) ok += (this.probeBits >> i) & 1;
    return ok / this.probeCount;
  }

  /**
   * resilience4j's maxWaitDurationInHalfOpenState, checked lazily: reopens when
   * half-open has waited longer than `maxHalfOpenMs` with probes unanswered.
   * (With none in flight nothing hangs: the next call is simply a probe, and
   * the wait starts again.)
   */
  private halfOpenExpired(now: number): boolean {
    if (this.inFlight === 0 || now - this.halfOpenSince <= this.o.maxHalfOpenMs) return false;
    this.toOpen(now, 'halfOpenTimeout', now - this.halfOpenSince);
    return true;
  }

  private enter(state: BreakerState): void {
    this.current = state;
    this.generation++;
    this.inFlight = 0;
    this.probeSuccesses = 0;
    this.consecutiveFailures = 0;
    this.consecutiveSuccesses = 0;
  }

  private toOpen(now: number, reason: StateChangeReason, figure: number | undefined): void {
    const from = this.current;
    this.enter('open');
    this.openings++;
    this.retryAt = now + this.openPeriodFor(this.openings);
    this.transition(from, 'open', reason, figure);
  }

  /**
   * The open period of opening number `openings` (resilience4j's `IntervalFunction.apply(attempts)`, 1 for the
   * first): `openMs`, or what its backoff or function gives, cut to `maxOpenMs`. A bad result keeps the last period.
   */
  private openPeriodFor(openings: number): number {
    const o = this.o;
    const open = o.openMs;
    if (typeof open === 'number') return open;
    let ms: unknown;
    try {
      ms = isOpenBackoff(open) ? open.delay(openings, undefined, this.openPeriod, o.random ?? Math.random) : open(openings, this.stats());
    } catch {
      ms = NaN;
    }
    if (typeof ms === 'number' && ms >= 0 && ms < Infinity) {
      const cap = o.maxOpenMs ?? (isOpenBackoff(open) && typeof open.max === 'number' ? open.max : Infinity);
      this.openPeriod = ms > cap ? cap : ms;
    }
    return this.openPeriod;
  }

  private toHalfOpen(now: number): void {
    this.enter('half-open');
    this.halfOpenSince = now;
    this.inFlight = 1; // the call that found the breaker ready is the first probe
    this.transition('open', 'half-open', 'retryTimeout', undefined);
  }

  private toClosed(reason: StateChangeReason, figure: number | undefined): void {
    const from = this.current;
    this.enter('closed');
    this.openings = 0;
    this.openPeriod = DEFAULT_OPEN_MS;
    this.window.clear();
    this.calls?.clear();
    this.transition(from, 'closed', reason, figure);
  }
}

/** The default `openMs`, and the period a growing `openMs` keeps when its first result is bad. */
const DEFAULT_OPEN_MS = 5_000;

/**
 * Makes a {@link CircuitBreakerPolicy}, the closed/open/half-open state machine
 * (Sentinel, gobreaker), with one of six trip rules (its `trip` option; `strategy`, the
 * deprecated name, still works). Defaults: 10 s window in
 * 10 buckets, `minRequests` 20, `openMs` 5 000, `probes` 1, `maxHalfOpenMs`
 * 60 000, `threshold` 0.5 for ratios and 5 for counts, `slowCallMs` 1 000.
 *
 * @example
 * ```ts
 * const b = circuitBreaker({ trip: 'consecutiveFailures', threshold: 5, openMs: 10_000 });
 * const slow = circuitBreaker({ trip: 'slowCallRatio', slowCallMs: 500, threshold: 0.3 });
 * ```
 */
export function circuitBreaker(options: CircuitBreakerOptions): CircuitBreakerPolicy {
  return new CircuitBreakerPolicy(checkOptions(circuitBreakerOptions, options, 'circuitBreaker'));
}
