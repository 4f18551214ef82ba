import { describe, expect, it } from 'vitest';
import { bucketMean, slaFigures } from '../../lab/sla-figures.js';
import { Outcome, type RunRecord } from '../../lab/simulate.js';

describe('bucketMean', () => {
  it('averages the buckets’ shares, leaving out buckets with nothing in them', () => {
    expect(bucketMean([4, 0, 2], [1, 0, 2])).toBeCloseTo((0.25 + 1) / 2, 12);
    expect(bucketMean([0, 0], [0, 0])).toBe(1);
  });
});

describe('slaFigures', () => {
  // two 1 s buckets in the window [1000, 3000): bucket 1 all well, bucket 2 B refuses half and C answers a third
  const record = (second?: RunRecord['second']): RunRecord =>
    ({
      arrival: Float64Array.from([500, 1_100, 1_200, 2_100, 2_200, 2_300, 2_400, 3_500]),
      outcome: Uint8Array.from([Outcome.Real, Outcome.Real, Outcome.Real, Outcome.Real, Outcome.Failed, Outcome.Failed, Outcome.Degraded, Outcome.Real]),
      admitted: Uint8Array.from([1, 1, 1, 1, 1, 0, 0, 1]),
      settled: Float64Array.from([1, 2, 3, 1]),
      answered: Float64Array.from([1, 2, 1, 1]),
      ...(second === undefined ? {} : { second }),
    }) as unknown as RunRecord;

  it('gives each hop’s and the whole chain’s availability as means over the window’s buckets', () => {
    const f = slaFigures(record(), 1_000, 3_000)!;
    expect(f.hopB).toBeCloseTo((1 + 0.5) / 2, 4);
    expect(f.hopC).toBeCloseTo((1 + 1 / 3) / 2, 4);
    expect(f.realBuckets).toBeCloseTo((1 + 0.25) / 2, 4);
    expect(f.otherReal).toBeUndefined();
  });

  it('with a second class, its availability and the mean of both classes’ product per bucket', () => {
    const second = { arrival: Float64Array.from([1_500, 2_500, 2_600]), latency: new Float64Array(3), outcome: Uint8Array.from([Outcome.Real, Outcome.Real, Outcome.Failed]) };
    const f = slaFigures(record(second), 1_000, 3_000)!;
    expect(f.otherReal).toBeCloseTo((1 + 0.5) / 2, 4);
    expect(f.bothReal).toBeCloseTo((1 * 1 + 0.25 * 0.5) / 2, 4);
  });

  it('is undefined for a record without the hop counts', () => {
    expect(slaFigures({ arrival: new Float64Array(0), outcome: new Uint8Array(0) } as unknown as RunRecord, 0, 1_000)).toBeUndefined();
  });
});
