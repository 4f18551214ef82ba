import { describe, expect, it } from 'vitest';
import {
  AdaptiveBreakerPolicy,
  BrokenCircuitError,
  breakerRegistry,
  CircuitBreakerPolicy,
  ConfigError,
  keyedBreaker,
  SreBreakerPolicy,
} from '../../../api/index.js';
import { scriptedRandom, TestClock } from '../../../lib/testing.js';
import { T0 } from '../../helpers/breakers.js';
import { issuesOf } from '../../helpers/config-issues.js';

describe('breakerRegistry', () => {
  it('makes one breaker per key, lazily, from the defaults', () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { strategy: 'consecutiveFailures', threshold: 2 }, clock });
    expect(r.size).toBe(0);
    const a = r.get('a');
    expect(a).toBeInstanceOf(CircuitBreakerPolicy);
    expect(r.get('a')).toBe(a);
    expect(r.get('b')).not.toBe(a);
    expect(a.name).toBe('breakers:a');
    expect(r.size).toBe(2);
    expect(breakerRegistry({ clock }).get('x')).toBeInstanceOf(AdaptiveBreakerPolicy);
    expect(breakerRegistry({ defaults: { tripMs: 500 }, clock }).get('x')).toBeInstanceOf(AdaptiveBreakerPolicy);
    expect(breakerRegistry({ defaults: { family: 'adaptive' }, clock }).get('x')).toBeInstanceOf(AdaptiveBreakerPolicy);
    expect(breakerRegistry({ defaults: { family: 'sre', k: 2 }, clock }).get('x')).toBeInstanceOf(SreBreakerPolicy);
  });

  it('makes state machines from defaults that name their trip rule by trip, or by strategy (deprecated)', () => {
    const clock = new TestClock(T0);
    const byTrip = breakerRegistry({ defaults: { trip: 'consecutiveFailures', threshold: 2 }, clock }).get('a');
    expect(byTrip).toBeInstanceOf(CircuitBreakerPolicy);
    byTrip.allow().failure();
    expect(byTrip.state).toBe('closed');
    byTrip.allow().failure();
    expect(byTrip.state).toBe('open');
    let issues: readonly { path: string; message: string }[] = [];
    try {
      breakerRegistry({ defaults: { trip: 'errorRatio', strategy: 'errorRatio' } as never, clock });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      issues = (e as ConfigError).issues;
    }
    expect(issues).toEqual([{ path: 'defaults.strategy', message: 'expected trip or strategy, not both (strategy is the deprecated name of trip)' }]);
  });

  it("refuses an unknown family, and SRE-only options without family: 'sre'", () => {
    const paths = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues.map((i) => i.path);
      }
      return [];
    };
    expect(paths(() => breakerRegistry({ defaults: { family: 'gobreaker' } as never }))).toEqual(['defaults.family']);
    expect(paths(() => breakerRegistry({ defaults: { minK: 1.2 } as never }))).toEqual(['defaults.minK']);
    expect(paths(() => keyedBreaker((ctx) => ctx.meta.host ?? '', { defaults: { family: 'sre', tripMs: 5 } as never }))).toEqual(['defaults.tripMs']);
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
    const r = breakerRegistry({ defaults: { strategy: 'consecutiveFailures', threshold: 3 }, idleMs: 1_000, clock });
    r.get('a').allow().failure();
    r.get('a').allow().failure();
    expect(r.get('a').stats().consecutiveFailures).toBe(2);
    await clock.advance(10_001); // past the window and idle: nothing a fresh breaker would not decide
    r.get('other');
    expect(r.peek('a')).toBeUndefined();
    expect(r.get('a').stats().consecutiveFailures).toBe(0);
  });

  it('never drops an isolated breaker while its handle is live, however long idle', async () => {
    const clock = new TestClock(T0);
    const k = keyedBreaker((ctx) => ctx.meta.host!, { idleMs: 1_000, clock });
    const isolated = k.get('db');
    const handle = isolated.isolate();
    await clock.advance(60_000);
    await expect(k.execute(() => 'other', { meta: { host: 'cache' } })).resolves.toBe('other');
    expect(k.registry.peek('db')).toBe(isolated);
    expect(k.registry.prune()).toBe(0);
    await clock.advance(60_000);
    await expect(k.execute(() => 'reached', { meta: { host: 'db' } })).rejects.toBeInstanceOf(BrokenCircuitError);
    expect([...k.registry.keys()]).toEqual(['db']); // the idle 'cache' went meanwhile
    handle.dispose();
    await clock.advance(1_001);
    expect(k.registry.prune()).toBe(1);
    expect(k.registry.size).toBe(0);
  });

  it('with idleMs below openMs, an open breaker sheds for its whole open period, then is dropped once idle', async () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { strategy: 'consecutiveFailures', threshold: 1, openMs: 60_000 }, idleMs: 1_000, clock });
    const open = r.get('a');
    open.allow().failure();
    await clock.advance(1_001);
    r.get('other');
    expect(r.peek('a')).toBe(open);
    await clock.advance(58_998); // T0 + 59 999: still open
    expect(r.get('a')).toBe(open);
    expect(() => open.allow()).toThrow(BrokenCircuitError);
    await clock.advance(1); // the open period has ended, but 'a' was used 1 ms ago
    r.get('other');
    expect(r.peek('a')).toBe(open);
    await clock.advance(1_000);
    r.get('other');
    expect(r.peek('a')).toBeUndefined();
    expect(r.get('a').state).toBe('closed');
  });

  it('keeps a half-open breaker while a probe is unanswered', async () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { strategy: 'consecutiveFailures', threshold: 1, openMs: 100 }, idleMs: 1_000, clock });
    const b = r.get('a');
    b.allow().failure();
    await clock.advance(100);
    const probe = r.get('a').allow();
    expect(b.state).toBe('half-open');
    await clock.advance(5_000);
    expect(r.prune()).toBe(0);
    expect(r.peek('a')).toBe(b);
    probe.success();
    await clock.advance(1_001);
    expect(r.prune()).toBe(1);
  });

  it('keeps an SRE breaker, or a closed state machine, while its window still holds a record', async () => {
    const clock = new TestClock(T0);
    const sre = breakerRegistry({ defaults: { family: 'sre', windowMs: 10_000 }, idleMs: 1_000, clock, random: scriptedRandom() });
    const machine = breakerRegistry({ defaults: { strategy: 'errorRatio', windowMs: 10_000 }, idleMs: 1_000, clock });
    const s = sre.get('a');
    const m = machine.get('a');
    for (let i = 0; i < 3; i++) {
      s.allow().failure();
      m.allow().failure();
    }
    await clock.advance(5_000);
    expect([sre.prune(), machine.prune()]).toEqual([0, 0]);
    expect(s.stats().total).toBe(3);
    await clock.advance(4_000); // kept at T0 + 5 000, looked at again: the records are still in the window
    expect([sre.prune(), machine.prune()]).toEqual([0, 0]);
    await clock.advance(1_001); // the window has let go of every record
    expect([sre.prune(), machine.prune()]).toEqual([1, 1]);
    expect(sre.get('a')).not.toBe(s);
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

  it('defaults and options that are not plain objects are a ConfigError naming them', () => {
    const pathsOf = (build: () => unknown): string[] => {
      try {
        build();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues.map((i) => i.path);
      }
      return expect.unreachable('expected a ConfigError');
    };
    const keyOf = () => 'k';
    for (const defaults of [[], [{ strategy: 'errorRatio' }], new Date(), new Map(), Object.create({ strategy: 'errorRatio' }) as object]) {
      expect(pathsOf(() => keyedBreaker(keyOf, { defaults } as never))).toEqual(['defaults']);
      expect(pathsOf(() => breakerRegistry({ defaults } as never))).toEqual(['defaults']);
    }
    for (const options of [[], new Map(), new Date(), null, 'fast']) {
      expect(pathsOf(() => keyedBreaker(keyOf, options as never))).toEqual(['']);
      expect(pathsOf(() => breakerRegistry(options as never))).toEqual(['']);
    }
    expect(keyedBreaker(keyOf, { defaults: Object.create(null) as object }).get('k')).toBeInstanceOf(AdaptiveBreakerPolicy);
  });

  it('stays cheap for many keys', () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { strategy: 'errorRatio' }, clock });
    for (let i = 0; i < 50_000; i++) r.get(`k${i}`).allow().success();
    expect(r.size).toBe(50_000);
    expect(r.get('k1').window.counts).toBeUndefined(); // one call: no arrays
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
    expect(r.peek('b')).toBeInstanceOf(AdaptiveBreakerPolicy);
    expect([...r.keys()]).toEqual(['b', 'a']); // peek does not touch
  });
});

