import { describe, expect, it } from 'vitest';
import { algorithmOf, type WindowFigures } from '../../../policies/adaptive-limiter/algorithms.js';
import { LimitAlgorithmSchema } from '../../../policies/adaptive-limiter/schema.js';

const make = (spec: unknown) => algorithmOf(LimitAlgorithmSchema.parse(spec));
const win = (rttMs: number | undefined, maxInFlight: number, drops = 0): WindowFigures => ({ rttMs, maxInFlight, samples: 10, drops });

/** A gradient algorithm past its warm-up, with baseline `base`. */
function warmGradient(base: number, spec: Record<string, unknown> = {}) {
  const g = make({ kind: 'gradient', ...spec });
  for (let i = 0; i < 10; i++) g.next(20, win(base, 20), false);
  return g;
}

describe('gradient', () => {
  it('takes the least loaded window of its warm-up as the baseline', () => {
    const g = make('gradient');
    for (const rtt of [30, 25, 40, 26, 50, 31, 44, 29, 27, 35]) g.next(20, win(rtt, 1), false);
    expect(g.baselineMs).toBe(25);
  });

  it('grows by queueSize while the window mean is within the tolerance of the baseline and half the limit is used', () => {
    const g = warmGradient(20);
    expect(g.next(20, win(29, 10), false)).toEqual({ limit: 24, reason: 'increase', queueing: true });
    expect(g.next(20, win(21, 10), false)).toEqual({ limit: 24, reason: 'increase', queueing: false });
    // App-limited: fewer than half the limit in flight say nothing of it (Gradient2).
    expect(g.next(20, win(60, 9), false)).toEqual({ limit: 20, reason: 'hold', queueing: false });
  });

  it('lowers the limit by the smoothed gradient, never by more than half the smoothing at once', () => {
    const g = warmGradient(20);
    // gradient 1.5 × 20 / 40 = 0.75: 20 × (1 − 0.2 × 0.25) = 19
    expect(g.next(20, win(40, 20), false)).toEqual({ limit: 19, reason: 'queueing', queueing: true });
    // gradient 1.5 × 20 / 200 = 0.15, clamped to 0.5: 20 × (1 − 0.2 × 0.5) = 18
    expect(g.next(20, win(200, 20), false)).toEqual({ limit: 18, reason: 'queueing', queueing: true });
    const smooth = warmGradient(20, { smoothing: 1, tolerance: 2 });
    // gradient 2 × 20 / 50 = 0.8, taken whole: 20 × 0.8 = 16
    expect(smooth.next(20, win(50, 20), false).limit).toBeCloseTo(16);
  });

  it('multiplies the limit by backoffRatio after a window with a drop, whatever its response times', () => {
    const g = warmGradient(20, { backoffRatio: 0.8 });
    expect(g.next(20, win(10, 20, 1), false)).toEqual({ limit: 16, reason: 'drop', queueing: true });
    expect(g.next(20, win(undefined, 1, 10), false)).toEqual({ limit: 16, reason: 'drop', queueing: true });
    expect(g.baselineMs).toBe(20);
  });

  it('moves the baseline only on windows without queueing (within √tolerance of it)', () => {
    const g = warmGradient(20, { baselineWindows: 9 });
    // factor 2 / (9 + 1) = 0.2: 20 + (24 − 20) × 0.2
    g.next(20, win(24, 20), false);
    expect(g.baselineMs).toBeCloseTo(20.8);
    // √1.5 × 20.8 ≈ 25.5: a window at 26 is queueing, and leaves the baseline alone.
    g.next(20, win(26, 20), false);
    g.next(20, win(200, 20), false);
    expect(g.baselineMs).toBeCloseTo(20.8);
    g.next(20, win(16, 20), false);
    expect(g.baselineMs).toBeCloseTo(20.8 + (16 - 20.8) * 0.2);
  });

  it('comes back down at once after long slow stretches: a window under half the baseline takes 5 % more off', () => {
    const g = warmGradient(100, { baselineWindows: 9 });
    g.next(20, win(40, 20), false);
    expect(g.baselineMs).toBeCloseTo((100 + (40 - 100) * 0.2) * 0.95);
  });

  it('at the minimum limit, raises the baseline just enough that the window counts as no queueing', () => {
    const g = warmGradient(20);
    expect(g.next(1, win(60, 1), true)).toEqual({ limit: 5, reason: 'increase', queueing: true });
    expect(g.baselineMs).toBe(40);
  });
});

describe('aimd', () => {
  it('multiplies by backoffRatio on a drop, grows by increase while half the limit is used, holds otherwise', () => {
    const a = make({ kind: 'aimd', backoffRatio: 0.5, increase: 2 });
    expect(a.next(20, win(10, 20, 1), false)).toEqual({ limit: 10, reason: 'drop', queueing: true });
    expect(a.next(20, win(500, 10), false)).toEqual({ limit: 22, reason: 'increase', queueing: false });
    expect(a.next(20, win(5, 9), false)).toEqual({ limit: 20, reason: 'hold', queueing: false });
    expect(a.baselineMs).toBeUndefined();
    expect(make('aimd').slowMs).toBeUndefined();
    expect(make({ kind: 'aimd', slowMs: 250 }).slowMs).toBe(250);
  });
});

describe('vegas', () => {
  it('estimates the queue from the window: grows fast with none, slowly with a little, holds in the band, sheds the excess', () => {
    const v = make('vegas');
    expect(v.next(20, win(20, 20), false)).toEqual({ limit: 26, reason: 'increase', queueing: false });
    expect(v.baselineMs).toBe(20);
    // queue = ceil(20 × (1 − 20 / 21)) = 1 <= log10: + 6 × log10
    expect(v.next(20, win(21, 20), false)).toEqual({ limit: 26, reason: 'increase', queueing: false });
    // queue = ceil(20 × (1 − 20 / 22)) = 2 < 3: + log10
    expect(v.next(20, win(22, 20), false)).toEqual({ limit: 21, reason: 'increase', queueing: false });
    // queue = ceil(20 × (1 − 20 / 25)) = 4, between alpha 3 and beta 6: hold
    expect(v.next(20, win(25, 20), false)).toEqual({ limit: 20, reason: 'hold', queueing: true });
    // queue = ceil(20 × (1 − 20 / 40)) = 10 > 6: shed 10 − 6 from the 20 in flight
    expect(v.next(20, win(40, 20), false)).toEqual({ limit: 16, reason: 'queueing', queueing: true });
    // estimated from the window's own concurrency: 12 in flight, queue ceil(12 × 0.5) = 6, within the band
    expect(v.next(20, win(40, 12), false)).toEqual({ limit: 20, reason: 'hold', queueing: true });
  });

  it('subtracts log10 of the limit on a drop, and holds while app-limited', () => {
    const v = make({ kind: 'vegas' });
    expect(v.next(200, win(10, 200, 2), false)).toEqual({ limit: 198, reason: 'drop', queueing: true });
    expect(v.next(200, win(10, 99), false)).toEqual({ limit: 200, reason: 'hold', queueing: false });
    v.reset();
    expect(v.baselineMs).toBeUndefined();
  });
});
