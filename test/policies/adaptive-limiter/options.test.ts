import { describe, expect, it } from 'vitest';
import { adaptiveLimiter } from '../../../api/index.js';
import { checkOptions } from '../../../lib/options.js';
import { adaptiveLimiterOptions, limitAlgorithm, limitProblems } from '../../../policies/adaptive-limiter/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

describe('adaptiveLimiter options', () => {
  const issues = (o: unknown) => issuesOf(() => adaptiveLimiter(o as never));

  it('names the option and the rule it breaks', () => {
    expect(issues({ initialLimit: 0 })).toEqual([{ path: 'initialLimit', message: 'expected an integer >= 1' }]);
    expect(issues({ initialLimit: 300 })).toEqual([{ path: 'initialLimit', message: 'must be between minLimit (1) and maxLimit (200)' }]);
    expect(issues({ minLimit: 50, maxLimit: 10, initialLimit: 20 })).toEqual([{ path: 'minLimit', message: 'must be <= maxLimit (10)' }]);
    expect(issues({ windowMs: 2_000 })).toEqual([{ path: 'windowMs', message: 'must be <= maxWindowMs (1000)' }]);
    expect(issues({ algorithm: 'bbr' })).toEqual([{ path: 'algorithm', message: "expected 'gradient', 'aimd', 'vegas' or an object with kind" }]);
    expect(issues({ algorithm: { kind: 'gradient', tolerance: 0.5 } })).toEqual([{ path: 'algorithm.tolerance', message: 'expected a finite number >= 1' }]);
    expect(issues({ algorithm: { kind: 'aimd', backoffRatio: 0.3 } })).toEqual([{ path: 'algorithm.backoffRatio', message: 'expected a number in [0.5, 1)' }]);
    expect(issues({ algorithm: { kind: 'vegas', alpha: 6, beta: 3 } })).toEqual([{ path: 'algorithm.beta', message: 'beta must exceed alpha' }]);
    expect(issues({ algorithm: { kind: 'aimd', tolerance: 2 } })).toEqual([{ path: 'algorithm.tolerance', message: 'unknown option' }]);
    expect(issues({ isOverload: 'yes' })).toEqual([{ path: 'isOverload', message: 'expected a function' }]);
    expect(issues({ limit: 5 })).toEqual([{ path: 'limit', message: 'unknown option' }]);
    expect(issues({ minLimit: 5, initialLimit: 2 })).toEqual([{ path: 'initialLimit', message: 'must be between minLimit (5) and maxLimit (200)' }]);
    expect(issues({ algorithm: { kind: 'bbr' } })).toEqual([{ path: 'algorithm.kind', message: "expected kind 'gradient', 'aimd' or 'vegas'" }]);
    expect(issues({ algorithm: { kind: 'vegas', alpha: 4, beta: 4 } })).toEqual([{ path: 'algorithm.beta', message: 'beta must exceed alpha' }]);
    expect(() => adaptiveLimiter({ initialLimit: 0 })).toThrow('invalid adaptiveLimiter options: initialLimit: expected an integer >= 1');
  });

  it('takes each bound itself: equal limits, a window as long as its maximum, backoffRatio 0.5', () => {
    expect(adaptiveLimiter({ minLimit: 7, maxLimit: 7, initialLimit: 7 }).limit).toBe(7);
    expect(adaptiveLimiter({ windowMs: 500, maxWindowMs: 500 }).limit).toBe(20);
    expect(adaptiveLimiter({ algorithm: { kind: 'gradient', backoffRatio: 0.5 } }).limit).toBe(20);
    expect(adaptiveLimiter({ algorithm: { kind: 'aimd', backoffRatio: 0.5 } }).limit).toBe(20);
  });

  it('takes an algorithm by name or as an object, each with its defaults', () => {
    for (const algorithm of ['gradient', 'aimd', 'vegas', { kind: 'gradient', tolerance: 2 }, { kind: 'aimd' }, { kind: 'vegas', alpha: 2, beta: 4 }] as const) {
      expect(adaptiveLimiter({ algorithm }).limit).toBe(20);
    }
    expect(adaptiveLimiter({ algorithm: 'aimd' }).stats().baselineMs).toBeUndefined();
  });
});

