import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { circuitBreakerOptions, type CircuitBreakerStats } from '../../../policies/circuit-breaker/options.js';
import { meets, RATIO_TOLERANCE, tripFigure } from '../../../policies/circuit-breaker/trips.js';

const resolve = (o: object) => checkOptions(circuitBreakerOptions, o, 'circuitBreaker');
const stats = (total: number): { stats(): CircuitBreakerStats } => ({ stats: () => ({ total }) as CircuitBreakerStats });
/** The figure of a window of `total` calls, `failures` failed, `slow` slow, `streak` failures in a row, probes all good. */
const figure = (o: object, total: number, failures: number, slow = 0, streak = 0, probes = 1) => tripFigure(resolve(o), total, failures, slow, streak, probes, stats(total));

describe('meets', () => {
  it('a ratio meets its threshold above it or within 1e-8 below it', () => {
    expect(meets(0.5, 0.5)).toBe(true);
    expect(meets(0.5 - RATIO_TOLERANCE / 2, 0.5)).toBe(true);
    expect(meets(0.5 - RATIO_TOLERANCE * 10, 0.5)).toBe(false);
    expect(meets(0.51, 0.5)).toBe(true);
  });
});

describe('tripFigure', () => {
  it('consecutiveFailures: the streak once it reaches the threshold, whatever minRequests', () => {
    const o = { trip: 'consecutiveFailures', threshold: 3, minRequests: 100 };
    expect(figure(o, 3, 3, 0, 3)).toBe(3);
    expect(figure(o, 10, 5, 0, 2)).toBeNaN();
  });

  it('errorRatio and slowCallRatio: the ratio once minRequests is met and it reaches the threshold', () => {
    const ratio = { trip: 'errorRatio', threshold: 0.5, minRequests: 10 };
    expect(figure(ratio, 10, 5)).toBe(0.5);
    expect(figure(ratio, 10, 4)).toBeNaN();
    expect(figure(ratio, 9, 9)).toBeNaN(); // under minRequests
    const slow = { trip: 'slowCallRatio', threshold: 0.3, minRequests: 10 };
    expect(figure(slow, 10, 0, 3)).toBeCloseTo(0.3);
    expect(figure(slow, 10, 9, 2)).toBeNaN(); // failures are not slow calls
  });

  it('errorCount: the failures once they reach the threshold', () => {
    const o = { trip: 'errorCount', threshold: 4, minRequests: 5 };
    expect(figure(o, 5, 4)).toBe(4);
    expect(figure(o, 5, 3)).toBeNaN();
    expect(figure(o, 4, 4)).toBeNaN(); // under minRequests
  });

  it('dynamicThreshold: the risk score once it reaches the threshold; never on a window without failures', () => {
    // 10 calls in a 1 s window = 10 rps = baseRps: the load term is its full weight 0.3, the error term 0.5 × rate
    const o = { trip: 'dynamicThreshold', baseRps: 10, windowMs: 1_000, minRequests: 10 };
    expect(figure(o, 10, 4)).toBeCloseTo(0.5);
    expect(figure(o, 10, 3)).toBeNaN();
    expect(figure(o, 10, 0)).toBeNaN();
    expect(figure({ ...o, threshold: 0.4 }, 10, 3)).toBeCloseTo(0.45);
    // failed probes raise the score: the same window trips with no probe trusted
    expect(figure(o, 10, 3, 0, 0, 0)).toBeGreaterThanOrEqual(0.5);
  });

  it('custom: the window total when readyToTrip says so, or throws; NaN otherwise', () => {
    expect(figure({ trip: 'custom', minRequests: 1, readyToTrip: (s: CircuitBreakerStats) => s.total >= 5 }, 5, 0)).toBe(5);
    expect(figure({ trip: 'custom', minRequests: 1, readyToTrip: () => false }, 5, 5)).toBeNaN();
    expect(
      figure(
        {
          trip: 'custom',
          minRequests: 1,
          readyToTrip: () => {
            throw new Error('bug');
          },
        },
        2,
        0,
      ),
    ).toBe(2);
  });
});
