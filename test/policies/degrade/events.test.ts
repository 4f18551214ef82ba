import { describe, expect, it } from 'vitest';
import type { PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { decisionTree, degrade } from '../../../policies/degrade/index.js';

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

  it('no event when the decision lets the call through', async () => {
    const d = degrade({ when: () => false, to: () => 'cached', signals: { cpu: 0 }, clock: new TestClock(T0) });
    const seen = degraded(d);
    expect(await d.execute(() => Promise.resolve('live'))).toBe('live');
    expect(seen).toEqual([]);
  });
});
