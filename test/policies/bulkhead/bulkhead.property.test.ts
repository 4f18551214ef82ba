import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bulkhead } from '../../../lib/index.js';
import { TestClock } from '../../../lib/testing.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

const call = fc.record({
  at: fc.integer({ min: 0, max: 100 }),
  dur: fc.integer({ min: 0, max: 60 }),
  abortAfter: fc.option(fc.integer({ min: 0, max: 80 }), { nil: undefined }),
  fail: fc.boolean(),
});

describe('bulkhead (properties)', () => {
  it('never runs more than limit, never queues more than queue, starts queued calls in arrival order, leaves nothing behind', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 5 }), fc.array(call, { maxLength: 40 }), async (limit, queue, calls) => {
        const clock = new TestClock(START);
        const b = bulkhead({ limit, queue, clock });
        let running = 0;
        let peak = 0;
        let peakQueued = 0;
        const queuedOrder: number[] = [];
        const startOrder: number[] = [];
        const signals: AbortSignal[] = [];
        const settled: Promise<unknown>[] = [];
        calls.forEach((c, i) => {
          clock.setTimeout(() => {
            const ac = new AbortController();
            signals.push(ac.signal);
            if (c.abortAfter !== undefined) clock.setTimeout(() => ac.abort(new Error('abort')), c.abortAfter);
            const before = b.queued;
            const p = b.execute(
              async () => {
                startOrder.push(i);
                running++;
                peak = Math.max(peak, running);
                // ignores its signal on purpose: the slot must stay held until it settles
                await new Promise<void>((r) => clock.setTimeout(r, c.dur));
                running--;
                if (c.fail) throw new Error('fail');
              },
              { signal: ac.signal },
            );
            if (b.queued > before) queuedOrder.push(i);
            peakQueued = Math.max(peakQueued, b.queued);
            settled.push(p.catch(() => undefined));
          }, c.at);
        });
        await clock.runAll();
        await Promise.all(settled);
        expect(peak).toBeLessThanOrEqual(limit);
        expect(peakQueued).toBeLessThanOrEqual(queue);
        const startedFromQueue = startOrder.filter((i) => queuedOrder.includes(i));
        expect(startedFromQueue).toEqual(queuedOrder.filter((i) => startedFromQueue.includes(i)));
        expect(b.executing).toBe(0);
        expect(b.queued).toBe(0);
        expect(clock.pendingTimers).toBe(0);
        for (const s of signals) expect(getEventListeners(s, 'abort')).toHaveLength(0);
      }),
      { numRuns: runs(150) },
    );
  });
});
