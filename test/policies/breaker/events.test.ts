import { describe, expect, it } from 'vitest';
import { BrokenCircuitError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { circuitBreaker } from '../../../policies/circuit-breaker/index.js';
import { sreBreaker } from '../../../policies/sre-breaker/index.js';
import { own } from '../../helpers/events.js';

const T0 = 1_700_000_000_000;

const fail = () => Promise.reject(new Error('down'));

describe('breaker events: a state machine', () => {
  it('stateChange carries from, to, the reason and the figure; rejected the state and the wait left', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 2, openMs: 1_000, probes: 1, clock, name: 'db' });
    const seen = own(b);
    await b.execute(fail).catch(() => {});
    await b.execute(fail).catch(() => {});
    await clock.advance(400);
    await expect(b.execute(() => 'shed')).rejects.toBeInstanceOf(BrokenCircuitError);
    await clock.advance(600);
    expect(await b.execute(() => 'probe')).toBe('probe');
    expect(seen).toEqual([
      { type: 'stateChange', policy: 'db', from: 'closed', to: 'open', reason: 'threshold', figure: 2 },
      { type: 'rejected', policy: 'db', state: 'open', retryAfterMs: 600 },
      { type: 'stateChange', policy: 'db', from: 'open', to: 'half-open', reason: 'retryTimeout', figure: undefined },
      // the figure of a close is the count of probes that succeeded
      { type: 'stateChange', policy: 'db', from: 'half-open', to: 'closed', reason: 'probesSucceeded', figure: 1 },
    ]);
  });

  it('isolate() forces it open with the reason isolated; disposing the handle resets it', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 5, clock, name: 'db' });
    const seen = own(b);
    const handle = b.isolate();
    handle.dispose();
    expect(seen).toEqual([
      { type: 'stateChange', policy: 'db', from: 'closed', to: 'open', reason: 'isolated', figure: undefined },
      { type: 'stateChange', policy: 'db', from: 'open', to: 'closed', reason: 'reset', figure: undefined },
    ]);
  });
});

describe('breaker events: the SRE breaker', () => {
  it('opens with the reason dropRatio and its figure, sheds with the probability used, and forces a pass after forcePassMs', async () => {
    const clock = new TestClock(T0);
    const draws = [0.99, 0];
    const b = sreBreaker({ protection: 0, clock, random: () => draws.shift() ?? 0, name: 'sre' });
    const seen = own(b);
    await b.execute(fail).catch(() => {}); // 1 failure: under protection 0, still nothing to shed before it
    await b.execute(fail).catch(() => {}); // ratio (1 − 0) / (1 + 1) = 0.5: opens; the draw 0.99 lets it pass
    await expect(b.execute(() => 'x')).rejects.toBeInstanceOf(BrokenCircuitError); // ratio 2/3; the draw 0 sheds
    await clock.advance(1_001);
    await b.execute(() => 'forced'); // ratio 3/4, but 1,001 ms since the last pass
    expect(seen).toEqual([
      { type: 'stateChange', policy: 'sre', from: 'closed', to: 'open', reason: 'dropRatio', figure: 0.5 },
      { type: 'rejected', policy: 'sre', state: 'open', dropRatio: 2 / 3 },
      { type: 'forcePass', policy: 'sre', dropRatio: 3 / 4, sinceLastPassMs: 1_001 },
    ]);
  });
});
