import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimitedError, OverloadedError } from '../../../lib/errors.js';
import { FAILURE_CODES, isFailureCode, LIMIT_DETAILS, SHED_DETAILS, shedDetails } from '../../../integrations/grpc/codes.js';

describe('gRPC failure codes', () => {
  it('counts exactly DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE and DATA_LOSS as failures', () => {
    const failures = ['DEADLINE_EXCEEDED', 'RESOURCE_EXHAUSTED', 'UNIMPLEMENTED', 'INTERNAL', 'UNAVAILABLE', 'DATA_LOSS'];
    for (const [name, code] of Object.entries(status)) {
      if (typeof code !== 'number') continue;
      expect([name, isFailureCode(code)]).toEqual([name, failures.includes(name)]);
    }
    expect(FAILURE_CODES.size).toBe(6);
  });

  it('the caller-side codes (OK, NOT_FOUND, INVALID_ARGUMENT, UNKNOWN) are not failures', () => {
    for (const code of [status.OK, status.NOT_FOUND, status.INVALID_ARGUMENT, status.UNKNOWN]) expect(isFailureCode(code)).toBe(false);
  });
});

describe('shedDetails', () => {
  it('names a concurrency limit for a ConcurrencyLimitedError, an open breaker for anything else', () => {
    expect(shedDetails(new ConcurrencyLimitedError('users', 12))).toBe('concurrency limit reached');
    expect(LIMIT_DETAILS).toBe('concurrency limit reached');
    expect(shedDetails(new OverloadedError('shedder'))).toBe('circuit breaker is open');
    expect(shedDetails(new Error('x'))).toBe(SHED_DETAILS);
    expect(SHED_DETAILS).toBe('circuit breaker is open');
  });
});