describe('BreakerRegistry.reconfigure', () => {
  const machine = (threshold: number) => ({ trip: 'consecutiveFailures' as const, threshold, openMs: 1_000 });
  const fail = (b: { allow(): { failure(): void } }, n: number) => {
    for (let i = 0; i < n; i++) b.allow().failure();
  };

  it('applies new defaults in place to every breaker held, keeping its state and control, and to those made after', () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: machine(3), clock });
    const a = r.get('a');
    const b = r.get('b');
    fail(a, 2);
    fail(b, 3);
    expect(b.state).toBe('open');
    r.setControl('metricsOnly');
    r.reconfigure({ defaults: machine(5) });
    expect([r.peek('a'), r.peek('b')]).toEqual([a, b]);
    expect(b.state).toBe('open');
    expect(a.control).toBe('metricsOnly');
    r.setControl('enforcing');
    // The streak of 2 is kept: a third failure would have opened it under the old threshold, the fifth does now.
    expect(a.stats().consecutiveFailures).toBe(2);
    fail(a, 2);
    expect(a.state).toBe('closed');
    fail(a, 1);
    expect(a.state).toBe('open');
    const c = r.get('c');
    fail(c, 4);
    expect(c.state).toBe('closed');
    fail(c, 1);
    expect(c.state).toBe('open');
  });

  it('applies a new idleMs from the next use of the registry', async () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ idleMs: 1_000, clock, random: scriptedRandom() });
    r.get('a');
    await clock.advance(600);
    r.reconfigure({ idleMs: 10_000 });
    expect(r.idleMs).toBe(10_000);
    expect(r.prune()).toBe(0);
    r.reconfigure({ idleMs: 500 });
    expect(r.size).toBe(1);
    expect(r.prune()).toBe(1);
  });

  it('refuses defaults of another family at defaults, whether or not a breaker is held, and changes nothing', () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: machine(3), idleMs: 1_000, clock });
    const a = r.get('a');
    fail(a, 2);
    expect(issuesOf(() => r.reconfigure({ defaults: { family: 'sre', k: 2 }, idleMs: 5_000 }))).toEqual([
      { path: 'defaults', message: 'cannot change in place (the breakers are state machines, these defaults make SRE breakers); build a new registry' },
    ]);
    // Omitted, the defaults are {}, as at construction: the default breaker.
    expect(issuesOf(() => r.reconfigure({ idleMs: 5_000 }))).toEqual([
      { path: 'defaults', message: 'cannot change in place (the breakers are state machines, these defaults make default (adaptive) breakers); build a new registry' },
    ]);
    const empty = breakerRegistry({ defaults: { family: 'sre' }, clock });
    expect(issuesOf(() => empty.reconfigure({ defaults: { tripMs: 500 } }))).toEqual([
      { path: 'defaults', message: 'cannot change in place (the breakers are SRE breakers, these defaults make default (adaptive) breakers); build a new registry' },
    ]);
    expect(r.idleMs).toBe(1_000);
    fail(a, 1);
    expect(a.state).toBe('open');
  });

  it('refuses another window at its path under defaults, even with no breaker held, and changes nothing', () => {
    const clock = new TestClock(T0);
    const why = 'cannot change in place (it shapes the window); build a new registry';
    const adaptive = breakerRegistry({ defaults: { windowMs: 10_000 }, clock });
    expect(issuesOf(() => adaptive.reconfigure({ defaults: { windowMs: 5_000, buckets: 10 } }))).toEqual([
      { path: 'defaults.windowMs', message: why },
      { path: 'defaults.buckets', message: why },
    ]);
    const r = breakerRegistry({ defaults: machine(3), clock });
    const a = r.get('a');
    expect(issuesOf(() => r.reconfigure({ defaults: { trip: 'errorRatio', threshold: 0.5 } }))).toEqual([{ path: 'defaults.trip', message: why }]);
    expect(issuesOf(() => r.reconfigure({ defaults: { ...machine(5), window: { type: 'count', size: 10 } } }))).toEqual([{ path: 'defaults.window', message: why }]);
    fail(a, 3);
    expect(a.state).toBe('open');
    // The same window with other thresholds is no change of window.
    adaptive.reconfigure({ defaults: { windowMs: 10_000, tripMs: 500 } });
  });

  it('refuses a bad option naming it and the rule, and changes nothing', () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: machine(3), idleMs: 1_000, clock, name: 'tenants' });
    const a = r.get('a');
    expect(issuesOf(() => r.reconfigure({ defaults: machine(-1), idleMs: 5_000 }))).toEqual([{ path: 'defaults.threshold', message: 'expected an integer >= 0' }]);
    expect(issuesOf(() => r.reconfigure({ defaults: machine(5), idleMs: 0 }))).toEqual([{ path: 'idleMs', message: 'expected a number greater than 0' }]);
    expect(() => r.reconfigure({ defaults: machine(5), idleMs: 0 })).toThrow(/^invalid tenants options/);
    // A registry has no bound on its keys but idleMs.
    expect(issuesOf(() => r.reconfigure({ defaults: machine(5), maxKeys: 10 } as never))).toEqual([{ path: 'maxKeys', message: 'unknown option' }]);
    expect(r.idleMs).toBe(1_000);
    fail(a, 3);
    expect(a.state).toBe('open');
    fail(r.get('b'), 3);
    expect(r.peek('b')!.state).toBe('open');
  });
});
