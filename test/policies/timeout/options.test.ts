import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { timeoutOptions } from '../../../policies/timeout/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(timeoutOptions, input, 'timeout');

describe('timeoutOptions', () => {
  it('needs only ms: the mode defaults to aggressive, the name to timeout, the clock to none', () => {
    expect(check({ ms: 250 })).toEqual({ ms: 250, mode: 'aggressive', name: 'timeout' });
    const clock = new TestClock();
    expect(check({ ms: 0.5, mode: 'cooperative', name: 'db', clock })).toEqual({ ms: 0.5, mode: 'cooperative', name: 'db', clock });
  });

  it('ms is a finite number of milliseconds above zero, and required', () => {
    expect(issuesOf(() => check({}))).toEqual([{ path: 'ms', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ ms: '100' }))).toEqual([{ path: 'ms', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ ms: Infinity }))).toEqual([{ path: 'ms', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ ms: 0 }))).toEqual([{ path: 'ms', message: 'expected a number greater than 0' }]);
    expect(issuesOf(() => check({ ms: -5 }))).toEqual([{ path: 'ms', message: 'expected a number greater than 0' }]);
  });

  it('mode is aggressive or cooperative; name a non-empty string; clock a Clock; no other key', () => {
    expect(issuesOf(() => check({ ms: 1, mode: 'lazy' }))).toEqual([{ path: 'mode', message: 'Invalid option: expected one of "aggressive"|"cooperative"' }]);
    expect(issuesOf(() => check({ ms: 1, name: '' }))).toEqual([{ path: 'name', message: 'expected a non-empty string' }]);
    expect(issuesOf(() => check({ ms: 1, name: 7 }))).toEqual([{ path: 'name', message: 'Invalid input: expected string, received number' }]);
    expect(issuesOf(() => check({ ms: 1, clock: { now: () => 0 } }))).toEqual([{ path: 'clock', message: 'expected a Clock (now, setTimeout, clearTimeout)' }]);
    expect(issuesOf(() => check({ ms: 1, timeoutMs: 5 }))).toEqual([{ path: 'timeoutMs', message: 'unknown option' }]);
  });

  it('lists every problem at once, and refuses what is not an object', () => {
    expect(issuesOf(() => check({ ms: 0, mode: 'x', extra: true }))).toEqual([
      { path: 'ms', message: 'expected a number greater than 0' },
      { path: 'mode', message: 'Invalid option: expected one of "aggressive"|"cooperative"' },
      { path: 'extra', message: 'unknown option' },
    ]);
    expect(issuesOf(() => check(null))).toEqual([{ path: '', message: 'Invalid input: expected object, received null' }]);
  });
});
