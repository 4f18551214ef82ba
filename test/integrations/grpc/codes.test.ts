import { status } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { ConcurrencyLimitedError, OverloadedError } from '../../../lib/errors.js';
import { isFailureCode, LIMIT_DETAILS, SHED_DETAILS, shedDetails } from '../../../integrations/grpc/codes.js';

describe('isFailureCode', () => {
  it("follows go-zero's list", () => {
    const failures = Object.entries(status)
      .filter(([, v]) => typeof v === 'number' && isFailureCode(v))
      .map(([k]) => k)
      .sort();
    expect(failures).toEqual(['DATA_LOSS', 'DEADLINE_EXCEEDED', 'INTERNAL', 'RESOURCE_EXHAUSTED', 'UNAVAILABLE', 'UNIMPLEMENTED']);
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
