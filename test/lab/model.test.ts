import { describe, expect, it } from 'vitest';
import { FAULT_NAMES, FOCUSED_NAMES, SCENARIO_NAMES, SCENARIOS } from '../../lab/model.js';

const before = 10_000;
const during = 45_000;
const after = 90_000;

describe('the scenarios', () => {
  it('are the five faults, then the focused ones, each under its own name', () => {
    expect(SCENARIO_NAMES).toEqual([...FAULT_NAMES, ...FOCUSED_NAMES]);
    for (const name of SCENARIO_NAMES) expect(SCENARIOS[name].name).toBe(name);
  });

  it('the five faults have no second class, resubmits or sick method: the model they were published on', () => {
    for (const name of FAULT_NAMES) {
      const s = SCENARIOS[name];
      expect([s.second, s.resubmit, s.sickMethod, s.writes, s.items, s.hangs, s.networkDelayMs, s.measures], name).toEqual(Array(8).fill(undefined));
    }
  });

  it('a hanging outage hangs during the fault only, and C is otherwise healthy', () => {
    const s = SCENARIOS.hanging;
    expect([before, during, after].map((t) => s.hangs!(t))).toEqual([false, true, false]);
    expect([s.down(during), s.slowdown(during), s.errorRate(during), s.workers(during)]).toEqual([false, 1, 0, 6]);
    expect(s.second).toEqual({ perSecond: 100, method: 'get', target: 'D' });
  });

  it('the avalanche slows C ×50 during the fault with B’s other traffic to D', () => {
    const s = SCENARIOS.avalanche;
    expect([before, during, after].map((t) => s.slowdown(t))).toEqual([1, 50, 1]);
    expect(s.second?.target).toBe('D');
    expect(s.measures).toEqual(['healthyRealInFault']);
  });

  it('one sick method: the fault names the method A calls, the second class calls another of the same C', () => {
    const s = SCENARIOS.methodSick;
    expect(s.down(during)).toBe(true);
    expect(s.sickMethod).toBe('get');
    expect(s.second).toEqual({ perSecond: 50, method: 'list', target: 'C' });
  });

  it('double submits: writes with a key each, 30 % sent again 100 ms later, 30 % errors during the fault', () => {
    const s = SCENARIOS.duplicates;
    expect(s.writes).toBe(true);
    expect(s.resubmit).toEqual({ share: 0.3, afterMs: 100 });
    expect([before, during, after].map((t) => s.errorRate(t))).toEqual([0, 0.3, 0]);
  });

  it('a cold cache: the hard outage, reads over 100,000 items', () => {
    const s = SCENARIOS.coldCache;
    expect([before, during, after].map((t) => s.down(t))).toEqual([false, true, false]);
    expect(s.items).toBe(100_000);
  });

  it('a network delay: 250 ms on the way to C during the fault, C itself healthy', () => {
    const s = SCENARIOS.networkDelay;
    expect([before, during, after].map((t) => s.networkDelayMs!(t))).toEqual([0, 250, 0]);
    expect([s.down(during), s.slowdown(during), s.errorRate(during), s.workers(during)]).toEqual([false, 1, 0, 6]);
  });
});
