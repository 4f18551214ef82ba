import { describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { outlierDetection } from '../../../policies/outlier/index.js';
import { collect } from '../../helpers/events.js';

describe('outlierDetection events', () => {
  it('hostEjected, ejectionSkipped and hostReturned, each before the outcome of the call that caused it', async () => {
    const clock = new TestClock();
    const p = outlierDetection({ hosts: ['a', 'b', 'c'], consecutiveFailures: 1, baseEjectionMs: 1_000, name: 'pool', clock });
    const seen = collect(p);
    const fail = (host: string) => p.execute(async () => Promise.reject(new Error('503')), { meta: { host } }).catch(() => undefined);
    await fail('a');
    await fail('b');
    await clock.advance(1_000);
    expect(p.pick()).toBe('a');
    expect(seen.map((e) => (e.type === 'outcome' ? `outcome ${e.result}` : e))).toEqual([
      { type: 'hostEjected', policy: 'pool', host: 'a', ejections: 1, ejectionMs: 1_000 },
      'outcome failure',
      { type: 'ejectionSkipped', policy: 'pool', host: 'b', ejected: 1 },
      'outcome failure',
      { type: 'hostReturned', policy: 'pool', host: 'a' },
    ]);
  });
});
