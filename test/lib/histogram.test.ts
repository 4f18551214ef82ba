import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RollingHistogram } from '../../lib/histogram.js';
import { runs } from '../helpers/fuzz.js';

/** The upper edge of histogram bucket `b`: 0.1 ms · 1.1^b (lib/histogram.ts doc). */
const edge = (b: number): number => 0.1 * 1.1 ** b;

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

describe('RollingHistogram: buckets and quantiles', () => {
  it('a sample at or under 0.1 ms is bucket 0, whose edge is 0.1', () => {
    for (const ms of [0, 0.1, -3]) {
      const h = new RollingHistogram({ windowMs: 60_000 });
      h.record(ms, 0);
      expect(h.quantile(0.5, 0)).toBe(0.1);
    }
    // 0.2 ms: floor(ln 2 / ln 1.1) + 1 = floor(7.27) + 1 = 8
    const h = new RollingHistogram({ windowMs: 60_000 });
    h.record(0.2, 0);
    expect(h.quantile(0.5, 0)).toBeCloseTo(edge(8), 12);
  });

  it('samples beyond the last bucket land in bucket 179; a q over 1 answers its edge', () => {
    const h = new RollingHistogram({ windowMs: 60_000 });
    h.record(1e12, 0);
    expect(h.quantile(0.5, 0)).toBeCloseTo(edge(179), 3);
    const g = new RollingHistogram({ windowMs: 60_000 });
    g.record(1, 0);
    expect(g.quantile(2, 0)).toBeCloseTo(edge(179), 3);
  });

  it('the quantile is the bucket holding the ceil(q·n)-th sample, at least the first', () => {
    // 1, 10, 100, 1000 ms land in buckets 25, 49, 73, 97 (floor(ln(ms/0.1)/ln 1.1) + 1)
    const h = new RollingHistogram({ windowMs: 60_000 });
    for (const ms of [1_000, 1, 100, 10]) h.record(ms, 0);
    expect(h.count(0)).toBe(4);
    expect(h.quantile(0, 0)).toBeCloseTo(edge(25), 9); // target max(1, 0) = 1
    expect(h.quantile(0.25, 0)).toBeCloseTo(edge(25), 9); // target 1
    expect(h.quantile(0.5, 0)).toBeCloseTo(edge(49), 9); // target 2
    expect(h.quantile(0.6, 0)).toBeCloseTo(edge(73), 9); // target ceil(2.4) = 3
    expect(h.quantile(1, 0)).toBeCloseTo(edge(97), 9); // target 4
    // only one sample, of 0.2 ms: q = 0 still finds it
    const g = new RollingHistogram({ windowMs: 60_000 });
    g.record(0.2, 0);
    expect(g.quantile(0, 0)).toBeCloseTo(edge(8), 12);
  });

  it('a reused slice starts empty: counts and total', () => {
    const h = new RollingHistogram({ windowMs: 60_000, slices: 6 });
    h.record(10, 0); // slice 0, epoch 0
    h.record(0, 0); // bucket 0
    h.record(1_000, 60_000); // slice 0 again, epoch 6
    expect(h.count(60_000)).toBe(1);
    expect(h.quantile(0.01, 60_000)).toBeCloseTo(edge(97), 9);
  });

  it('a sample past the last bucket stays in its own slice', () => {
    const h = new RollingHistogram({ windowMs: 60_000, slices: 6 });
    h.record(1, 10_000); // slice 1, bucket 25
    h.record(1e12, 0); // slice 0, bucket 179
    expect(h.count(10_000)).toBe(2);
    expect(h.quantile(0.5, 10_000)).toBeCloseTo(edge(25), 9);
    expect(h.quantile(1, 10_000)).toBeCloseTo(edge(179), 3);
  });

  it('the quantile leaves out a slice exactly one window old, as the count does', () => {
    const h = new RollingHistogram({ windowMs: 60_000, slices: 6 });
    h.record(10, 0); // slice 0, epoch 0, bucket 49
    h.record(1_000, 10_000); // slice 1, epoch 1, bucket 97
    // at 60,000 (epoch 6) slice 0 still holds epoch 0, a whole window old
    expect(h.count(60_000)).toBe(1);
    expect(h.quantile(0.5, 60_000)).toBeCloseTo(edge(97), 9);
  });

  it('6 slices by default, and negative clock times map to a slice', () => {
    const h = new RollingHistogram({ windowMs: 60_000 }); // slices of 10 s
    h.record(5, 0);
    h.record(5, 50_000);
    expect(h.count(59_999)).toBe(2);
    expect(h.count(60_000)).toBe(1);
    const n = new RollingHistogram({ windowMs: 60_000 });
    n.record(5, -5_000);
    expect(n.count(-5_000)).toBe(1);
    expect(n.quantile(0.5, -5_000)).toBeCloseTo(edge(42), 9); // floor(ln 50 / ln 1.1) + 1 = floor(41.04) + 1
  });
});
