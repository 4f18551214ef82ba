import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../../lib/schemas.js';
import { HttpGuardOptionsSchema } from '../../../integrations/http/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => parseOptions(HttpGuardOptionsSchema, input, 'protectHandler');
const source = { name: 's', allow: () => ({ success() {}, failure() {}, release() {} }) };
const sourceFor = () => source;

describe('HttpGuardOptionsSchema', () => {
  it('one source or one sourceFor: 1,000 route keys at most, Retry-After 1 s when the rejection has none, 504 for an expired request', () => {
    expect(check({ source })).toEqual({ source, maxKeys: 1_000, retryAfterMs: 1_000, expiredStatus: 504 });
    expect(check({ sourceFor })).toEqual({ sourceFor, maxKeys: 1_000, retryAfterMs: 1_000, expiredStatus: 504 });
  });

  it('accepts every option in its documented form', () => {
    const isFailure = () => false;
    const onError = () => {};
    const trustCriticality = () => true;
    const all = { sourceFor, maxKeys: 1, isFailure, retryAfterMs: 0, onError, maxDeadlineMs: 5_000, expiredStatus: 503, trustCriticality };
    expect(check(all)).toEqual(all);
  });

  it('exactly one of source and sourceFor, named at source', () => {
    const message = 'give exactly one of source and sourceFor';
    expect(issuesOf(() => check({}))).toEqual([{ path: 'source', message }]);
    expect(issuesOf(() => check({ source, sourceFor }))).toEqual([{ path: 'source', message }]);
  });

  it('source has allow(); sourceFor, isFailure and onError are functions', () => {
    expect(issuesOf(() => check({ source: { name: 'x' } }))).toEqual([{ path: 'source', message: 'expected a permit source (an object with allow())' }]);
    expect(issuesOf(() => check({ sourceFor: source }))).toEqual([{ path: 'sourceFor', message: 'expected a function' }]);
    expect(issuesOf(() => check({ source, isFailure: 500 }))).toEqual([{ path: 'isFailure', message: 'expected a function' }]);
    expect(issuesOf(() => check({ source, onError: 'log' }))).toEqual([{ path: 'onError', message: 'expected a function' }]);
  });

  it('maxKeys is a positive integer; retryAfterMs milliseconds >= 0; unknown keys refused', () => {
    for (const bad of [0, 1.5, -1]) expect(issuesOf(() => check({ source, maxKeys: bad })).map((i) => i.path)).toEqual(['maxKeys']);
    expect(issuesOf(() => check({ source, retryAfterMs: -1 }))).toEqual([{ path: 'retryAfterMs', message: 'expected a number >= 0' }]);
    expect(issuesOf(() => check({ source, retryAfterMs: '1s' }))).toEqual([{ path: 'retryAfterMs', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ source, status: 503 }))).toEqual([{ path: 'status', message: 'unknown option' }]);
  });
});
