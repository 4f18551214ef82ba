import { describe, expect, it } from 'vitest';
import { answersMs, familyMechanics, lastJobMs, sumQuantileMs } from '../../lab/recovery.js';
import { seededRandom } from '../../lib/testing.js';

/** The q-quantile of `n` draws of `draw()`. */
function sampled(draw: () => number, n: number, q: number): number {
  const xs = Float64Array.from({ length: n }, draw).sort();
  return xs[Math.floor(q * n)]!;
}

describe('lab/recovery.ts', () => {
  it('sumQuantileMs: one stage is an exponential (ln 10 means at 90 %), equal stages the Erlang quantile', () => {
    expect(sumQuantileMs([20])).toBeCloseTo(Math.log(10) * 20, 1);
    expect(sumQuantileMs([20, 20, 20])).toBeCloseTo(answersMs(3), 1);
    expect(sumQuantileMs([])).toBe(0);
  });

  it('sumQuantileMs: stages of different means agree with a sampled sum', () => {
    const random = seededRandom(7);
    const exp = (mean: number) => -mean * Math.log(1 - random());
    const means = [100, 20, 25, 20, 6.25, 20];
    const sample = sampled(() => means.reduce((t, m) => t + exp(m), 0), 200_000, 0.9);
    expect(Math.abs(sumQuantileMs(means) - sample) / sample).toBeLessThan(0.01);
  });

  it('lastJobMs: the 90th percentile of the longest of several exponential jobs', () => {
    expect(lastJobMs(1, 20)).toBeCloseTo(Math.log(10) * 20, 6);
    const random = seededRandom(3);
    const sample = sampled(() => Math.max(...Array.from({ length: 6 }, () => -1_000 * Math.log(1 - random()))), 200_000, 0.9);
    expect(Math.abs(lastJobMs(6, 1_000) - sample) / sample).toBeLessThan(0.01);
  });

  it("familyMechanics: the adaptive breaker's round is its ramp's gaps and answers at 90 %; its open period is in the round", () => {
    // 5 % of 200/s: a gap of 100 ms; ×4 per success: 25 ms, then 6.25 ms; each answered in 20 ms on average
    expect(familyMechanics('adaptive')).toEqual({ openMs: 0, probes: 3, probeRoundMs: sumQuantileMs([100, 20, 25, 20, 6.25, 20]) });
    expect(familyMechanics('circuit')).toEqual({ openMs: 5_000, probes: 1, probeRoundMs: answersMs(1) });
  });
});
