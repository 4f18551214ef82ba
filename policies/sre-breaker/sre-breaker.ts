import { BreakerPolicy, SUCCESS, type Settlement } from '../breaker/breaker.js';
import { systemClock } from '../../lib/clock.js';
import { BrokenCircuitError } from '../../lib/errors.js';
import { checkOptions } from '../../lib/options.js';
import { goZeroOrigin, restoreWindow, RollingWindow, snapshotWindow } from '../../lib/window.js';
import { sreBreakerOptions, type ResolvedSreBreakerOptions, type SreBreakerOptions, type SreBreakerSnapshot } from './options.js';

/** What {@link SreBreakerPolicy.stats} reports about the current window (go-zero's `windowResult`). */
export interface SreBreakerStats {
  /** Successes in the window. */
  readonly accepts: number;
  /** Successes, failures and shed calls in the window. */
  readonly total: number;
  /** Newest run of buckets with failures and no success (empty buckets neither extend nor break it). */
  readonly failingBuckets: number;
  /** Newest run of buckets with successes and no failure. */
  readonly workingBuckets: number;
}

/**
 * go-zero's Google-SRE adaptive breaker: no states to configure, it sheds a
 * share of calls that grows as accepted calls fall behind requests
 * (`dropRatio = (total − protection − w·accepts) / (total + 1)`, the SRE
 * book's client-side throttling with go-zero's refinements). Behaviour:
 * docs/breakers.md, "The SRE breaker".
 *
 * @example
 * ```ts
 * const b = sreBreaker(); // go-zero defaults
 * const user = await b.execute((ctx) => getUser(id, ctx.signal));
 * ```
 */
export class SreBreakerPolicy extends BreakerPolicy<'closed' | 'open'> {
  /** @internal the statistics window (go-zero grid: aligned to construction time): successes, failures, shed calls. */
  readonly window: RollingWindow;
  private o: ResolvedSreBreakerOptions;
  private readonly random: () => number;
  /** Clock time of the last call let through while the drop ratio was > 0, by the draw or forced (go-zero `lastPass`); NaN before the first. */
  private lastPass = NaN;
  /** The last decision's drop ratio was > 0. */
  private open = false;
  /** Bumped by reset(): outcomes of calls admitted before are dropped. */
  private epoch = 0;
  private failing = 0;
  private working = 0;

  /** Takes options already checked (with defaults applied); use {@link sreBreaker}. */
  constructor(o: ResolvedSreBreakerOptions, name = o.name) {
    const clock = o.clock ?? systemClock;
    super(name, clock, o.handle, o.handleResult);
    this.o = o;
    this.random = o.random ?? Math.random;
    const s = o.initialState;
    this.window = s === undefined ? new RollingWindow(o.buckets, o.windowMs / o.buckets, goZeroOrigin(clock.now())) : restoreWindow(s.window);
    if (s !== undefined) {
      this.open = s.open || s.isolated;
      this.lastPass = s.lastPass ?? NaN;
      if (s.isolated) this.isolations = 1;
    }
  }

  /**
   * The breaker's state and window as plain JSON, for `initialState` (e.g.
   * across a restart). Reading it changes nothing.
   *
   * @example
   * ```ts
   * const saved = JSON.stringify(b.snapshot());
   * const again = sreBreaker({ initialState: JSON.parse(saved) });
   * ```
   */
  snapshot(): SreBreakerSnapshot {
    const lastPass = this.lastPass;
    return { kind: 'sre', open: this.open, isolated: this.isolations > 0, lastPass: lastPass === lastPass ? lastPass : null, window: snapshotWindow(this.window) };
  }

  get state(): 'closed' | 'open' {
    return this.open ? 'open' : 'closed';
  }

  /**
   * Changes `k`, `minK`, `protection`, `forcePassMs`, `handle` and
   * `handleResult` in place (hot reload), keeping the window. `windowMs` and
   * `buckets` shape the window and cannot change in place; asking to is a
   * `ConfigError`, and nothing changes.
   */
  reconfigure(options: Omit<SreBreakerOptions, 'clock' | 'random' | 'name' | 'initialState'>): void {
    const o = this.reparse((i, p) => checkOptions(sreBreakerOptions, i, p), options, this.o, ['windowMs', 'buckets']);
    this.o = { ...o, clock: this.o.clock, random: this.o.random };
  }

  /** The current window's totals and streaks. */
  stats(): SreBreakerStats {
    const now = this.clock.now();
    const w = this.window;
    w.read(now);
    this.streaks(now);
    const { v0: successes, v1: failures, v2: shed } = w;
    return { accepts: successes, total: successes + failures + shed, failingBuckets: this.failing, workingBuckets: this.working };
  }

