import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, constant, exponential, linear, type Jitter } from '../../../api/index.js';
import { seededRandom } from '../../../lib/testing.js';
import { runs } from '../../helpers/fuzz.js';

describe('backoff', () => {
  it('constant and linear', () => {
    const r = () => 0.5;
    expect([1, 2, 3].map((i) => constant(200).delay(i, null, 0, r))).toEqual([200, 200, 200]);
    expect([1, 2, 3].map((i) => linear(100, 50).delay(i, null, 0, r))).toEqual([100, 150, 200]);
  });

  it('exponential without jitter doubles up to max', () => {
    const b = exponential({ initial: 100, multiplier: 2, max: 1_000, jitter: 'none' });
    expect([1, 2, 3, 4, 5].map((i) => b.delay(i, null, 0, Math.random))).toEqual([100, 200, 400, 800, 1_000]);
  });

  it('exponential states its max, the default cap of retry; constant and linear have none', () => {
    expect(exponential().max).toBe(10_000);
    expect(exponential({ initial: 50, max: 2_000 }).max).toBe(2_000);
    expect(constant(200).max).toBeUndefined();
    expect(linear(100, 50).max).toBeUndefined();
  });

  const bounds: Record<Jitter, (retry: number, prev: number) => [number, number]> = {
    none: (i) => [Math.min(5_000, 100 * 2 ** (i - 1)), Math.min(5_000, 100 * 2 ** (i - 1))],
    full: (i) => [0, Math.min(5_000, 100 * 2 ** (i - 1))],
    equal: (i) => [Math.min(5_000, 100 * 2 ** (i - 1)) / 2, Math.min(5_000, 100 * 2 ** (i - 1))],
    decorrelated: (_i, prev) => [100, Math.min(5_000, (prev > 0 ? prev : 100) * 3)],
    proportional: (i) => [Math.min(5_000, 100 * 2 ** i), Math.min(5_000, 100 * 2 ** i + 100 * i)],
  };

  for (const jitter of Object.keys(bounds) as Jitter[]) {
    it(`'${jitter}' jitter stays within its bounds for any seeded random source`, () => {
      const b = exponential({ initial: 100, multiplier: 2, max: 5_000, jitter });
      fc.assert(
        fc.property(fc.integer(), fc.integer({ min: 1, max: 12 }), (seed, retries) => {
          const random = seededRandom(seed);
          let prev = 0;
          for (let i = 1; i <= retries; i++) {
            const d = b.delay(i, null, prev, random);
            const [lo, hi] = bounds[jitter](i, prev);
            expect(d).toBeGreaterThanOrEqual(lo);
            expect(d).toBeLessThanOrEqual(hi);
            prev = d;
          }
        }),
        { numRuns: runs(200) },
      );
    });
  }

  it('full jitter spreads over the whole range', () => {
    const b = exponential({ initial: 1_000, jitter: 'full' });
    const random = seededRandom(1);
    const ds = Array.from({ length: 2_000 }, () => b.delay(1, null, 0, random));
    expect(Math.min(...ds)).toBeLessThan(50);
    expect(Math.max(...ds)).toBeGreaterThan(950);
  });

  it('rejects bad options naming them', () => {
    expect(() => exponential({ jitter: 'random' as never })).toThrow(ConfigError);
    expect(() => exponential({ initial: -1 })).toThrow(/initial/);
    expect(() => exponential({ multiplier: 0.5 })).toThrow(/multiplier/);
    expect(() => exponential({ initial: 500, max: 100 })).toThrow(/max/);
    expect(() => constant(Number.NaN)).toThrow(ConfigError);
    expect(() => linear(10, -1)).toThrow(/step/);
  });
});
