import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { rateAlgorithmConfig, rateLimiterOptions } from '../../../policies/rate-limiter/options.js';
import { tokenBucket } from '../../../policies/rate-limiter/token-bucket.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(rateLimiterOptions, input, 'rateLimiter');
const EXPECTED =
  "expected a rate algorithm (tokenBucket(...), leakyBucket(...), slidingWindow(...), redisTokenBucket(...)) or one as data ({ kind: 'tokenBucket' | 'leakyBucket' | 'slidingWindow', ... })";

describe('rateAlgorithmConfig', () => {
  const data = (input: unknown) => checkOptions(rateAlgorithmConfig, input, 'rateLimiter');

  it('accepts each algorithm as data; a sliding window gets 100 buckets by default', () => {
    expect(data({ kind: 'tokenBucket', rate: 100, burst: 20 })).toEqual({ kind: 'tokenBucket', rate: 100, burst: 20 });
    expect(data({ kind: 'tokenBucket', rate: 0.5 })).toEqual({ kind: 'tokenBucket', rate: 0.5 });
    expect(data({ kind: 'leakyBucket', rate: 10, capacity: 0 })).toEqual({ kind: 'leakyBucket', rate: 10, capacity: 0 });
    expect(data({ kind: 'slidingWindow', limit: 5, windowMs: 1_000 })).toEqual({ kind: 'slidingWindow', limit: 5, windowMs: 1_000, buckets: 100 });
  });

  it('an unknown kind, or no object at all, is answered with the list of what is expected', () => {
    expect(issuesOf(() => data({ kind: 'fixedWindow', limit: 5 }))).toEqual([{ path: 'kind', message: EXPECTED }]);
    expect(issuesOf(() => data({ rate: 5 }))).toEqual([{ path: 'kind', message: EXPECTED }]);
    expect(issuesOf(() => data('tokenBucket'))).toEqual([{ path: '', message: EXPECTED }]);
  });

  it('each field is checked by its own algorithm’s rule, and a field of another algorithm is unknown', () => {
    expect(issuesOf(() => data({ kind: 'tokenBucket', rate: 0 }))).toEqual([{ path: 'rate', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => data({ kind: 'tokenBucket' }))).toEqual([{ path: 'rate', message: 'expected a number per second' }]);
    expect(issuesOf(() => data({ kind: 'tokenBucket', rate: 1, burst: 0 }))).toEqual([{ path: 'burst', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => data({ kind: 'leakyBucket', rate: 1, capacity: 1.5 }))).toEqual([{ path: 'capacity', message: 'expected an integer >= 0' }]);
    expect(issuesOf(() => data({ kind: 'slidingWindow', limit: 0, windowMs: 0, buckets: 10_001 }))).toEqual([
      { path: 'limit', message: 'expected an integer in [1, 9007199254740991]' },
      { path: 'windowMs', message: 'expected a number greater than 0' },
      { path: 'buckets', message: 'expected an integer in [1, 10000]' },
    ]);
    expect(issuesOf(() => data({ kind: 'tokenBucket', rate: 1, capacity: 3 }))).toEqual([{ path: 'capacity', message: 'unknown option' }]);
  });
});

describe('rateLimiterOptions', () => {
  it('takes an algorithm as data or as an instance; named rateLimiter by default', () => {
    expect(check({ algorithm: { kind: 'tokenBucket', rate: 1 } })).toEqual({ algorithm: { kind: 'tokenBucket', rate: 1 }, reserve: { default: 0, sheddable: 0.1 }, name: 'rateLimiter' });
    const instance = tokenBucket({ rate: 5 });
    const clock = new TestClock();
    const out = check({ algorithm: instance, name: 'api', clock });
    expect(out.algorithm).toBe(instance);
    expect(out).toMatchObject({ name: 'api', clock });
    const own = { kind: 'everyOther', acquire: () => 0 };
    expect(check({ algorithm: own }).algorithm).toBe(own);
  });

  it('names the algorithm’s own field when its data is wrong, and algorithm itself when it is missing or not one', () => {
    expect(issuesOf(() => check({}))).toEqual([{ path: 'algorithm', message: EXPECTED }]);
    expect(issuesOf(() => check({ algorithm: { kind: 'custom', acquire: 1 } }))).toEqual([{ path: 'algorithm.kind', message: EXPECTED }]);
    expect(issuesOf(() => check({ algorithm: { kind: 'tokenBucket', rate: -1 } }))).toEqual([{ path: 'algorithm.rate', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => check({ algorithm: { kind: 'leakyBucket', rate: 'fast' } }))).toEqual([{ path: 'algorithm.rate', message: 'expected a number per second' }]);
  });

  it('refuses unknown keys and a bad name', () => {
    expect(issuesOf(() => check({ algorithm: { kind: 'tokenBucket', rate: 1 }, rate: 1, name: '' }))).toEqual([
      { path: 'name', message: 'expected a non-empty string' },
      { path: 'rate', message: 'unknown option' },
    ]);
  });
});
