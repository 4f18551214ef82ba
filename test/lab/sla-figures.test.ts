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

  it('for a check row, when its breaker first opened, when the rule says it should, and the window’s error rate then', () => {
    // 200 attempts a second (A's whole load: the load term's full 0.3); from 30 s (the fault's start) 160 of them
    // fail: the dynamic rule trips in second 34 (0.3 + 0.5 × 800 / 2,000 = 0.5); the breaker opened at 34.6 s
    const settled = Float64Array.from({ length: 60 }, () => 200);
    const answered = Float64Array.from({ length: 60 }, (_, b) => (b < 30 ? 200 : 40));
    const r = {
      row: 'dynamicBreaker',
      scenario: 'capacityDrop',
      durationMs: 60_000,
      arrival: new Float64Array(0),
      outcome: new Uint8Array(0),
      admitted: new Uint8Array(0),
      settled,
      answered,
      firstOpenAfterFault: 34_600,
    } as unknown as RunRecord;
    const f = slaFigures(r, 30_000, 60_000)!;
    expect(f.tripS).toBe(4);
    expect(f.tripFormulaS).toBe(4);
    expect(f.tripErrorRate).toBeCloseTo(0.4, 4);
    const never = slaFigures({ ...r, firstOpenAfterFault: undefined, answered: settled } as RunRecord, 30_000, 60_000)!;
    expect(never.tripS).toBeNull();
    expect(never.tripFormulaS).toBeNull();
    expect(never.tripErrorRate).toBeUndefined();
  });

  it('is undefined for a record without the hop counts', () => {
    expect(slaFigures({ arrival: new Float64Array(0), outcome: new Uint8Array(0) } as unknown as RunRecord, 0, 1_000)).toBeUndefined();
  });
});
