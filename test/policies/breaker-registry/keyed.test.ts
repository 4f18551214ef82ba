import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, breakerRegistry, ConfigError, keyedBreaker, policy, type PolicyEvent } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { T0 } from '../../helpers/breakers.js';

describe('keyedBreaker', () => {
  it('refuses a keyOf that is not a function with a ConfigError naming it and the rule', () => {
    for (const keyOf of [undefined, 'host', { host: 1 }]) {
      let error: unknown;
      try {
        keyedBreaker(keyOf as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).policy).toBe('keyedBreaker');
      expect((error as ConfigError).issues).toEqual([{ path: 'keyOf', message: 'expected a function (ctx) => string' }]);
    }
  });

  it('routes each call to the breaker of keyOf(ctx) and is itself a Policy', async () => {
    const clock = new TestClock(T0);
    const k = keyedBreaker((ctx) => ctx.meta.host ?? 'none', {
      defaults: { strategy: 'consecutiveFailures', threshold: 1 },
      clock,
    });
    const events: PolicyEvent[] = [];
    k.events$.subscribe((e) => events.push(e));
    await expect(k.execute(() => Promise.reject(new Error('x')), { meta: { host: 'a' } })).rejects.toThrow('x');
    await expect(k.execute(() => 1, { meta: { host: 'a' } })).rejects.toBeInstanceOf(BrokenCircuitError);
    await expect(k.execute(() => 2, { meta: { host: 'b' } })).resolves.toBe(2);
    expect(k.get('a').state).toBe('open');
    expect(k.get('b').state).toBe('closed');
    expect(events.find((e) => e.type === 'stateChange')).toMatchObject({ policy: 'breakers:a', to: 'open' });
  });

  it('a throwing keyOf rejects the call', async () => {
    const k = keyedBreaker(() => {
      throw new Error('no key');
    });
    await expect(k.execute(() => 1)).rejects.toThrow('no key');
  });

  it('works in a builder chain', async () => {
    const clock = new TestClock(T0);
    const p = policy({ clock }).keyedBreaker((ctx) => ctx.meta.tenant!, { defaults: { strategy: 'consecutiveFailures', threshold: 1 } });
    await p.execute(() => Promise.reject(new Error('x')), { meta: { tenant: 't1' } }).catch(() => {});
    await expect(p.execute(() => 1, { meta: { tenant: 't1' } })).rejects.toBeInstanceOf(BrokenCircuitError);
    await expect(p.execute(() => 1, { meta: { tenant: 't2' } })).resolves.toBe(1);
  });

  it('a keyed breaker over an existing registry shares its breakers', async () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { strategy: 'consecutiveFailures', threshold: 1 }, clock });
    const k = keyedBreaker((ctx) => ctx.key!, r);
    expect(k.registry).toBe(r);
    await expect(k.execute(() => Promise.reject(new Error('x')), { key: 't1' })).rejects.toThrow('x');
    expect(r.peek('t1')!.state).toBe('open');
    expect(k.get('t1')).toBe(r.peek('t1'));
  });
});

describe('KeyedBreakerPolicy.reconfigure', () => {
  it("reconfigures its registry: every key's breaker in place, keeping its state; another family refused", async () => {
    const clock = new TestClock(T0);
    const k = keyedBreaker((ctx) => ctx.meta.host ?? 'none', { defaults: { trip: 'consecutiveFailures', threshold: 2 }, clock });
    const boom = () => Promise.reject(new Error('boom'));
    await expect(k.execute(boom, { meta: { host: 'a' } })).rejects.toThrow('boom');
    k.reconfigure({ defaults: { trip: 'consecutiveFailures', threshold: 3 }, idleMs: 60_000 });
    expect(k.registry.idleMs).toBe(60_000);
    // The first failure is kept: the third opens the breaker, not the second.
    await expect(k.execute(boom, { meta: { host: 'a' } })).rejects.toThrow('boom');
    await expect(k.execute(boom, { meta: { host: 'a' } })).rejects.toThrow('boom');
    await expect(k.execute(() => 1, { meta: { host: 'a' } })).rejects.toBeInstanceOf(BrokenCircuitError);
    let error: unknown;
    try {
      k.reconfigure({ defaults: { family: 'sre' } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([
      { path: 'defaults', message: 'cannot change in place (the breakers are state machines, these defaults make SRE breakers); build a new registry' },
    ]);
    expect(k.registry.idleMs).toBe(60_000);
  });
});
