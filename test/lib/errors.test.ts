import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  ConfigError,
  IdempotencyInProgressError,
  IdempotencyKeyMissingError,
  isBrokenCircuitError,
  isBulkheadRejectedError,
  isConfigError,
  isIdempotencyInProgressError,
  isIdempotencyKeyMissingError,
  isRateLimitedError,
  isStoreUnavailableError,
  isTimeoutError,
  RateLimitedError,
  StoreUnavailableError,
  TimeoutError,
} from '../../api/index.js';
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

describe('lib/errors.ts: fields, codes, messages and brand guards', () => {
  it('each error carries its code, name, policy, default message and extra fields', () => {
    const cause = new Error('root');
    const cases: [Error & { code: string; policy: string }, string, string, string][] = [
      [new BrokenCircuitError('db', 250), 'BREAKER_OPEN', 'BrokenCircuitError', 'circuit breaker is open (db)'],
      [new TimeoutError('db'), 'TIMEOUT', 'TimeoutError', 'operation timed out (db)'],
      [new RateLimitedError('db', 40), 'RATE_LIMITED', 'RateLimitedError', 'rate limit exceeded (db); retry after 40 ms'],
      [new BulkheadRejectedError('db'), 'BULKHEAD_FULL', 'BulkheadRejectedError', 'bulkhead is full (db)'],
      [new OverloadedError('db'), 'OVERLOADED', 'OverloadedError', 'service overloaded, call shed (db)'],
      [new IdempotencyInProgressError('db', 'k1'), 'IDEMPOTENCY_IN_PROGRESS', 'IdempotencyInProgressError', 'operation for key "k1" is already in progress (db)'],
      [new IdempotencyKeyMissingError('db'), 'IDEMPOTENCY_KEY_MISSING', 'IdempotencyKeyMissingError', 'no idempotency key: pass { key } to execute or a key(ctx) option (db)'],
      [new StoreUnavailableError('db', 'redis down', { cause }), 'STORE_UNAVAILABLE', 'StoreUnavailableError', 'redis down'],
      [new ConfigError('retry', [{ path: 'maxAttempts', message: 'too low' }, { path: '', message: 'whole' }]), 'INVALID_CONFIG', 'ConfigError', 'invalid retry options: maxAttempts: too low; whole'],
    ];
    for (const [e, code, name, message] of cases) {
      expect({ code: e.code, name: e.name, message: e.message, policy: e.policy }).toEqual({ code, name, message, policy: code === 'INVALID_CONFIG' ? 'retry' : 'db' });
      expect(e).toBeInstanceOf(Error);
      expect(isResilienceError(e)).toBe(true);
    }
    expect(new BrokenCircuitError('db', 250).retryAfterMs).toBe(250);
    expect(new BrokenCircuitError('db').retryAfterMs).toBeUndefined();
    expect(new BrokenCircuitError('db', 1, 'custom').message).toBe('custom');
    expect(new RateLimitedError('db', 40).retryAfterMs).toBe(40);
    expect(new IdempotencyInProgressError('db', 'k1').key).toBe('k1');
    expect(new StoreUnavailableError('db', 'x', { cause }).cause).toBe(cause);
    expect(new TimeoutError('db', 'slow', { cause }).cause).toBe(cause);
    expect('cause' in new TimeoutError('db')).toBe(false);
    expect('cause' in new TimeoutError('db', 'slow', {})).toBe(false);
    expect(new StoreUnavailableError('db', 'x', { cause: undefined })).toHaveProperty('cause', undefined);
    expect(new ConfigError('retry', []).issues).toEqual([]);
  });

  it('the guards read the brand, so they accept errors from another copy and nothing else', () => {
    const brand = Symbol.for('breakwater.error');
    const foreign = (code: string) => ({ [brand]: code });
    const guards: [(v: unknown) => boolean, string][] = [
      [isBrokenCircuitError, 'BREAKER_OPEN'],
      [isTimeoutError, 'TIMEOUT'],
      [isRateLimitedError, 'RATE_LIMITED'],
      [isBulkheadRejectedError, 'BULKHEAD_FULL'],
      [isOverloadedError, 'OVERLOADED'],
      [isIdempotencyInProgressError, 'IDEMPOTENCY_IN_PROGRESS'],
      [isIdempotencyKeyMissingError, 'IDEMPOTENCY_KEY_MISSING'],
      [isStoreUnavailableError, 'STORE_UNAVAILABLE'],
      [isConfigError, 'INVALID_CONFIG'],
    ];
    for (const [guard, code] of guards) {
      expect(guard(foreign(code)), code).toBe(true);
      for (const [, other] of guards) if (other !== code) expect(guard(foreign(other)), `${code} vs ${other}`).toBe(false);
      expect(guard(null)).toBe(false);
      expect(guard(code)).toBe(false);
      expect(guard(new Error(code))).toBe(false);
    }
    // a function carrying the brand is not an error of ours
    const fn = Object.assign(() => undefined, { [brand]: 'TIMEOUT' });
    expect(isTimeoutError(fn)).toBe(false);
    expect(isResilienceError(fn)).toBe(false);
    expect(isShedRejection(Object.assign(() => undefined, { [brand]: 'BREAKER_OPEN' }))).toBe(false);
    expect(isResilienceError(foreign('ANYTHING'))).toBe(true);
    expect(isResilienceError({ [brand]: 1 })).toBe(false);
    expect(isResilienceError(null)).toBe(false);
    expect(isResilienceError('TIMEOUT')).toBe(false);
    expect(isResilienceError(new Error('x'))).toBe(false);
  });

  it('isShedRejection is true exactly for the five load-shedding codes', () => {
    const brand = Symbol.for('breakwater.error');
    for (const code of ['BREAKER_OPEN', 'RATE_LIMITED', 'BULKHEAD_FULL', 'OVERLOADED', 'IDEMPOTENCY_IN_PROGRESS']) expect(isShedRejection({ [brand]: code }), code).toBe(true);
    for (const code of ['TIMEOUT', 'IDEMPOTENCY_KEY_MISSING', 'STORE_UNAVAILABLE', 'INVALID_CONFIG', undefined]) expect(isShedRejection({ [brand]: code }), String(code)).toBe(false);
    expect(isShedRejection(null)).toBe(false);
    expect(isShedRejection('BREAKER_OPEN')).toBe(false);
  });
});
