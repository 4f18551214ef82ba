import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RollingHistogram } from '../../lib/histogram.js';
import { runs } from '../helpers/fuzz.js';

describe('RollingHistogram', () => {
  it('estimates quantiles within 10 % of the exact value', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0.2, max: 100_000, noNaN: true }), { minLength: 1, maxLength: 500 }), fc.constantFrom(0.5, 0.9, 0.99), (samples, q) => {
        const h = new RollingHistogram({ windowMs: 60_000 });
        for (const s of samples) h.record(s, 1_000);
        const sorted = [...samples].sort((a, b) => a - b);
        const exact = sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
        const est = h.quantile(q, 1_000);
        expect(est).toBeGreaterThanOrEqual(exact);
        expect(est).toBeLessThanOrEqual(exact * 1.1 + 1e-9);
      }),
      { numRuns: runs(300) },
    );
  });

  it('forgets samples older than the window, slice by slice', () => {
    const h = new RollingHistogram({ windowMs: 60_000, slices: 6 });
    h.record(1_000, 0); // slice 0
    h.record(10, 30_000); // slice 3
    expect(h.count(59_999)).toBe(2);
    expect(h.quantile(0.99, 59_999)).toBeGreaterThanOrEqual(1_000);
    // at 60,000 slice 0 has left the window
    expect(h.count(60_000)).toBe(1);
    expect(h.quantile(0.99, 60_000)).toBeLessThan(12);
    expect(h.count(90_000)).toBe(0);
    expect(h.quantile(0.99, 90_000)).toBe(0);
  });
});
