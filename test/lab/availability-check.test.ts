import { describe, expect, it } from 'vitest';
import { availabilityCheck, availabilityCheckText, betaOf, samplesOf, seriesCheck } from '../../lab/availability-check.js';
import { METRICS, type SeedFile, type Value } from '../../lab/seeds.js';

describe('betaOf', () => {
  it('is the β of the mixture that gives the measured figure', () => {
    // parts 0.8 and 0.5: product 0.4, weakest 0.5; measured 0.45 lies halfway
    expect(betaOf({ parts: [0.8, 0.5], measured: 0.45 })).toBeCloseTo(0.5, 12);
    expect(betaOf({ parts: [0.8, 0.5], measured: 0.4 })).toBeCloseTo(0, 12);
    expect(betaOf({ parts: [0.8, 0.5], measured: 0.5 })).toBeCloseTo(1, 12);
  });

  it('clamps to [0, 1] and is undefined when one part alone is short of 1', () => {
    expect(betaOf({ parts: [0.8, 0.5], measured: 0.3 })).toBe(0);
    expect(betaOf({ parts: [0.8, 0.5], measured: 0.6 })).toBe(1);
    expect(betaOf({ parts: [1, 0.5], measured: 0.45 })).toBeUndefined();
  });
});

describe('seriesCheck', () => {
  it('predicts each run with the median β of the others, never its own', () => {
    // fitted β per run: 0.5, 0.5, 1 → run 3 is predicted with β 0.5: 0.45 against a measured 0.5
    const c = seriesCheck([
      { parts: [0.8, 0.5], measured: 0.45 },
      { parts: [0.8, 0.5], measured: 0.45 },
      { parts: [0.8, 0.5], measured: 0.5 },
    ])!;
    expect(c.runs).toBe(3);
    expect(c.measured).toBeCloseTo(0.45, 12);
    expect(c.independent).toBeCloseTo(0.4, 12);
    expect(c.errorIndependent).toBeCloseTo(-0.05, 12);
    expect(c.beta).toBeCloseTo(0.5, 12);
    // runs 1 and 2 get the median of (0.5, 1) = 0.75: 0.475, error +0.025; run 3 gets 0.5: 0.45, error −0.05
    expect(c.withBeta).toBeCloseTo(0.475, 12);
    expect(c.errorWithBeta).toBeCloseTo(0.025, 12);
  });

  it('has no β prediction when no other run leaves room for one', () => {
    const c = seriesCheck([{ parts: [0.8, 0.5], measured: 0.45 }])!;
    expect(c.withBeta).toBeUndefined();
    expect(seriesCheck([])).toBeUndefined();
  });
});

const vector = (hops: Partial<Record<(typeof METRICS)[number], number>>): Value[] => METRICS.map((m) => hops[m] ?? (m === 'recoveryS' ? 0 : '-'));

describe('availabilityCheck', () => {
  it('composes A → B → C for every run that recorded its hops, and both classes where there is a second one', () => {
    const chain = { hopB: 0.8, hopC: 0.5, realBuckets: 0.45 };
    const file: SeedFile = {
      command: 'test',
      durationMs: 180_000,
      seeds: [1, 2],
      scenarios: ['hardOutage', 'avalanche'],
      rows: ['baseline'],
      metrics: METRICS,
      runs: {
        '1': { hardOutage: { baseline: vector(chain) }, avalanche: { baseline: vector({ ...chain, otherReal: 0.9, bothReal: 0.4 }) } },
        '2': { hardOutage: { baseline: vector(chain) }, avalanche: { baseline: vector({ ...chain, otherReal: 0.9, bothReal: 0.4 }) } },
      },
    };
    expect(samplesOf(file, 'avalanche', 'baseline', 'classes')).toEqual([
      { parts: [0.45, 0.9], measured: 0.4 },
      { parts: [0.45, 0.9], measured: 0.4 },
    ]);
    expect(samplesOf(file, 'hardOutage', 'baseline', 'classes')).toEqual([]);
    const lines = availabilityCheck(file);
    expect(lines.map((l) => `${l.chain} ${l.scenario}`)).toEqual(['chain hardOutage', 'chain avalanche', 'classes avalanche']);
    expect(lines[0]!.errorWithBeta).toBeCloseTo(0, 12);
    // 0.45 × 0.9 = 0.405 against 0.4
    expect(lines[2]!.errorIndependent).toBeCloseTo(0.005, 12);
    const text = availabilityCheckText(lines);
    expect(text).toContain(
      'against real answers at A: baseline (2 scenarios) median absolute error 5.0 pp with β = 0; on the 2 where a β can be fitted, 5.0 pp with β = 0 and 0.0 pp with β fitted on the other seeds (median β 0.50); every row (2 row × scenario cells)',
    );
    // the whole is below the product: β clamps to 0 and predicts no better than β = 0
    expect(text).toContain('second class: baseline (1 scenario) median absolute error 0.5 pp with β = 0; on the 1 where a β can be fitted, 0.5 pp with β = 0 and 0.5 pp');
  });
});
