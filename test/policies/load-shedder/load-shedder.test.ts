import { describe, expect, it } from 'vitest';
import { ConfigError, loadShedder, OverloadedError, policy, type LoadShedderPolicy } from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { issuesOf } from '../../helpers/config-issues.js';

const START = 1_700_000_000_000;

describe('loadShedder', () => {
  it('never sheds while CPU is under the threshold, however many calls are in flight', () => {
    const clock = new TestClock(START);
    const s = loadShedder({ cpu: 0.5, clock });
    const permits = Array.from({ length: 1_000 }, () => s.allow());
    expect(s.inFlight).toBe(1_000);
    for (const p of permits) p.success();
    expect(s.inFlight).toBe(0);
  });

  it('sheds when hot and in-flight calls exceed what throughput × latency can carry, and cools off', async () => {
    const clock = new TestClock(START);
    let cpu = 0.5;
    const s = loadShedder({ cpu: () => cpu, cpuThreshold: 0.9, windowMs: 5_000, buckets: 50, clock });
    // steady state: 100 ms buckets, 2 calls pass per bucket, each taking 50 ms → capacity 2 × 50 / 100 = 1 in flight
    for (let b = 0; b < 20; b++) {
      const a = s.allow();
      const c = s.allow();
      await clock.advance(50);
      a.success();
      c.success();
      await clock.advance(50);
    }
    cpu = 0.95; // overload factor (1 − 0.95) / (1 − 0.9) = 0.5 → carry 0.5
    const held = [s.allow(), s.allow(), s.allow()];
    // in flight 3 > 0.5, but the moving average of in-flight calls is still low: admitted
    expect(s.inFlight).toBe(3);
    // raise the moving average: many calls settle while many are in flight
    const more = Array.from({ length: 40 }, () => s.allow());
    for (const p of more.splice(0, 20)) p.failure();
    expect(() => s.allow()).toThrow(OverloadedError);
    cpu = 0.5; // cooled CPU, but still within the 1 s cool-off of the drop
    expect(() => s.allow()).toThrow(OverloadedError);
    await clock.advance(1_000);
    expect(() => s.allow().success()).not.toThrow();
    for (const p of [...held, ...more]) p.success();
  });

  it('through execute: failures and caller cancellations leave the in-flight count', async () => {
    const clock = new TestClock(START);
    const s = loadShedder({ cpu: 0, clock });
    await expect(s.execute(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    const ac = new AbortController();
    const p = policy({ clock }).use(s).execute(() => new Promise(() => {}), { signal: ac.signal });
    expect(s.inFlight).toBe(1);
    ac.abort();
    await expect(p).rejects.toBe(ac.signal.reason);
    expect(s.inFlight).toBe(0);
  });

  it('rejects bad options', () => {
    expect(() => loadShedder({ cpuThreshold: 1 })).toThrow(ConfigError);
    expect(() => loadShedder({ buckets: 0 })).toThrow(/buckets/);
    expect(() => loadShedder({ windowMs: -5 })).toThrow(/windowMs/);
  });
});

type Crit = 'critical' | 'default' | 'sheddable';

/** Teaches `s` a capacity of 10 calls in flight: 20 buckets of 100 ms, each with 20 passes of 50 ms. */
async function measureCapacity(s: LoadShedderPolicy, clock: TestClock): Promise<void> {
  for (let b = 0; b < 20; b++) {
    const ps = Array.from({ length: 20 }, () => s.allow());
    await clock.advance(50);
    for (const p of ps) p.success();
    await clock.advance(50);
  }
}

describe('loadShedder by criticality', () => {
  /** A shedder that has measured a capacity of 10 calls in flight (20 passes of 50 ms per 100 ms bucket), with CPU at its threshold. */
  async function warmed(more: object = {}) {
    const clock = new TestClock(START);
    let cpu = 0.5;
    const s = loadShedder({ cpu: () => cpu, cpuThreshold: 0.9, clock, ...more });
    await measureCapacity(s, clock);
    cpu = 0.9;
    return Object.assign(s, { setCpu: (v: number) => (cpu = v) });
  }

  /** Offers calls of random criticality as load climbs (3 arrive, 2 leave per step); which were dropped, in order. */
  function ramp(s: ReturnType<typeof loadShedder>, random: () => number, steps: number): Crit[] {
    const dropped: Crit[] = [];
    const held: { failure(): void }[] = [];
    for (let i = 0; i < steps; i++) {
      for (let k = 0; k < 3; k++) {
        const r = random();
        const c: Crit = r < 0.3 ? 'critical' : r < 0.6 ? 'default' : 'sheddable';
        try {
          held.push(s.allow({ meta: { criticality: c } }));
        } catch (e) {
          if (!(e instanceof OverloadedError)) throw e;
          dropped.push(c);
        }
      }
      for (const p of held.splice(0, 2)) p.failure();
    }
    for (const p of held) p.failure();
    return dropped;
  }

  it('under overload drops sheddable calls before any critical one', async () => {
    const dropped = ramp(await warmed(), seededRandom(3), 60);
    expect(dropped[0]).toBe('sheddable');
    expect(dropped.filter((c) => c === 'sheddable').length).toBeGreaterThan(0);
    const firstCritical = dropped.indexOf('critical');
    expect(firstCritical === -1 || dropped.indexOf('sheddable') < firstCritical).toBe(true);
  });

  it('with a reserve per criticality drops sheddable first, then default, then critical', async () => {
    const dropped = ramp(await warmed({ reserve: { default: 0.2, sheddable: 0.5 } }), seededRandom(3), 60);
    const first = (c: Crit) => dropped.indexOf(c);
    expect(first('sheddable')).toBe(0);
    expect(first('default')).toBeGreaterThan(first('sheddable'));
    // Default and sheddable calls carry the whole overload: critical ones are never dropped.
    expect(first('critical')).toBe(-1);
  });

  it('drops a sheddable call past (1 − reserve) of the capacity while admitting a critical one, and says so in the event', async () => {
    const s = await warmed({ reserve: { sheddable: 0.5 } });
    const events: unknown[] = [];
    s.events$.subscribe((e) => e.type === 'shed' && events.push(e));
    // While cool, lift the moving average of calls in flight: 60 in flight, 52 of them settle; 8 stay.
    s.setCpu(0.5);
    const held = Array.from({ length: 60 }, () => s.allow());
    for (const p of held.splice(0, 52)) p.failure();
    s.setCpu(0.9);
    expect(s.inFlight).toBe(8);
    // 8 in flight: over half of the capacity of 10, under all of it.
    expect(() => s.allow({ meta: { criticality: 'sheddable' } })).toThrow(OverloadedError);
    expect(events).toEqual([expect.objectContaining({ type: 'shed', criticality: 'sheddable', inFlight: 8, maxInFlight: 5 })]);
    held.push(s.allow({ meta: { criticality: 'critical' } }), s.allow({ meta: { criticality: 'default' } }), s.allow());
    expect(s.inFlight).toBe(11);
    expect(() => s.allow({ meta: { criticality: 'critical' } })).toThrow(OverloadedError);
    expect(events[1]).toEqual(expect.objectContaining({ type: 'shed', criticality: 'critical', maxInFlight: 10 }));
    expect(() => s.allow()).toThrow(OverloadedError);
    expect(events[2]).toEqual(expect.objectContaining({ maxInFlight: 10 }));
    expect(events[2]).not.toHaveProperty('criticality');
    for (const p of held) p.failure();
  });

  it('refuses a bad reserve naming the option and the rule', () => {
    let error: unknown;
    try {
      loadShedder({ reserve: { default: 0.6, sheddable: 0.5 } });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toEqual([{ path: 'reserve.sheddable', message: 'must be >= default: sheddable calls are shed first' }]);
    expect(() => loadShedder({ reserve: { sheddable: 1 } })).toThrow('reserve.sheddable: expected a number in [0, 1)');
  });
});

describe('LoadShedderPolicy.reconfigure', () => {
  /** A shedder that has measured a capacity of 10 calls in flight, then 8 calls held with a high moving average, CPU at 0.7. */
  async function loaded(more: object = {}) {
    const clock = new TestClock(START);
    let cpu = 0.5;
    const s = loadShedder({ cpu: () => cpu, cpuThreshold: 0.9, clock, ...more });
    await measureCapacity(s, clock);
    const held = Array.from({ length: 60 }, () => s.allow());
    for (const p of held.splice(0, 52)) p.failure();
    cpu = 0.7;
    return { s, clock, held, setCpu: (v: number) => (cpu = v) };
  }

  it('applies a new cpuThreshold and reserve at once, keeping the window and the calls in flight', async () => {
    const { s, held } = await loaded();
    const events: unknown[] = [];
    s.events$.subscribe((e) => e.type === 'shed' && events.push(e));
    // CPU 0.7 is under the threshold 0.9: nothing is shed.
    s.allow({ meta: { criticality: 'sheddable' } }).failure();
    s.reconfigure({ cpuThreshold: 0.7, reserve: { sheddable: 0.5 } });
    expect(s.cpuThreshold).toBe(0.7);
    expect(s.inFlight).toBe(8);
    // Now at the threshold: a sheddable call may use half of the capacity of 10 measured before the reload.
    expect(() => s.allow({ meta: { criticality: 'sheddable' } })).toThrow(OverloadedError);
    expect(events).toEqual([expect.objectContaining({ inFlight: 8, maxInFlight: 5 })]);
    held.push(s.allow({ meta: { criticality: 'critical' } }));
    for (const p of held) p.failure();
  });

  it('runs a cool-off under way to the new coolOffMs', async () => {
    const { s, clock, held, setCpu } = await loaded({ reserve: { sheddable: 0.5 } });
    setCpu(0.9);
    expect(() => s.allow({ meta: { criticality: 'sheddable' } })).toThrow(OverloadedError);
    setCpu(0.5);
    s.reconfigure({ reserve: { sheddable: 0.5 }, coolOffMs: 3_000 });
    expect(s.coolOffMs).toBe(3_000);
    // 2 s after the drop: past the old 1 s cool-off, within the new 3 s one.
    await clock.advance(2_000);
    expect(() => s.allow({ meta: { criticality: 'sheddable' } })).toThrow(OverloadedError);
    await clock.advance(3_000);
    held.push(s.allow({ meta: { criticality: 'sheddable' } }));
    for (const p of held) p.failure();
  });

  it('refuses another windowMs or buckets, naming each, and changes nothing', () => {
    const s = loadShedder({ cpu: 0.5, windowMs: 2_000, buckets: 20, clock: new TestClock(START) });
    s.reconfigure({ cpuThreshold: 0.5, windowMs: 2_000, buckets: 20 });
    expect(s.cpuThreshold).toBe(0.5);
    const refusal = (options: Parameters<typeof s.reconfigure>[0]) => issuesOf(() => s.reconfigure(options));
    const why = 'cannot change in place (it shapes the window); build a new load shedder';
    expect(refusal({ cpuThreshold: 0.6, windowMs: 1_000, buckets: 20 })).toEqual([{ path: 'windowMs', message: why }]);
    // Omitted, they take their defaults (5 s in 50 buckets), as at construction: both differ.
    expect(refusal({ cpuThreshold: 0.6 })).toEqual([
      { path: 'windowMs', message: why },
      { path: 'buckets', message: why },
    ]);
    expect(s.cpuThreshold).toBe(0.5);
  });

  it('refuses a bad option naming it and the rule, and changes nothing', () => {
    const s = loadShedder({ cpu: 0.5, clock: new TestClock(START) });
    expect(issuesOf(() => s.reconfigure({ cpuThreshold: 1, coolOffMs: 5_000 }))).toEqual([{ path: 'cpuThreshold', message: 'expected a number in (0, 1)' }]);
    expect(s.cpuThreshold).toBe(0.9);
    expect(s.coolOffMs).toBe(1_000);
  });
});
