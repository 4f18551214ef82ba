import { describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { hedge } from '../../../policies/hedge/index.js';
import { after } from '../../helpers/track.js';
import { collect, own } from '../../helpers/events.js';

const T0 = 1_700_000_000_000;

describe('hedge events', () => {
  it('hedged: the attempt that starts and the delay it waited; won: the attempt whose result was taken', async () => {
    const clock = new TestClock(T0);
    const h = hedge({ delayMs: 30, clock, name: 'reads' });
    const seen = own(h);
    const run = h.execute((ctx) => new Promise((r) => clock.setTimeout(() => r(`attempt ${ctx.attempt}`), ctx.attempt === 1 ? 100 : 10)));
    await clock.advance(40);
    expect(await run).toBe('attempt 2');
    expect(seen).toEqual([
      { type: 'hedged', policy: 'reads', attempt: 2, delayMs: 30 },
      { type: 'won', policy: 'reads', attempt: 2 },
    ]);
  });

  it('a hedge that a failure starts reports a delay of 0', async () => {
    const clock = new TestClock(T0);
    const h = hedge({ delayMs: 1_000, maxHedged: 2, clock });
    const seen = own(h);
    const run = h.execute((ctx) => (ctx.attempt === 1 ? Promise.reject(new Error('fast failure')) : Promise.resolve('second')));
    await clock.advance(0);
    expect(await run).toBe('second');
    expect(seen).toEqual([
      { type: 'hedged', policy: 'hedge', attempt: 2, delayMs: 0 },
      { type: 'won', policy: 'hedge', attempt: 2 },
    ]);
  });

  it('a primary that answers in time wins alone; a call every attempt fails has no winner', async () => {
    const clock = new TestClock(T0);
    const h = hedge({ delayMs: 30, clock });
    const seen = own(h);
    expect(await h.execute(() => Promise.resolve('primary'))).toBe('primary');
    expect(seen).toEqual([{ type: 'won', policy: 'hedge', attempt: 1 }]);
    seen.length = 0;
    const boom = new Error('boom');
    await expect(h.execute(() => Promise.reject(boom))).rejects.toBe(boom);
    expect(seen).toEqual([{ type: 'hedged', policy: 'hedge', attempt: 2, delayMs: 0 }]);
  });

  it('reports every event in full: hedged by timer and by failure, won, outcome', async () => {
    const clock = new TestClock(T0);
    const h = hedge({ delayMs: 100, maxHedged: 2, clock, name: 'replicas' });
    const events = collect(h);
    const r = h.execute((ctx) => {
      if (ctx.attempt === 1) return after(clock, 1_000, 'slow', ctx);
      if (ctx.attempt === 2) return after(clock, 10, 0, ctx).then(() => Promise.reject(new Error('x')));
      return after(clock, 30, 'third', ctx);
    });
    await clock.advance(140);
    await expect(r).resolves.toBe('third');
    expect(events).toEqual([
      { type: 'hedged', policy: 'replicas', attempt: 2, delayMs: 100 },
      { type: 'hedged', policy: 'replicas', attempt: 3, delayMs: 0 },
      { type: 'won', policy: 'replicas', attempt: 3 },
      { type: 'outcome', policy: 'replicas', result: 'success', durationMs: 140, error: undefined },
    ]);
    expect(clock.pendingTimers).toBe(0);
  });
});
