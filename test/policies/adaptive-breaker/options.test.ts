import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { adaptiveBreaker } from '../../../policies/adaptive-breaker/index.js';
import { adaptiveBreakerOptions, adaptiveBreakerSnapshot } from '../../../policies/adaptive-breaker/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const T0 = 1_700_000_000_000;
const check = (input: unknown) => checkOptions(adaptiveBreakerOptions, input, 'breaker');

describe('adaptiveBreakerOptions', () => {
  it('accepts nothing: a 2 s window in 20 buckets, go-zero’s k, protection and force pass, trip after 5 failures and 250 ms, 5 % probes ramped x4', () => {
    expect(check({})).toEqual({
      windowMs: 2_000,
      buckets: 20,
      k: 1.5,
      protection: 5,
      forcePassMs: 1_000,
      tripFailures: 5,
      tripMs: 250,
      probeRatio: 0.05,
      rampFactor: 4,
      name: 'breaker',
    });
  });

  it('accepts every option in its documented form, a snapshot of the same grid included', () => {
    const clock = new TestClock(T0);
    const initialState = adaptiveBreaker({ windowMs: 1_000, buckets: 10, clock }).snapshot();
    const handle = () => true;
    const random = () => 0;
    const all = {
      windowMs: 1_000,
      buckets: 10,
      k: 1,
      protection: 0,
      forcePassMs: 0,
      tripFailures: 1,
      tripMs: 0,
      probeRatio: 1,
      rampFactor: 1.01,
      handle,
      handleResult: handle,
      initialState,
      name: 'b',
      clock,
      random,
    };
    expect(check(all)).toEqual(all);
  });

  it('each number has its range, named in its words', () => {
    const one = (input: object) => issuesOf(() => check(input));
    expect(one({ windowMs: -1 })).toContainEqual({ path: 'windowMs', message: 'expected a number greater than 0' });
    expect(one({ buckets: 2.5 })).toEqual([{ path: 'buckets', message: 'expected an integer >= 1' }]);
    expect(one({ k: 0.5 })).toEqual([{ path: 'k', message: 'expected a finite number >= 1' }]);
    expect(one({ protection: -1 })).toEqual([{ path: 'protection', message: 'expected a finite number >= 0' }]);
    expect(one({ forcePassMs: -1 })).toEqual([{ path: 'forcePassMs', message: 'expected a number >= 0' }]);
    expect(one({ tripFailures: 0 })).toEqual([{ path: 'tripFailures', message: 'expected an integer >= 1' }]);
    expect(one({ tripMs: Number.NaN })).toEqual([{ path: 'tripMs', message: 'expected a finite number of milliseconds' }]);
    expect(one({ probeRatio: 1.5 })).toEqual([{ path: 'probeRatio', message: 'expected a ratio in [0, 1]' }]);
    expect(one({ rampFactor: 1 })).toEqual([{ path: 'rampFactor', message: 'expected a finite number > 1' }]);
    expect(one({ rampFactor: 'x' })).toEqual([{ path: 'rampFactor', message: 'expected a finite number > 1' }]);
  });

  it('one mistake, one report: the grid rule runs only on options that passed their own rules', () => {
    expect(issuesOf(() => check({ buckets: 0 }))).toEqual([{ path: 'buckets', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => check({ windowMs: 0 }))).toEqual([{ path: 'windowMs', message: 'expected a number greater than 0' }]);
  });

  it('buckets must divide windowMs, and a snapshot must have the grid', () => {
    expect(issuesOf(() => check({ buckets: 3 }))).toEqual([{ path: 'buckets', message: 'must divide windowMs (2000) into whole milliseconds' }]);
    const other = adaptiveBreaker({ windowMs: 1_000, buckets: 10, clock: new TestClock(T0) }).snapshot();
    expect(issuesOf(() => check({ initialState: other }))).toEqual([{ path: 'initialState.window.size', message: 'must equal buckets (20)' }]);
    expect(issuesOf(() => check({ windowMs: 2_000, buckets: 10, initialState: other }))).toEqual([{ path: 'initialState.window.bucketMs', message: 'must equal windowMs / buckets (200)' }]);
  });

  it('refuses unknown keys (an SRE breaker’s minK is not one of its options)', () => {
    expect(issuesOf(() => check({ minK: 1.1 }))).toEqual([{ path: 'minK', message: 'unknown option' }]);
  });
});

describe('adaptiveBreakerSnapshot', () => {
  const snap = () => adaptiveBreaker({ clock: new TestClock(T0) }).snapshot();
  const checkSnap = (input: unknown) => checkOptions(adaptiveBreakerSnapshot, input, 'breaker');

  it('accepts what snapshot() returns', () => {
    const s = snap();
    expect(checkSnap(s)).toEqual(s);
  });

  it('names each field that is wrong', () => {
    const s = snap();
    expect(issuesOf(() => checkSnap({ ...s, kind: 'sre' }))).toEqual([{ path: 'kind', message: 'Invalid input: expected "adaptive"' }]);
    expect(issuesOf(() => checkSnap({ ...s, state: 'ajar' }))).toEqual([{ path: 'state', message: "expected 'closed', 'open' or 'half-open'" }]);
    expect(issuesOf(() => checkSnap({ ...s, isolated: 0 }))).toEqual([{ path: 'isolated', message: 'expected a boolean' }]);
    expect(issuesOf(() => checkSnap({ ...s, admitRatio: 2 }))).toEqual([{ path: 'admitRatio', message: 'expected a ratio in [0, 1]' }]);
    expect(issuesOf(() => checkSnap({ ...s, failuresInRow: -1 }))).toEqual([{ path: 'failuresInRow', message: 'expected an integer >= 0' }]);
    expect(issuesOf(() => checkSnap({ ...s, lastPass: 'yesterday' }))).toEqual([{ path: 'lastPass', message: 'expected a finite clock time or null' }]);
    expect(issuesOf(() => checkSnap({ ...s, timed: { at: T0, ms: -1 } }))).toEqual([{ path: 'timed.ms', message: 'expected an integer >= 0' }]);
  });
});
