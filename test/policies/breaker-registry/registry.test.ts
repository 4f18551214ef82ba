import { describe, expect, it } from 'vitest';
import {
  BrokenCircuitError,
  breakerRegistry,
  CircuitBreaker,
  ConfigError,
  keyedBreaker,
  policy,
  SreBreaker,
  type PolicyEvent,
} from '../../../lib/index.js';
import { scriptedRandom, TestClock } from '../../../lib/testing.js';
import { T0 } from '../../helpers/breakers.js';

describe('breakerRegistry', () => {
  it('makes one breaker per key, lazily, from the defaults', () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { strategy: 'consecutiveFailures', threshold: 2 }, clock });
    expect(r.size).toBe(0);
    const a = r.get('a');
    expect(a).toBeInstanceOf(CircuitBreaker);
    expect(r.get('a')).toBe(a);
    expect(r.get('b')).not.toBe(a);
    expect(a.name).toBe('breakers:a');
    expect(r.size).toBe(2);
    expect(breakerRegistry({ clock }).get('x')).toBeInstanceOf(SreBreaker);
  });

  it('drops breakers idle for longer than idleMs, lazily, least recently used first', async () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ idleMs: 1_000, clock, random: scriptedRandom() });
    r.get('a');
    r.get('b');
    await clock.advance(600);
    r.get('a'); // a used again
    await clock.advance(400); // b idle exactly 1 000: kept
    r.get('c');
    expect([...r.keys()]).toEqual(['b', 'a', 'c']);
    await clock.advance(1);
    r.get('c'); // b idle 1 001: dropped on this access
    expect([...r.keys()]).toEqual(['a', 'c']);
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(10_000);
    expect(r.prune()).toBe(2);
    expect(r.size).toBe(0);
  });

  it('a dropped breaker starts afresh', async () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { strategy: 'consecutiveFailures', threshold: 1, openMs: 60_000 }, idleMs: 1_000, clock });
    r.get('a').allow().failure();
    expect(r.get('a').state).toBe('open');
    await clock.advance(1_001);
    r.get('other');
    expect(r.peek('a')).toBeUndefined();
    expect(r.get('a').state).toBe('closed');
  });

  it('bad defaults are a ConfigError at construction, with paths under defaults', () => {
    try {
      breakerRegistry({ defaults: { strategy: 'errorRatio', threshold: 3 } });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues.map((i) => i.path)).toEqual(['defaults.threshold']);
    }
    expect(() => breakerRegistry({ idleMs: 0 })).toThrow(ConfigError);
    expect(() => keyedBreaker('x' as never)).toThrow(ConfigError);
  });

  it('stays cheap for many keys', () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { strategy: 'errorRatio' }, clock });
    for (let i = 0; i < 50_000; i++) r.get(`k${i}`).allow().success();
    expect(r.size).toBe(50_000);
    expect(r.get('k1').window.counts).toBeUndefined(); // one call: no arrays
  });
});

describe('keyedBreaker', () => {
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
});

describe('breakerRegistry bookkeeping', () => {
  it('delete, peek and keys in least-recently-used order', () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ clock, random: scriptedRandom() });
    r.get('a');
    r.get('b');
    r.get('c');
    r.get('a');
    expect([...r.keys()]).toEqual(['b', 'c', 'a']);
    expect(r.delete('c')).toBe(true);
    expect(r.delete('c')).toBe(false);
    expect([...r.keys()]).toEqual(['b', 'a']);
    expect(r.peek('b')).toBeInstanceOf(SreBreaker);
    expect([...r.keys()]).toEqual(['b', 'a']); // peek does not touch
  });
});
