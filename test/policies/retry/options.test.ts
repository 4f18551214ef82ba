import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { constant, exponential } from '../../../policies/retry/backoff.js';
import { tokenBudget } from '../../../policies/retry/budget.js';
import { retryOptions } from '../../../policies/retry/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(retryOptions, input, 'retry');

describe('retryOptions', () => {
  it('accepts nothing: 3 attempts, the name retry, everything else left out', () => {
    expect(check({})).toEqual({ maxAttempts: 3, name: 'retry' });
  });

  it('accepts every option in its documented form', () => {
    const clock = new TestClock();
    const handle = () => true;
    const random = () => 0.5;
    const budget = tokenBudget();
    const backoff = exponential({ initial: 10 });
    const all = { maxAttempts: 1, backoff, maxDelayMs: 0, handle, handleResult: handle, budget, name: 'r', clock, random };
    expect(check(all)).toEqual(all);
    // a backoff may also be a plain function of the retry and the error
    const fn = (n: number) => n * 10;
    expect(check({ backoff: fn }).backoff).toBe(fn);
    expect(check({ backoff: constant(5) }).backoff).toEqual(constant(5));
  });

  it('maxAttempts counts tries: an integer >= 1', () => {
    for (const bad of [0, -1, 1.5, '3', Number.NaN]) expect(issuesOf(() => check({ maxAttempts: bad }))).toEqual([{ path: 'maxAttempts', message: 'expected an integer >= 1' }]);
  });

  it('backoff is a backoff or a function; maxDelayMs milliseconds >= 0', () => {
    expect(issuesOf(() => check({ backoff: 100 }))).toEqual([{ path: 'backoff', message: 'expected a backoff (constant, linear, exponential) or a function (retry, error) => ms' }]);
    expect(issuesOf(() => check({ backoff: { delay: 1 } }))).toEqual([{ path: 'backoff', message: 'expected a backoff (constant, linear, exponential) or a function (retry, error) => ms' }]);
    expect(issuesOf(() => check({ maxDelayMs: -1 }))).toEqual([{ path: 'maxDelayMs', message: 'expected a number >= 0' }]);
    expect(issuesOf(() => check({ maxDelayMs: Infinity }))).toEqual([{ path: 'maxDelayMs', message: 'expected a finite number of milliseconds' }]);
  });

  it('handle and handleResult are functions, budget a RetryBudget, random a function', () => {
    expect(issuesOf(() => check({ handle: true }))).toEqual([{ path: 'handle', message: 'expected a function' }]);
    expect(issuesOf(() => check({ handleResult: 'x' }))).toEqual([{ path: 'handleResult', message: 'expected a function' }]);
    expect(issuesOf(() => check({ budget: { tryRetry: () => true } }))).toEqual([{ path: 'budget', message: 'expected a RetryBudget (onCall, tryRetry)' }]);
    expect(issuesOf(() => check({ random: 0.3 }))).toEqual([{ path: 'random', message: 'expected a function returning a number in [0, 1)' }]);
  });

  it('refuses unknown keys (retries is not maxAttempts) and lists every problem', () => {
    expect(issuesOf(() => check({ retries: 2, maxAttempts: 0, name: '' }))).toEqual([
      { path: 'maxAttempts', message: 'expected an integer >= 1' },
      { path: 'name', message: 'expected a non-empty string' },
      { path: 'retries', message: 'unknown option' },
    ]);
  });
});
