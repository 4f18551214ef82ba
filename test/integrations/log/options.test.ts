import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../../lib/schemas.js';
import { TestClock } from '../../../lib/testing.js';
import { LogEventsOptionsSchema } from '../../../integrations/log/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => parseOptions(LogEventsOptionsSchema, input, 'logEvents');

describe('LogEventsOptionsSchema', () => {
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
    expect(issuesOf(() => check({ clock: Date }))).toEqual([{ path: 'clock', message: 'expected a Clock (now, setTimeout, clearTimeout)' }]);
    expect(issuesOf(() => check({ level: 'warn' }))).toEqual([{ path: 'level', message: 'unknown option' }]);
  });
});
