import type { WindowFigures } from './algorithms.js';

/**
 * Gathers measured calls into sampling windows (Netflix's WindowedLimit):
 * a window opens when the one before closes, and closes at the first call
 * that ends at least `max(windowMs, 2 × its fastest answer)` after that (at
 * most `maxWindowMs`), once it holds `minSamples` calls; a window still
 * short of them after `maxWindowMs` is discarded with the call that found
 * it so, and a handful of calls over a quiet second never moves the limit.
 */
export class Sampler implements WindowFigures {
  rttMs: number | undefined = undefined;
  maxInFlight = 0;
  samples = 0;
  drops = 0;
  private opened: number;
  private answered = 0;
  private rttSum = 0;
  private fastest = Infinity;

  constructor(
    private windowMs: number,
    private maxWindowMs: number,
    private minSamples: number,
    now: number,
  ) {
    this.opened = now;
  }

  /** New bounds (hot reload): the window under way keeps its calls and closes by them. */
  retune(windowMs: number, maxWindowMs: number, minSamples: number): void {
    this.windowMs = windowMs;
    this.maxWindowMs = maxWindowMs;
    this.minSamples = minSamples;
  }

  /**
   * Adds a call that ended at `now` after `rtt` ms, started with `inFlight`
   * calls in flight; returns the window's figures when this call closes it
   * (read them before the next `add`).
   */
  add(now: number, rtt: number, inFlight: number, dropped: boolean): WindowFigures | undefined {
    this.samples++;
    if (inFlight > this.maxInFlight) this.maxInFlight = inFlight;
    if (dropped) this.drops++;
    else {
      this.answered++;
      this.rttSum += rtt;
      if (rtt < this.fastest) this.fastest = rtt;
    }
    const age = now - this.opened;
    if (this.samples < this.minSamples) {
      if (age >= this.maxWindowMs) this.clear(now);
      return undefined;
    }
    // A window of drops only has no fastest answer: it lasts windowMs.
    if (age < Math.min(this.maxWindowMs, Math.max(this.windowMs, this.fastest === Infinity ? 0 : 2 * this.fastest))) return undefined;
    this.rttMs = this.answered === 0 ? undefined : this.rttSum / this.answered;
    return this;
  }

  /** Starts a fresh window at clock time `now`. */
  clear(now: number): void {
    this.opened = now;
    this.samples = 0;
    this.drops = 0;
    this.maxInFlight = 0;
    this.answered = 0;
    this.rttSum = 0;
    this.fastest = Infinity;
    this.rttMs = undefined;
  }
}
