import { describe, expect, it } from 'vitest';
import { riskScore } from '../../lib/risk.js';

describe('riskScore', () => {
  it('weighs the load (capped at the base rate), the error rate and the probes distrust', () => {
    expect(riskScore(0.3, 0.5, 0.2, 10, 10, 0.4, 1)).toBeCloseTo(0.5); // full load, 40 % errors, probes trusted
    expect(riskScore(0.3, 0.5, 0.2, 50, 10, 0.4, 1)).toBeCloseTo(0.5); // above the base rate the load term stays 0.3
    expect(riskScore(0.3, 0.5, 0.2, 5, 10, 0, 1)).toBeCloseTo(0.15); // half load alone
    expect(riskScore(0.3, 0.5, 0.2, 0, 10, 0, 0)).toBeCloseTo(0.2); // every probe failed
    expect(riskScore(0.3, 0.5, 0.2, -3, 10, 0, 1)).toBe(0); // a negative rate counts as none
  });
});
