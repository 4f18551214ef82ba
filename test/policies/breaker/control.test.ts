import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, ConfigError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { circuitBreaker } from '../../../policies/circuit-breaker/index.js';
import { sreBreaker } from '../../../policies/sre-breaker/index.js';
import { adaptiveBreaker } from '../../../policies/adaptive-breaker/index.js';
import { BREAKER_CONTROLS, type BreakerPolicy } from '../../../policies/breaker/breaker.js';
import { collect, own } from '../../helpers/events.js';

const fail = async (): Promise<never> => {
  throw new Error('down');
};

/** A consecutive-failures breaker that trips on the first failure and stays open for 1 s. */
function tripOnFirst(clock: TestClock) {
  return circuitBreaker({ name: 'payments', trip: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
}

describe('breaker controls', () => {
  it('forcedOpen refuses every call; back to enforcing, the breaker is closed with empty counters', async () => {
    const clock = new TestClock();
    const b = tripOnFirst(clock);
    b.setControl('forcedOpen');
    expect(b.control).toBe('forcedOpen');
    expect(b.state).toBe('open');
    await expect(b.execute(async () => 'ok')).rejects.toBeInstanceOf(BrokenCircuitError);
    b.setControl('enforcing');
    expect(b.state).toBe('closed');
    await expect(b.execute(async () => 'ok')).resolves.toBe('ok');
  });

  it('disabled lets every call through, an open breaker’s too, records nothing and changes no state', async () => {
    const clock = new TestClock();
    const b = tripOnFirst(clock);
    await b.execute(fail).catch(() => undefined);
    expect(b.state).toBe('open');
    b.setControl('disabled');
    const seen = collect(b);
    await expect(b.execute(async () => 'ok')).resolves.toBe('ok');
    await expect(b.execute(fail)).rejects.toThrow('down');
    expect(b.state).toBe('open');
    expect(seen.map((e) => e.type === 'outcome' && e.result)).toEqual(['success', 'failure']);
    b.setControl('enforcing');
    await expect(b.execute(async () => 'ok')).rejects.toBeInstanceOf(BrokenCircuitError);
  });

  it('metricsOnly runs the breaker as usual, state changes included, but lets the calls it would shed pass', async () => {
    const clock = new TestClock();
    const b = tripOnFirst(clock);
    b.setControl('metricsOnly');
    const seen = own(b);
    await expect(b.execute(fail)).rejects.toThrow('down');
    expect(b.state).toBe('open');
    let ran = 0;
    await expect(b.execute(async () => ++ran)).resolves.toBe(1);
    expect(seen).toEqual([
      { type: 'stateChange', policy: 'payments', from: 'closed', to: 'open', reason: 'threshold', figure: 1 },
      { type: 'rejected', policy: 'payments', state: 'open', retryAfterMs: 1_000, enforced: false },
    ]);
    // under enforcing again, the state it reached rules
    b.setControl('enforcing');
    await expect(b.execute(async () => 'ok')).rejects.toBeInstanceOf(BrokenCircuitError);
  });

  it('emits controlChanged, ignores a repeat, and refuses an unknown control naming it', () => {
    const b = tripOnFirst(new TestClock());
    const seen = own(b);
    b.setControl('disabled');
    b.setControl('disabled');
    b.setControl('enforcing');
    expect(seen).toEqual([
      { type: 'controlChanged', policy: 'payments', from: 'enforcing', to: 'disabled' },
      { type: 'controlChanged', policy: 'payments', from: 'disabled', to: 'enforcing' },
    ]);
    expect(() => b.setControl('off' as never)).toThrow(ConfigError);
    expect(() => b.setControl('off' as never)).toThrow(/control: expected one of 'enforcing', 'disabled', 'metricsOnly', 'forcedOpen', got off/);
    expect(b.control).toBe('enforcing');
    expect(BREAKER_CONTROLS).toEqual(['enforcing', 'disabled', 'metricsOnly', 'forcedOpen']);
  });

  it('works the same on every breaker, by the permit API too', async () => {
    const clock = new TestClock();
    const breakers: BreakerPolicy[] = [tripOnFirst(clock), sreBreaker({ clock }), adaptiveBreaker({ clock })];
    for (const b of breakers) {
      b.setControl('forcedOpen');
      expect(() => b.allow()).toThrow(BrokenCircuitError);
      b.setControl('disabled');
      const permit = b.allow();
      permit.failure(new Error('x'));
      expect(b.state).toBe('closed');
      b.setControl('enforcing');
    }
  });
});

describe('breaker health', () => {
  it('reports state, control, window figures and the last state change with its clock time', async () => {
    const clock = new TestClock(5_000);
    const b = tripOnFirst(clock);
    expect(b.health()).toMatchObject({ name: 'payments', state: 'closed', control: 'enforcing', lastTransition: undefined });
    await clock.advance(250);
    await b.execute(fail).catch(() => undefined);
    const h = b.health();
    expect(h).toMatchObject({ state: 'open', lastTransition: { from: 'closed', to: 'open', reason: 'threshold', at: 5_250 } });
    expect(h.stats).toEqual({ ...b.stats() });
  });
});
