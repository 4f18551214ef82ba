import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  ConcurrencyLimitedError,
  OverloadedError,
  RateLimitedError,
  TimeoutError,
} from '../../../lib/errors.js';
import { isPermitSource, KeyedSources, shedAnswer, type PermitSource } from '../../../integrations/shared/permit.js';

describe('shedAnswer', () => {
  it('a rate limit is 429, every other shedding rejection 503', () => {
    expect(shedAnswer(new RateLimitedError('api', 2_500), 1_000)).toEqual({ status: 429, retryAfterSeconds: 3 });
    expect(shedAnswer(new BulkheadRejectedError('pool'), 1_000)).toEqual({ status: 503, retryAfterSeconds: 1 });
    expect(shedAnswer(new OverloadedError('shed'), 2_000)).toEqual({ status: 503, retryAfterSeconds: 2 });
    expect(shedAnswer(new ConcurrencyLimitedError('lim', 10, 40), 5_000)).toEqual({ status: 503, retryAfterSeconds: 1 });
  });

  it('Retry-After is the rejection’s own wait rounded up to seconds, else the default, never below 1 s', () => {
    expect(shedAnswer(new RateLimitedError('api', 1_000), 9_000)?.retryAfterSeconds).toBe(1);
    expect(shedAnswer(new RateLimitedError('api', 1_001), 9_000)?.retryAfterSeconds).toBe(2);
    expect(shedAnswer(new RateLimitedError('api', 0), 9_000)?.retryAfterSeconds).toBe(1);
    // no wait of its own: the default, rounded up
    expect(shedAnswer(new BulkheadRejectedError('pool'), 4_500)?.retryAfterSeconds).toBe(5);
    expect(shedAnswer(new BulkheadRejectedError('pool'), 0)?.retryAfterSeconds).toBe(1);
  });

  it('an unusable wait of its own falls back to the default', () => {
    const weird = Object.assign(new BulkheadRejectedError('pool'), { retryAfterMs: Number.NaN });
    expect(shedAnswer(weird, 3_000)?.retryAfterSeconds).toBe(3);
    const negative = Object.assign(new BulkheadRejectedError('pool'), { retryAfterMs: -5 });
    expect(shedAnswer(negative, 3_000)?.retryAfterSeconds).toBe(3);
  });

  it('anything that is not a shedding rejection has no answer: it is a bug to rethrow', () => {
    expect(shedAnswer(new Error('boom'), 1_000)).toBeUndefined();
    expect(shedAnswer(new TimeoutError('t'), 1_000)).toBeUndefined();
    expect(shedAnswer({ retryAfterMs: 100 }, 1_000)).toBeUndefined();
    expect(shedAnswer(undefined, 1_000)).toBeUndefined();
  });

  it('a breaker’s rejection is a 503', () => {
    expect(shedAnswer(new BrokenCircuitError('db'), 1_000)?.status).toBe(503);
  });
});

describe('isPermitSource', () => {
  it('is true for an object with an allow method', () => {
    expect(isPermitSource({ name: 'x', allow: () => ({}) })).toBe(true);
    expect(isPermitSource({ allow: () => ({}) })).toBe(true);
    for (const v of [{ allow: 1 }, {}, null, undefined, () => ({}), 'allow']) expect(isPermitSource(v)).toBe(false);
  });
});

describe('KeyedSources', () => {
  const source = (key: string): PermitSource & { key: string } => ({ key, name: key, allow: () => ({ success() {}, failure() {}, release() {} }) });

  it('makes one source per key, on first use, and keeps it', () => {
    const made: string[] = [];
    const sources = new KeyedSources((key) => (made.push(key), source(key)), 10);
    const a = sources.get('GET://a');
    expect(sources.get('GET://a')).toBe(a);
    sources.get('GET://b');
    expect(made).toEqual(['GET://a', 'GET://b']);
    expect(sources.size).toBe(2);
  });

  it('past maxKeys, further keys share the overflow key’s source, made once', () => {
    const made: string[] = [];
    const sources = new KeyedSources((key) => (made.push(key), source(key)), 2);
    sources.get('a');
    sources.get('b');
    const c = sources.get('c');
    expect(c.key).toBe('*');
    expect(sources.get('d')).toBe(c);
    expect(sources.get('a').key).toBe('a');
    expect(made).toEqual(['a', 'b', '*']);
    expect(sources.size).toBe(3);
  });

  it('takes another overflow key, and an overflow key already in use is shared', () => {
    const sources = new KeyedSources(source, 1, 'other');
    const other = sources.get('other');
    expect(sources.get('x')).toBe(other);
    expect(sources.size).toBe(1);
  });
});
