import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { decisionTree, degrade } from '../../../policies/degrade/index.js';
import { collect } from '../../helpers/breakers.js';

const T0 = 1_700_000_000_000;

function degraded(p: { events$: import('rxjs').Observable<PolicyEvent> }): PolicyEvent[] {
  const seen: PolicyEvent[] = [];
  p.events$.subscribe((e) => {
    if (e.type === 'degraded') seen.push(e);
  });
  return seen;
}

describe('DegradedEvent', () => {
  it('a predicate’s decision is the action custom, with every signal value it saw', async () => {
    const clock = new TestClock(T0);
    const d = degrade({ when: (s) => s.queue! > 5, to: () => 'cached', signals: { cpu: 0.25, health: 0.5, queue: () => 9 }, rateWindowMs: 1_000, clock, name: 'page' });
    const seen = degraded(d);
    expect(await d.execute(() => Promise.resolve('live'))).toBe('cached');
    // its own rate: one call in a 1 s window
    expect(seen).toEqual([{ type: 'degraded', policy: 'page', action: 'custom', signals: { qps: 1, cpu: 0.25, health: 0.5, queue: 9 } }]);
  });

  it('a decision tree’s decision names the tree’s action', async () => {
    const clock = new TestClock(T0);
    // over qpsHigh: CPU over cpuHigh sheds non-core calls, health under healthyMin serves from cache
    const hot = degrade({ when: decisionTree({ qpsHigh: 100, qpsMid: 50, cpuHigh: 0.8 }), to: (info) => info.action, signals: { qps: 150, cpu: 0.95 }, clock });
    const sick = degrade({ when: decisionTree({ qpsHigh: 100, qpsMid: 50, healthyMin: 0.9 }), to: (info) => info.action, signals: { qps: 150, cpu: 0, health: 0.5 }, clock });
    const seen = degraded(hot);
    const seenSick = degraded(sick);
    expect(await hot.execute(() => Promise.resolve('live'))).toBe('shedNonCore');
    expect(await sick.execute(() => Promise.resolve('live'))).toBe('serveFromCache');
    expect(seen).toEqual([{ type: 'degraded', policy: 'degrade', action: 'shedNonCore', signals: { qps: 150, cpu: 0.95, health: 1 } }]);
    expect(seenSick).toEqual([{ type: 'degraded', policy: 'degrade', action: 'serveFromCache', signals: { qps: 150, cpu: 0, health: 0.5 } }]);
  });

  it('emits degraded and outcome events with every field, durationMs on the clock', async () => {
    const clock = new TestClock(T0);
    const d = degrade({
      when: (s) => s.cpu! > 0.5,
      signals: { cpu: () => 0.75, qps: 42, health: 0.5, depth: 7 },
      to: () => new Promise<string>((resolve) => clock.setTimeout(() => resolve('cached'), 30)),
      clock,
    });
    const events = collect(d);
    const p = d.execute(() => 'real');
    await clock.advance(30);
    expect(await p).toBe('cached');
    expect(events).toEqual([
      { type: 'degraded', policy: 'degrade', action: 'custom', signals: { qps: 42, cpu: 0.75, health: 0.5, depth: 7 } },
      { type: 'outcome', policy: 'degrade', result: 'fallback', durationMs: 30 },
    ]);
  });

  it('a call it lets through emits no degraded event and reaches the operation', async () => {
    const clock = new TestClock(T0);
    const d = degrade({ when: decisionTree(), signals: { cpu: 0.99, qps: 6_000 }, to: () => 'cached', clock, name: 'x' });
    const events = collect(d);
    // qps 6000 and cpu 0.99: shed; now cool the same policy down through a tree with higher thresholds
    expect(await d.execute(() => 'real')).toBe('cached');
    expect(events.filter((e) => e.type === 'degraded')).toEqual([
      { type: 'degraded', policy: 'x', action: 'shedNonCore', signals: { qps: 6_000, cpu: 0.99, health: 1 } },
    ]);
    (d.decision as ReturnType<typeof decisionTree>).setThresholds({ qpsHigh: 10_000, qpsMid: 9_000 });
    events.length = 0;
    expect(await d.execute(() => 'real')).toBe('real');
    expect(events.filter((e) => e.type === 'degraded')).toEqual([]);
  });
});
