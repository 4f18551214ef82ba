import { describe, expect, it } from 'vitest';
import { checkOptions } from '../../../lib/options.js';
import { TestClock } from '../../../lib/testing.js';
import { logEventsOptions } from '../../../integrations/log/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(logEventsOptions, input, 'logEvents');

describe('logEventsOptions', () => {
  it('accepts nothing: at most one line per policy and kind of event each second', () => {
    expect(check({})).toEqual({ rateLimitMs: 1_000 });
  });

  it('0 logs every event; a clock may be given', () => {
    const clock = new TestClock();
    expect(check({ rateLimitMs: 0, clock })).toEqual({ rateLimitMs: 0, clock });
  });

  it('rateLimitMs is milliseconds >= 0; clock a Clock; unknown keys refused', () => {
    expect(issuesOf(() => check({ rateLimitMs: -1 }))).toEqual([{ path: 'rateLimitMs', message: 'expected a number >= 0' }]);
    expect(issuesOf(() => check({ rateLimitMs: '1s' }))).toEqual([{ path: 'rateLimitMs', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ rateLimitMs: Infinity }))).toEqual([{ path: 'rateLimitMs', message: 'expected a finite number of milliseconds' }]);
    expect(issuesOf(() => check({ clock: Date }))).toEqual([{ path: 'clock', message: 'expected a Clock (now, setTimeout, clearTimeout)' }]);
    expect(issuesOf(() => check({ level: 'warn' }))).toEqual([{ path: 'level', message: 'unknown option' }]);
  });

  it('lists every problem at once, and refuses what is not an object', () => {
    expect(issuesOf(() => check({ rateLimitMs: -1, clock: 1 }))).toEqual([
      { path: 'rateLimitMs', message: 'expected a number >= 0' },
      { path: 'clock', message: 'expected a Clock (now, setTimeout, clearTimeout)' },
    ]);
    expect(issuesOf(() => check([]))).toEqual([{ path: '', message: 'Invalid input: expected object, received array' }]);
  });
});
