import { describe, expect, it } from 'vitest';
import {
  ConcurrencyLimitedError,
  isConcurrencyLimitedError,
  isOverloadedError,
  isResilienceError,
  isShedRejection,
  OverloadedError,
  ResilienceError,
} from '../../lib/errors.js';

describe('ConcurrencyLimitedError', () => {
  it('has its own code, the limit, a retry hint when known, and a message naming the policy', () => {
    const e = new ConcurrencyLimitedError('users', 12, 40);
    expect(e).toBeInstanceOf(ResilienceError);
    expect(e).toMatchObject({ code: 'CONCURRENCY_LIMITED', name: 'ConcurrencyLimitedError', policy: 'users', limit: 12, retryAfterMs: 40 });
    expect(e.message).toBe('concurrency limit of 12 reached (users)');
    expect(new ConcurrencyLimitedError('users', 12).retryAfterMs).toBeUndefined();
  });

  it('is recognised by its brand, also from another copy of the package, and by no other guard', () => {
    const brand = Symbol.for('breakwater.error');
    const foreign = { [brand]: 'CONCURRENCY_LIMITED' };
    expect(isConcurrencyLimitedError(new ConcurrencyLimitedError('l', 1))).toBe(true);
    expect(isConcurrencyLimitedError(foreign)).toBe(true);
    expect(isConcurrencyLimitedError(new OverloadedError('s'))).toBe(false);
    expect(isOverloadedError(new ConcurrencyLimitedError('l', 1))).toBe(false);
    expect(isResilienceError(new ConcurrencyLimitedError('l', 1))).toBe(true);
  });

  it('is a shed rejection: never retried, never counted by a breaker, answered by a fallback', () => {
    expect(isShedRejection(new ConcurrencyLimitedError('l', 1))).toBe(true);
    expect(isShedRejection({ [Symbol.for('breakwater.error')]: 'CONCURRENCY_LIMITED' })).toBe(true);
  });
});
