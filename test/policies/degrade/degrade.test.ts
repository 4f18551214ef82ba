import { BehaviorSubject, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConfigError, decisionTree, degrade, healthOf, policy, type DegradeInfo, type PolicyEvent } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

describe('degrade with the decision tree', () => {
  function setup(thresholds = {}) {
    const signals = { qps: 0, cpu: 0, health: 1 };
    const tree = decisionTree(thresholds);
    const clock = new TestClock(START);
    const answers: DegradeInfo[] = [];
    const d = degrade({
      when: tree,
      signals: { qps: () => signals.qps, cpu: () => signals.cpu, health: () => signals.health },
      to: (info) => {
        answers.push(info);
        return 'degraded' as const;
      },
      clock,
    });
    let calls = 0;
    const call = () =>
      d.execute(() => {
        calls++;
        return 'real';
      });
    return { signals, tree, d, answers, call, calls: () => calls };
  }

  it.each([
    [{ qps: 6_000, cpu: 0.9, health: 1 }, 'shedNonCore'],
    [{ qps: 6_000, cpu: 0.5, health: 0.8 }, 'serveFromCache'],
    [{ qps: 6_000, cpu: 0.5, health: 0.95 }, undefined],
    [{ qps: 3_000, cpu: 0.95, health: 1 }, 'limitAndSample'],
    [{ qps: 3_000, cpu: 0.9, health: 0.2 }, undefined],
    [{ qps: 1_000, cpu: 1, health: 0 }, undefined],
  ])('signals %j → %s', async (values, action) => {
    const s = setup();
    Object.assign(s.signals, values);
    const r = await s.call();
    if (action === undefined) {
      expect(r).toBe('real');
      expect(s.calls()).toBe(1);
    } else {
      expect(r).toBe('degraded');
      expect(s.calls()).toBe(0);
      expect(s.answers[0]).toEqual({ action, signals: { qps: values.qps, cpu: values.cpu, health: values.health } });
    }
  });

  it('thresholds swapped at run time apply to the next call', async () => {
    const s = setup();
    Object.assign(s.signals, { qps: 1_000, cpu: 0.95, health: 1 });
    expect(await s.call()).toBe('real');
    s.tree.setThresholds({ qpsHigh: 800, qpsMid: 500 });
    expect(await s.call()).toBe('degraded');
    expect(() => s.tree.setThresholds({ cpuHigh: 2 })).toThrow(ConfigError);
    expect(s.tree.thresholds.qpsHigh).toBe(800);
  });

  it('follows an Observable of thresholds, like a ConfigMap hot update', async () => {
    const updates = new BehaviorSubject({ qpsMid: 2_000 });
    const tree = decisionTree(updates);
    const d = degrade({ when: tree, signals: { qps: 1_000, cpu: 0.95 }, to: () => 'degraded' });
    expect(await d.execute(() => 'real')).toBe('real');
    updates.next({ qpsMid: 500 });
    expect(await d.execute(() => 'real')).toBe('degraded');
    tree.dispose();
    expect(updates.observed).toBe(false);
  });
});

describe('degrade signals', () => {
  it('measures its own request rate over the window when no qps signal is given', async () => {
    const clock = new TestClock(START);
    const seen: number[] = [];
    const d = degrade({
      when: (s) => (seen.push(s.qps!), false),
      signals: { cpu: 0 },
      rateWindowMs: 10_000,
      clock,
    to: () => null,
    });
    for (let i = 0; i < 50; i++) {
      await d.execute(() => 1);
      await clock.advance(100); // 10 calls a second for 5 s
    }
    // 50 calls in a 10 s window: 5 per second on the 50th call
    expect(seen.at(-1)).toBe(5);
    await clock.advance(10_000);
    await d.execute(() => 1);
    expect(seen.at(-1)).toBe(0.1);
  });

  it('reads downstream health from a policy’s outcomes and any Observable signal', async () => {
    const clock = new TestClock(START);
    const dependency = policy({ clock }).timeout(100);
    const health = healthOf(dependency, { clock, windowMs: 10_000 });
    const queueDepth = new Subject<number>();
    const decisions: Record<string, number>[] = [];
    const d = degrade({
      when: (s) => (decisions.push({ ...s }), s.health! < 0.5 || s.queue! > 10),
      signals: { health, queue: queueDepth, cpu: 0 },
      to: () => 'fallback',
      clock,
    });
    expect(health.value()).toBe(1);
    await dependency.execute(() => 1);
    for (let i = 0; i < 3; i++) await dependency.execute(() => Promise.reject(new Error('x'))).catch(() => undefined);
    expect(health.value()).toBe(0.25);
    expect(await d.execute(() => 'real')).toBe('fallback');
    queueDepth.next(3);
    await clock.advance(10_000);
    expect(health.value()).toBe(1);
    expect(await d.execute(() => 'real')).toBe('real');
    queueDepth.next(11);
    expect(await d.execute(() => 'real')).toBe('fallback');
    expect(decisions.map((s) => s.queue)).toEqual([0, 3, 11]);
    health.dispose();
    d.dispose();
    expect(queueDepth.observed).toBe(false);
  });

  it('emits degraded and outcome events', async () => {
    const d = degrade({ when: () => true, signals: { cpu: 0.5 }, to: () => 0, name: 'search' });
    const events: PolicyEvent[] = [];
    d.events$.subscribe((e) => events.push(e));
    await d.execute(() => 1);
    expect(events.map((e) => e.type)).toEqual(['degraded', 'outcome']);
    expect(events[0]).toMatchObject({ action: 'custom', policy: 'search' });
  });

  it('rejects bad options naming them', () => {
    expect(() => degrade({ when: 'tree' as never, to: () => 1 })).toThrow(/when/);
    expect(() => degrade({ when: () => true, to: 1 as never })).toThrow(/to/);
    expect(() => degrade({ when: () => true, to: () => 1, signals: { cpu: 'high' as never } })).toThrow(/signals.cpu/);
    expect(() => decisionTree({ qpsHigh: 100, qpsMid: 200 })).toThrow(/qpsHigh/);
    expect(() => decisionTree({ healthyMin: 1.5 })).toThrow(/healthyMin/);
  });
});
