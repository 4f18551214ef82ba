import { describe, expect, it } from 'vitest';
import { healthOf, policy } from '../../api/index.js';
import { processCpu } from '../../lib/signals.js';
import { TestClock } from '../../lib/testing.js';

const START = 1_700_000_000_000;

describe('healthOf', () => {
  it("leaves the callers' own cancellations out: a client giving up says nothing of the dependency", async () => {
    const clock = new TestClock(START);
    const dependency = policy({ clock }).timeout(100);
    const health = healthOf(dependency, { clock, windowMs: 10_000 });
    await dependency.execute(() => 1);
    for (let i = 0; i < 3; i++) {
      const ac = new AbortController();
      const call = dependency.execute(() => new Promise(() => {}), { signal: ac.signal }).catch(() => 'gone');
      await clock.advance(10);
      ac.abort(new Error('client gone'));
      expect(await call).toBe('gone');
    }
    expect(health.value()).toBe(1);
    // a deadline passing does count
    const late = dependency.execute(() => new Promise(() => {})).catch(() => 'timed out');
    await clock.advance(100);
    expect(await late).toBe('timed out');
    expect(health.value()).toBe(0.5);
    health.dispose();
  });
});

describe('processCpu where the runtime has no process CPU figure', () => {
  it('reads 0 and never throws', async () => {
    const saved = process.cpuUsage;
    (process as { cpuUsage?: unknown }).cpuUsage = undefined;
    try {
      const clock = new TestClock();
      const cpu = processCpu({ sampleMs: 10, clock });
      await clock.advance(50);
      expect(cpu.value()).toBe(0);
    } finally {
      process.cpuUsage = saved;
    }
  });
});
