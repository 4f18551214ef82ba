import { describe, expect, it } from 'vitest';
import type { Figures } from '../../lab/figures.js';
import { rtoCheck, rtoCheckLine } from '../../lab/rto-check.js';

const cell = (recoveryS: number | null, rtoMaxS: number | null | undefined): { figures: Figures } => ({
  figures: {
    answered: 1,
    realSuccess: 1,
    realSuccessDuringFault: 1,
    realSuccessAfterFault: 1,
    p50Ms: 1,
    p99Ms: 1,
    p99RealMs: 1,
    amplification: 1,
    peakInFlight: 1,
    recoveryS,
    breakerOpenInFault: 0,
    ...(rtoMaxS === undefined
      ? {}
      : { rto: { rtoMaxS, state: 'open' as const, openElapsedMs: 0, backlog: 0, recoveryRate: 1, asPublishedS: null, errorLatencyMs: null } }),
  },
});

describe('rtoCheck', () => {
  it('counts the cells where the bound holds, skips rows without one, and takes the median overestimate', () => {
    const check = rtoCheck([
      cell(1, 1.9), // holds; (2.0)/(1.1)
      cell(0, 0.1), // holds; 0.2/0.1 = 2
      cell(2, 1), // fails; 1.1/2.1
      cell(0.3, 0.2), // holds within the 0.1 s step; 0.3/0.4
      cell(null, null), // ∞ against ∞: holds, no ratio
      cell(null, 5), // fails: never recovered within the run
      cell(3, undefined), // not a breaker row
    ]);
    expect(check.cells).toBe(6);
    expect(check.holds).toBe(4);
    expect(check.holdShare).toBeCloseTo(4 / 6, 12);
    // ratios 0.524, 0.75, 1.818, 2: median (0.75 + 1.818) / 2
    expect(check.medianOverestimate).toBeCloseTo((0.75 + 2 / 1.1) / 2, 12);
    // (0.9 + 0.1 − 1 − 0.1) / 4
    expect(check.meanErrorS).toBeCloseTo(-0.025, 12);
    expect(check.passes).toBe(false);
    expect(rtoCheckLine(check)).toBe(
      'rtoMax against the measured recovery (breaker rows): holds in 4 of 6 cells (66.7 %; claim ≥ 90.0 %), median overestimate 1.28× (claim ≤ 2×), mean error +0.0 s: FAIL',
    );
  });

  it('passes at ≥ 90 % held and a median overestimate ≤ 2×, and fails on either alone', () => {
    const tight = Array.from({ length: 9 }, () => cell(1, 1.5));
    expect(rtoCheck([...tight, cell(1, 0.5)]).passes).toBe(true); // 9 of 10
    expect(rtoCheck([...tight, cell(1, 0.5), cell(1, 0.5)]).passes).toBe(false); // 9 of 11
    expect(rtoCheck([...tight, cell(1, 0.5), cell(1, 0.9)]).passes).toBe(true); // 10 of 11: 0.9 is within the step
    expect(rtoCheck(Array.from({ length: 4 }, () => cell(1, 2.3))).passes).toBe(false); // 2.4 / 1.1 > 2
    expect(rtoCheck([]).passes).toBe(true);
    expect(rtoCheck([]).medianOverestimate).toBeNull();
  });
});
