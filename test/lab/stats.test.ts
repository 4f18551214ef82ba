import { describe, expect, it } from 'vitest';
import { bimodal, bimodalSplit, bootstrapMedian, medianOf } from '../../lab/stats.js';

describe('bootstrapMedian', () => {
  it('gives a point interval for equal values and the value itself for one', () => {
    expect(bootstrapMedian([0.7, 0.7, 0.7, 0.7])).toEqual({ median: 0.7, lo: 0.7, hi: 0.7, bimodal: false });
    expect(bootstrapMedian([42])).toEqual({ median: 42, lo: 42, hi: 42, bimodal: false });
  });

  it('brackets the median within the values, whatever their order, and gives the same interval every time', () => {
    const values = [5, 1, 9, 3, 7, 2, 8, 4, 6, 10];
    const e = bootstrapMedian(values);
    expect(e.median).toBe(5.5);
    expect(e.lo).toBeGreaterThanOrEqual(1);
    expect(e.lo).toBeLessThan(5.5);
    expect(e.hi).toBeGreaterThan(5.5);
    expect(e.hi).toBeLessThanOrEqual(10);
    expect(bootstrapMedian([...values].reverse())).toEqual(e);
  });

  it('half the seeds at one value and half at another: the interval spans both', () => {
    const e = bootstrapMedian([...Array(10).fill(0.98), ...Array(10).fill(1)]);
    expect(e.median).toBeCloseTo(0.99, 12);
    expect(e.lo).toBe(0.98);
    expect(e.hi).toBe(1);
  });

  it('keeps ∞ (no recovery within the run) as the largest value', () => {
    const e = bootstrapMedian([1, 2, Infinity, Infinity, Infinity]);
    expect(e.median).toBe(Infinity);
    expect(e.hi).toBe(Infinity);
    expect(e.lo).toBeLessThanOrEqual(2);
  });

  it('refuses no values', () => {
    expect(() => bootstrapMedian([])).toThrow(/no values/);
  });
});

describe('bimodal', () => {
  it('flags two groups apart, each holding at least a tenth of the seeds', () => {
    const collapse = [...Array(6).fill(0.02), ...Array(14).fill(0.98)];
    expect(bimodal(collapse, 0.1)).toBe(true);
    expect(bimodalSplit(collapse, 0.1)).toEqual([Array(6).fill(0.02), Array(14).fill(0.98)]);
  });

  it('does not flag one outlier among 20 seeds, a spread-out figure, or a gap under the figure’s scale', () => {
    expect(bimodal([...Array(19).fill(0), 1], 0.1)).toBe(false);
    expect(bimodal(Array.from({ length: 20 }, (_, i) => 0.5 + i * 0.01), 0.1)).toBe(false);
    expect(bimodal([...Array(10).fill(0.5), ...Array(10).fill(0.55)], 0.1)).toBe(false);
  });

  it('does not flag a gap narrower than the spread of a side', () => {
    expect(bimodal([0, 0.1, 0.2, 0.3, 0.4, 0.55, 0.6, 0.7], 0.1)).toBe(false);
  });

  it('flags a split between recovered and never recovered (∞)', () => {
    expect(bimodal([1, 3, 5, 8, Infinity, Infinity], 10)).toBe(true);
    expect(bimodal([Infinity, Infinity, Infinity], 10)).toBe(false);
  });

  it('never flags fewer than 3 values', () => {
    expect(bimodal([0, 1], 0.1)).toBe(false);
  });
});

describe('medianOf', () => {
  it('is the middle value, or the mean of the middle two, whatever the order; undefined for none', () => {
    expect(medianOf([3, 1, 2])).toBe(2);
    expect(medianOf([4, 1, 3, 2])).toBe(2.5);
    expect(medianOf([5])).toBe(5);
    expect(medianOf([])).toBeUndefined();
    expect(medianOf([1, Infinity, Infinity])).toBe(Infinity);
  });
});
