import { describe, expect, it } from 'vitest';
import { ConcurrencyLimitedError, TimeoutError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { adaptiveLimiter } from '../../../policies/adaptive-limiter/index.js';
import { own } from '../../helpers/events.js';

const T0 = 1_700_000_000_000;

/** One call through a permit, answered after `ms`. */
async function answer(limiter: ReturnType<typeof adaptiveLimiter>, clock: TestClock, ms: number): Promise<void> {
  const permit = limiter.allow();
  await clock.advance(ms);
  permit.success();
}

describe('LimitChangedEvent', () => {
  it('a window of timeouts lowers the limit (drop), with the window’s figures; reset() goes back (reset)', async () => {
    const clock = new TestClock(T0);
    const limiter = adaptiveLimiter({ algorithm: 'aimd', initialLimit: 10, minSamples: 1, windowMs: 100, clock, name: 'db' });
    const seen = own(limiter);
    const permit = limiter.allow();
    await clock.advance(100);
    permit.failure(new TimeoutError('t'));
    expect(limiter.limit).toBe(9);
    limiter.reset();
    expect(seen).toEqual([
      // AIMD backs off by 0.9; no call answered, so no response time; AIMD keeps no baseline
      { type: 'limitChanged', policy: 'db', from: 10, to: 9, reason: 'drop', rttMs: undefined, baselineMs: undefined, maxInFlight: 1, samples: 1, drops: 1 },
      { type: 'limitChanged', policy: 'db', from: 9, to: 10, reason: 'reset', rttMs: undefined, baselineMs: undefined, maxInFlight: 0, samples: 0, drops: 0 },
    ]);
  });

  it('a window of answers raises the limit (increase) and carries their mean response time', async () => {
    const clock = new TestClock(T0);
    const limiter = adaptiveLimiter({ algorithm: 'aimd', initialLimit: 1, minSamples: 1, windowMs: 100, clock, name: 'db' });
    const seen = own(limiter);
    await answer(limiter, clock, 40); // a window lasts windowMs at least: still open at 40 ms
    expect(seen).toEqual([]);
    await answer(limiter, clock, 60); // closes at 100 ms with two answers, 50 ms on average
    expect(seen).toEqual([
      { type: 'limitChanged', policy: 'db', from: 1, to: 2, reason: 'increase', rttMs: 50, baselineMs: undefined, maxInFlight: 1, samples: 2, drops: 0 },
    ]);
  });

  it('a reset at the initial limit changes nothing and reports nothing', () => {
    const limiter = adaptiveLimiter({ clock: new TestClock(T0) });
    const seen = own(limiter);
    limiter.reset();
    expect(seen).toEqual([]);
  });
});

describe('ConcurrencyRejectedEvent', () => {
  it('a shed call reports the limit and the calls in flight; retryAfterMs only once a response time is known', async () => {
    const clock = new TestClock(T0);
    const limiter = adaptiveLimiter({ algorithm: 'aimd', initialLimit: 1, minSamples: 1, windowMs: 100, clock, name: 'db' });
    const seen = own(limiter);
    const first = limiter.allow();
    expect(() => limiter.allow()).toThrow(ConcurrencyLimitedError);
    first.release();
    await answer(limiter, clock, 40);
    await answer(limiter, clock, 60.5); // measured: 50.25 ms on average, and the limit grows to 2
    expect(limiter.limit).toBe(2);
    const held = [limiter.allow(), limiter.allow()];
    expect(() => limiter.allow()).toThrow(ConcurrencyLimitedError);
    for (const p of held) p.release();
    expect(seen.filter((e) => e.type === 'concurrencyRejected')).toEqual([
      { type: 'concurrencyRejected', policy: 'db', reason: 'concurrencyLimited', limit: 1, inFlight: 1 },
      // the last mean response time, rounded up
      { type: 'concurrencyRejected', policy: 'db', reason: 'concurrencyLimited', limit: 2, inFlight: 2, retryAfterMs: 51 },
    ]);
    expect(seen[0]).not.toHaveProperty('retryAfterMs');
  });
});