  /**
   * @internal True when a fresh breaker would decide as this one does at `now`,
   * so a registry may drop it when idle: not isolated, nothing left in its window.
   */
  evictable(now: number): boolean {
    if (this.isolations > 0) return false;
    const w = this.window;
    w.read(now);
    const { v0: successes, v1: failures, v2: shed } = w;
    return successes + failures + shed === 0;
  }

  protected admit(start: number): number {
    if (this.isolations > 0) this.shed(new BrokenCircuitError(this.name), undefined);
    const o = this.o;
    const w = this.window;
    // What is visible now is part of what the running sums hold. If failures and drops
    // there are within `protection`, the drop ratio is <= 0 whatever expired (minK >= 1): pass
    // without reading the window.
    const { s1: failuresHeld, s2: shedHeld } = w;
    if (!this.open && failuresHeld + shedHeld <= o.protection) return this.epoch;
    const now = start;
    w.read(now);
    const { v0: accepts, v1: failures, v2: shed } = w;
    const total = accepts + failures + shed;
    // With the weight at its floor minK the ratio is at its largest: if even that is <= 0,
    // the call passes whatever the streaks are, and no bucket needs reading.
    if (total - o.protection - o.minK * accepts <= 0) {
      if (this.open) this.setOpen(false, this.dropRatio(now, accepts, total));
      return this.epoch;
    }
    const dropRatio = this.dropRatio(now, accepts, total);
    if (dropRatio <= 0) {
      this.setOpen(false, dropRatio);
      return this.epoch;
    }
    this.setOpen(true, dropRatio);
    const sinceLastPass = now - this.lastPass;
    // go-zero: `lastPass > 0 && timex.Since(lastPass) > forcePassDuration` (NaN before any pass).
    if (sinceLastPass > o.forcePassMs) {
      this.lastPass = now;
      if (this.events.observed) this.events.emit({ type: 'forcePass', policy: this.name, dropRatio, sinceLastPassMs: sinceLastPass });
      return this.epoch;
    }
    const p = dropRatio * ((o.buckets - this.working) / o.buckets);
    if (this.random() < p) {
      w.add(now, 0, 0, 1);
      this.shed(new BrokenCircuitError(this.name), p);
    }
    this.lastPass = now;
    return this.epoch;
  }

  protected record(token: number, _start: number, settlement: Settlement): number {
    const now = this.clock.now();
    if (token !== this.epoch) return now;
    if (settlement === SUCCESS) this.window.add(now, 1, 0, 0);
    else this.window.add(now, 0, 1, 0);
    return now;
  }

  protected release(): void {}

  protected onIsolate(): void {
    this.epoch++;
    const was = this.open;
    this.open = true;
    this.transition(was ? 'open' : 'closed', 'open', 'isolated', undefined);
  }

  protected onReset(): void {
    this.epoch++;
    this.window.clear();
    this.lastPass = NaN;
    this.setOpen(false, undefined, 'reset');
  }

  /** The weight `w` and the drop ratio (go-zero `accept`), with the streaks left in `failing`/`working` for the shed probability. */
  private dropRatio(now: number, accepts: number, total: number): number {
    const o = this.o;
    this.streaks(now);
    const w = o.k - ((o.k - o.minK) * this.failing) / o.buckets;
    const weightedAccepts = Math.max(w, o.minK) * accepts;
    return (total - o.protection - weightedAccepts) / (total + 1);
  }

  /** go-zero `history()`: streaks reduced from the oldest visible bucket to the newest. */
  private streaks(now: number): void {
    const w = this.window;
    const current = w.indexAt(now);
    let working = 0;
    let failing = 0;
    const from = Math.max(current - w.size, w.head - w.size) + 1;
    for (let i = from; i <= w.head; i++) {
      const success = w.count(i, current, 0);
      const failure = w.count(i, current, 1);
      if (failure > 0) working = 0;
      else if (success > 0) working++;
      if (success > 0) failing = 0;
      else if (failure > 0) failing++;
    }
    this.failing = failing;
    this.working = working;
  }

  private setOpen(open: boolean, figure: number | undefined, reason: 'dropRatio' | 'reset' = 'dropRatio'): void {
    if (open === this.open) return;
    this.open = open;
    this.transition(open ? 'closed' : 'open', open ? 'open' : 'closed', reason, figure);
  }
}

/**
 * Makes a {@link SreBreakerPolicy} (go-zero's Google-SRE adaptive breaker) with
 * go-zero's defaults: 10 s window in 40 buckets, `k` 1.5, `minK` 1.1,
 * `protection` 5, `forcePassMs` 1 000.
 *
 * @example
 * ```ts
 * const p = policy().timeout(300).retry().breaker().fallback(() => null);
 * const b = sreBreaker({ handle: (e) => !(e instanceof NotFoundError) });
 * ```
 */
export function sreBreaker(options: SreBreakerOptions = {}): SreBreakerPolicy {
  return new SreBreakerPolicy(checkOptions(sreBreakerOptions, options, 'breaker'));
}
