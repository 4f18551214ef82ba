import { describe, expect, it } from 'vitest';
import { EPSILON, isRateAlgorithm, retryAfter } from '../../../policies/rate-limiter/algorithm.js';
import { leakyBucket } from '../../../policies/rate-limiter/leaky-bucket.js';
import { slidingWindow } from '../../../policies/rate-limiter/sliding-window.js';
import { tokenBucket } from '../../../policies/rate-limiter/token-bucket.js';

describe('isRateAlgorithm', () => {
  it('is true for the built-in algorithms and any object with a string kind and an acquire function', () => {
    expect(isRateAlgorithm(tokenBucket({ rate: 1 }))).toBe(true);
    expect(isRateAlgorithm(leakyBucket({ rate: 1 }))).toBe(true);
    expect(isRateAlgorithm(slidingWindow({ limit: 1, windowMs: 1_000 }))).toBe(true);
    expect(isRateAlgorithm({ kind: 'mine', acquire: () => 0 })).toBe(true);
  });

  it('is false for data, for an acquire that is not a function, a kind that is not a string, and non-objects', () => {
    expect(isRateAlgorithm({ kind: 'tokenBucket', rate: 1 })).toBe(false);
    expect(isRateAlgorithm({ kind: 'mine', acquire: 0 })).toBe(false);
    expect(isRateAlgorithm({ kind: 1, acquire: () => 0 })).toBe(false);
    expect(isRateAlgorithm({ acquire: () => 0 })).toBe(false);
    expect(isRateAlgorithm(null)).toBe(false);
    expect(isRateAlgorithm(undefined)).toBe(false);
    expect(isRateAlgorithm(() => 0)).toBe(false);
  });
});

describe('retryAfter', () => {
  it('rounds a wait up to whole milliseconds', () => {
    expect(retryAfter(1.2)).toBe(2);
    expect(retryAfter(2)).toBe(2);
    expect(retryAfter(399.5)).toBe(400);
  });

  it('never asks for less than 1 ms: a refusal always means some wait', () => {
    expect(retryAfter(1)).toBe(1);
    expect(retryAfter(0.01)).toBe(1);
    expect(retryAfter(0)).toBe(1);
    expect(retryAfter(-5)).toBe(1);
  });

  it('ignores float noise just above a whole number', () => {
    expect(retryAfter(400 + 1e-9)).toBe(400);
    expect(retryAfter((0.1 + 0.2) * 1_000)).toBe(300);
    // but a real fraction is rounded up
    expect(retryAfter(400.001)).toBe(401);
  });
});

describe('EPSILON', () => {
  it('absorbs the float noise of token arithmetic and nothing a caller could mean', () => {
    expect(Math.abs(0.1 + 0.2 - 0.3)).toBeLessThan(EPSILON);
    expect(EPSILON).toBeLessThan(1e-6);
    expect(EPSILON).toBeGreaterThan(0);
  });
});
