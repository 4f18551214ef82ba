import { describe, expect, it } from 'vitest';
import { OverloadedError } from '../../../lib/errors.js';
import type { PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { loadShedder } from '../../../policies/load-shedder/index.js';

const T0 = 1_700_000_000_000;

describe('ShedEvent', () => {
  it('a drop reports the CPU at the decision, the calls in flight and what could be carried', () => {
    const clock = new TestClock(T0);
    const state = { cpu: 0 };
    const s = loadShedder({ cpu: () => state.cpu, clock, name: 'api' });
    // cold: everything is admitted; ten failures settle, so the moving average of calls in flight climbs
    const held = Array.from({ length: 100 }, () => s.allow());
    for (const p of held.slice(0, 10)) p.failure();
    const seen: PolicyEvent[] = [];
    s.events$.subscribe((e) => {
      if (e.type === 'shed') seen.push(e);
    });
    state.cpu = 0.9; // at the threshold: hot, overload factor 1
    expect(() => s.allow()).toThrow(OverloadedError);
    // nothing has passed yet, so what can be carried is its floor of one call
    expect(seen).toEqual([{ type: 'shed', policy: 'api', cpu: 0.9, inFlight: 90, maxInFlight: 1 }]);
  });

  it('no event while CPU is cool', () => {
    const s = loadShedder({ cpu: 0.2, clock: new TestClock(T0) });
    const seen: PolicyEvent[] = [];
    s.events$.subscribe((e) => {
      if (e.type === 'shed') seen.push(e);
    });
    const held = Array.from({ length: 50 }, () => s.allow());
    for (const p of held.slice(0, 10)) p.failure();
    s.allow().success();
    expect(seen).toEqual([]);
  });
});
