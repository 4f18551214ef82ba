import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { sreBreaker } from '../../../policies/sre-breaker/index.js';
import { sreBreakerOptions, sreProblems } from '../../../policies/sre-breaker/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(sreBreakerOptions, input, 'sreBreaker');

describe('sreBreakerOptions', () => {
  it('accepts nothing: go-zero’s defaults (10 s in 40 buckets, k 1.5, minK 1.1, protection 5, force pass after 1 s)', () => {
    expect(check({})).toEqual({ windowMs: 10_000, buckets: 40, k: 1.5, minK: 1.1, protection: 5, forcePassMs: 1_000, name: 'breaker' });
  });

  it('accepts every option in its documented form, a snapshot of the same grid included', () => {
    const clock = new TestClock(1_700_000_000_000);
    const initialState = sreBreaker({ windowMs: 1_000, buckets: 4, clock }).snapshot();
    const handle = () => true;
    const random = () => 0.5;
    const all = { windowMs: 1_000, buckets: 4, k: 2, minK: 1, protection: 0, forcePassMs: 0, handle, handleResult: handle, initialState, name: 'sre', clock, random };
    expect(check(all)).toEqual(all);
  });

  it('each number has its range', () => {
    expect(issuesOf(() => check({ windowMs: 0 }))).toContainEqual({ path: 'windowMs', message: 'expected a number greater than 0' });
    // one mistake, one report: the grid rule runs only on options that passed their own rules
    expect(issuesOf(() => check({ buckets: 0 }))).toEqual([{ path: 'buckets', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => check({ buckets: 1.5 }))).toEqual([{ path: 'buckets', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => check({ k: Infinity }))).toEqual([{ path: 'k', message: 'expected a finite number' }]);
    expect(issuesOf(() => check({ minK: 0.9, k: 1 }))).toEqual([{ path: 'minK', message: 'expected a finite number >= 1' }]);
    expect(issuesOf(() => check({ protection: -1 }))).toEqual([{ path: 'protection', message: 'expected a finite number >= 0' }]);
    expect(issuesOf(() => check({ forcePassMs: -1 }))).toEqual([{ path: 'forcePassMs', message: 'expected a number >= 0' }]);
    expect(issuesOf(() => check({ handle: 1, handleResult: 'x' }))).toEqual([
      { path: 'handle', message: 'expected a function' },
      { path: 'handleResult', message: 'expected a function' },
    ]);
  });

  it('buckets must divide windowMs; k may not be under minK', () => {
    expect(issuesOf(() => check({ buckets: 3 }))).toEqual([{ path: 'buckets', message: 'must divide windowMs (10000) into whole milliseconds' }]);
    expect(issuesOf(() => check({ k: 1.05 }))).toEqual([{ path: 'k', message: 'must be >= minK (1.1)' }]);
    expect(check({ k: 1.1 }).k).toBe(1.1);
    expect(issuesOf(() => check({ windowMs: 1_000, buckets: 3, k: 1, minK: 1.2 }))).toEqual([
      { path: 'buckets', message: 'must divide windowMs (1000) into whole milliseconds' },
      { path: 'k', message: 'must be >= minK (1.2)' },
    ]);
  });

  it('a snapshot of another grid is named where it differs', () => {
    const clock = new TestClock(1_700_000_000_000);
    const small = sreBreaker({ windowMs: 1_000, buckets: 4, clock }).snapshot();
    expect(issuesOf(() => check({ initialState: small }))).toEqual([{ path: 'initialState.window.size', message: 'must equal buckets (40)' }]);
    expect(issuesOf(() => check({ windowMs: 2_000, buckets: 4, initialState: small }))).toEqual([{ path: 'initialState.window.bucketMs', message: 'must equal windowMs / buckets (500)' }]);
  });

  it('refuses unknown keys (a state machine’s options are not an SRE breaker’s)', () => {
    expect(issuesOf(() => check({ threshold: 0.5 }))).toEqual([{ path: 'threshold', message: 'unknown option' }]);
  });
});

describe('sreProblems', () => {
  it('lists nothing for a consistent grid and k >= minK', () => {
    expect(sreProblems({ windowMs: 10_000, buckets: 40, k: 1.5, minK: 1.1 })).toEqual([]);
    expect(sreProblems({ windowMs: 100, buckets: 100, k: 1, minK: 1 })).toEqual([]);
  });
});
