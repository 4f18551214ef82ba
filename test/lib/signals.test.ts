import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { healthOf, policy, type PolicyEvent } from '../../api/index.js';
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

describe('healthOf: successes over counted outcomes', () => {
  it('ignores rejected, fallback and non-outcome events; a timeout counts as a failure; 10 s window by default', async () => {
    const clock = new TestClock(START);
    const events$ = new Subject<PolicyEvent>();
    const health = healthOf({ events$ }, { clock });
    const outcome = (result: 'success' | 'failure' | 'rejected' | 'timeout' | 'fallback'): void =>
      events$.next({ type: 'outcome', policy: 'p', result, durationMs: 1 });
    outcome('rejected');
    outcome('fallback');
    events$.next({ type: 'degraded', policy: 'p', action: 'custom', signals: {} });
    expect(health.value()).toBe(1); // nothing counted yet
    outcome('success');
    outcome('timeout');
    outcome('success');
    outcome('failure');
    expect(health.value()).toBe(0.5); // 2 of 4
    outcome('rejected');
    outcome('fallback');
    expect(health.value()).toBe(0.5);
    await clock.advance(9_999);
    expect(health.value()).toBe(0.5);
    await clock.advance(1);
    expect(health.value()).toBe(1); // the window has passed
    health.dispose();
    expect(events$.observed).toBe(false);
  });
});

describe('processCpu: sampling on the clock', () => {
  /** Spins until this process has used at least `ms` of CPU. */
  function burn(ms: number): void {
    const start = process.cpuUsage();
    for (;;) {
      const u = process.cpuUsage(start);
      if ((u.user + u.system) / 1_000 >= ms) return;
    }
  }

  it('samples at most once per sampleMs (1 s by default), exactly at the boundary', async () => {
    const clock = new TestClock(START);
    const cpu = processCpu({ clock });
    burn(20);
    await clock.advance(999);
    expect(cpu.value()).toBe(0); // not yet sampled
    await clock.advance(1);
    const v = cpu.value();
    expect(v).toBeGreaterThan(0); // ≥ 20 ms of CPU over 1000 ms
    expect(v).toBeLessThanOrEqual(1);
    // between samples the last value is returned, however much CPU is used
    burn(20);
    expect(cpu.value()).toBe(v);
    await clock.advance(999);
    expect(cpu.value()).toBe(v);
  });

  it('without a clock it reads the wall clock: 0 before its first sample', () => {
    expect(processCpu().value()).toBe(0);
    expect(processCpu({ sampleMs: 60_000 }).value()).toBe(0);
  });

  it('caps at 1 when more CPU was used than clock time passed', async () => {
    const clock = new TestClock(START);
    const cpu = processCpu({ clock, sampleMs: 5 });
    burn(15);
    await clock.advance(5);
    expect(cpu.value()).toBe(1);
  });
});