describe('adaptiveLimiterOptions', () => {
  const check = (input: unknown) => checkOptions(adaptiveLimiterOptions, input, 'adaptiveLimiter');

  it('accepts nothing: Gradient2 with its defaults, limits 1..200 from 20, 100 ms windows up to 1 s of 10 samples', () => {
    expect(check({})).toEqual({
      algorithm: { kind: 'gradient', tolerance: 1.5, smoothing: 0.2, queueSize: 4, backoffRatio: 0.9, baselineWindows: 600 },
      initialLimit: 20,
      minLimit: 1,
      maxLimit: 200,
      windowMs: 100,
      maxWindowMs: 1_000,
      minSamples: 10,
      reserve: { default: 0, sheddable: 0.1 },
      partitionBy: 'criticality',
      name: 'adaptiveLimiter',
    });
  });

  it('cross-field rules wait until every key passed: one mistake is not reported twice', () => {
    expect(issuesOf(() => check({ minLimit: 0, initialLimit: 20 }))).toEqual([{ path: 'minLimit', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => check({ windowMs: 0, maxWindowMs: -1 }))).toEqual([
      { path: 'windowMs', message: 'expected a number greater than 0' },
      { path: 'maxWindowMs', message: 'expected a number greater than 0' },
    ]);
  });
});

describe('limitAlgorithm', () => {
  const check = (input: unknown) => checkOptions(limitAlgorithm, input, 'adaptiveLimiter');

  it('a name alone gives the algorithm with every default', () => {
    expect(check('aimd')).toEqual({ kind: 'aimd', backoffRatio: 0.9, increase: 1 });
    expect(check('vegas')).toEqual({ kind: 'vegas', alpha: 3, beta: 6 });
    expect(check({ kind: 'aimd', slowMs: 250 })).toEqual({ kind: 'aimd', backoffRatio: 0.9, increase: 1, slowMs: 250 });
  });

  it('names each algorithm’s own ranges', () => {
    expect(issuesOf(() => check({ kind: 'gradient', smoothing: 0 }))).toEqual([{ path: 'smoothing', message: 'expected a number in (0, 1]' }]);
    expect(issuesOf(() => check({ kind: 'gradient', backoffRatio: 1 }))).toEqual([{ path: 'backoffRatio', message: 'expected a number in [0.5, 1)' }]);
    expect(issuesOf(() => check({ kind: 'gradient', baselineWindows: 0 }))).toEqual([{ path: 'baselineWindows', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => check({ kind: 'aimd', increase: 0 }))).toEqual([{ path: 'increase', message: 'expected a finite number > 0' }]);
    expect(issuesOf(() => check({ kind: 'aimd', slowMs: 0 }))).toEqual([{ path: 'slowMs', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => check(42))).toEqual([{ path: '', message: "expected 'gradient', 'aimd', 'vegas' or an object with kind" }]);
  });
});

describe('limitProblems', () => {
  it('orders the limits (minLimit first, then initialLimit) and the window bounds', () => {
    const ok = { initialLimit: 20, minLimit: 1, maxLimit: 200, windowMs: 100, maxWindowMs: 1_000 };
    expect(limitProblems(ok)).toEqual([]);
    // with minLimit above maxLimit, where initialLimit lies says nothing more
    expect(limitProblems({ ...ok, minLimit: 300 })).toEqual([{ key: 'minLimit', message: 'must be <= maxLimit (200)' }]);
    expect(limitProblems({ ...ok, initialLimit: 0, windowMs: 2_000 })).toEqual([
      { key: 'initialLimit', message: 'must be between minLimit (1) and maxLimit (200)' },
      { key: 'windowMs', message: 'must be <= maxWindowMs (1000)' },
    ]);
  });
});
