import { describe, expect, it } from 'vitest';
import { ConfigError, loadShedder, OverloadedError, policy } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';

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
