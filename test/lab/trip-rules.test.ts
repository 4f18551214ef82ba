import { describe, expect, it } from 'vitest';
import { formulaTripMs, TRIP_RULES, tripRuleOf, windowErrorRate, type TripRule } from '../../lab/trip-rules.js';

const rule = (trip: TripRule['trip']): TripRule => ({ trip, threshold: 0.5, baseRps: 100, windowMs: 10_000, buckets: 10, minRequests: 20 });

// 100 calls a second; from second 5 on, `errors` of them fail each second
const run = (errors: number[]): { total: number[]; failed: number[] } => ({ total: Array.from({ length: 20 }, () => 100), failed: Array.from({ length: 20 }, (_, i) => (i < 5 ? 0 : errors[i - 5] ?? errors[errors.length - 1]!)) });

describe('formulaTripMs', () => {
  it('trips the dynamic rule once the window’s risk score reaches the threshold: 40 % errors at full load', () => {
    // window of 10 s at 100/s: full load (0.3); errors over the last 10 s: 80 per second from second 5 →
    // after second k (k ≥ 5) the window holds 80 × (k − 4) failures of 1,000: 0.3 + 0.5 × 0.08 (k − 4) ≥ 0.5 at k = 9
    const { total, failed } = run([80]);
    expect(formulaTripMs(total, failed, rule('dynamicThreshold'), 0, 20_000)).toBe(9_000);
    // the error ratio needs 50 %: 0.08 (k − 4) ≥ 0.5 at k = 11 (0.56)
    expect(formulaTripMs(total, failed, rule('errorRatio'), 0, 20_000)).toBe(11_000);
  });

  it('does not trip the dynamic rule at half load on the same errors, nor without errors, nor under minRequests', () => {
    const half = { total: Array.from({ length: 20 }, () => 50), failed: Array.from({ length: 20 }, (_, i) => (i < 5 ? 0 : 20)) };
    // 0.15 + 0.5 × 0.4 = 0.35 at most
    expect(formulaTripMs(half.total, half.failed, rule('dynamicThreshold'), 0, 20_000)).toBeUndefined();
    expect(formulaTripMs(Array(20).fill(100), Array(20).fill(0), rule('dynamicThreshold'), 0, 20_000)).toBeUndefined();
    // 2 calls a second, all failing: the window holds its 20 calls at second 9, never 21
    expect(formulaTripMs(Array(20).fill(2), Array(20).fill(2), rule('errorRatio'), 0, 20_000)).toBe(9_000);
    expect(formulaTripMs(Array(20).fill(2), Array(20).fill(2), { ...rule('errorRatio'), minRequests: 21 }, 0, 20_000)).toBeUndefined();
  });

  it('starts looking at fromMs', () => {
    const { total, failed } = run([100]);
    expect(formulaTripMs(total, failed, rule('errorRatio'), 0, 20_000)).toBe(9_000);
    expect(formulaTripMs(total, failed, rule('errorRatio'), 12_000, 20_000)).toBe(12_000);
  });
});

describe('tripRuleOf', () => {
  it('names the check rows’ rules and nothing else', () => {
    expect(tripRuleOf('dynamicBreaker')).toBe(TRIP_RULES.dynamicBreaker);
    expect(tripRuleOf('ratioBreaker')?.trip).toBe('errorRatio');
    expect(tripRuleOf('standard')).toBeUndefined();
    expect(tripRuleOf('toString')).toBeUndefined();
  });
});

describe('windowErrorRate', () => {
  it('is the error rate of the rule’s window at the end of the bucket holding the moment', () => {
    const { total, failed } = run([80]);
    // at 9.5 s the window holds seconds 0–9: 400 failures of 1,000
    expect(windowErrorRate(total, failed, rule('dynamicThreshold'), 9_500)).toBeCloseTo(0.4, 12);
    expect(windowErrorRate([0, 0], [0, 0], rule('errorRatio'), 1_000)).toBe(0);
  });
});
