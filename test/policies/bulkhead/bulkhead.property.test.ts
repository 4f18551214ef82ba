import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bulkhead, isBulkheadRejectedError } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

const call = fc.record({
  at: fc.integer({ min: 0, max: 100 }),
  dur: fc.integer({ min: 0, max: 60 }),
  abortAfter: fc.option(fc.integer({ min: 0, max: 80 }), { nil: undefined }),
  fail: fc.boolean(),
});

type CallPlan = { at: number; dur: number; abortAfter: number | undefined; fail: boolean };

/** What became of one call, and what was running and waiting when it arrived (counted by the test, not read from the bulkhead). */
interface Seen {
  started: boolean;
  rejected: boolean;
  /** Rejected with its own caller's abort reason. */
  abandoned: boolean;
  runningBefore: number;
  waitingBefore: number;
}

/** Runs the calls through `bulkhead({ limit, queue })`; each operation ignores its signal, so a slot stays held until it settles. */
async function drive(limit: number, queue: number, calls: CallPlan[]) {
  const clock = new TestClock(START);
  const b = bulkhead({ limit, queue, clock });
  let running = 0;
  let waiting = 0;
  let peak = 0;
  let peakQueued = 0;
  const queuedOrder: number[] = [];
  const startOrder: number[] = [];
  const signals: AbortSignal[] = [];
  const settled: Promise<unknown>[] = [];
  const seen: Seen[] = [];
  calls.forEach((c, i) => {
    clock.setTimeout(() => {
      const ac = new AbortController();
      signals.push(ac.signal);
      if (c.abortAfter !== undefined) clock.setTimeout(() => ac.abort(new Error('abort')), c.abortAfter);
      const s: Seen = { started: false, rejected: false, abandoned: false, runningBefore: running, waitingBefore: waiting };
      seen[i] = s;
      waiting++;
      const before = b.queued;
      const p = b.execute(
        async () => {
          s.started = true;
          waiting--;
          startOrder.push(i);
          running++;
          peak = Math.max(peak, running);
          await new Promise<void>((r) => clock.setTimeout(r, c.dur));
          running--;
          if (c.fail) throw new Error('fail');
        },
        { signal: ac.signal },
      );
      if (b.queued > before) queuedOrder.push(i);
      peakQueued = Math.max(peakQueued, b.queued);
      settled.push(
        p.catch((e: unknown) => {
          if (s.started) return;
          waiting--;
          if (isBulkheadRejectedError(e)) s.rejected = true;
          else if (e === ac.signal.reason) s.abandoned = true;
          else throw e;
        }),
      );
    }, c.at);
  });
  await clock.runAll();
  await Promise.all(settled);
  expect(b.executing).toBe(0);
  expect(b.queued).toBe(0);
  expect(clock.pendingTimers).toBe(0);
  for (const s of signals) expect(getEventListeners(s, 'abort')).toHaveLength(0);
  return { seen, peak, peakQueued, queuedOrder, startOrder };
}

/** limit, queue, calls */
const plans = [fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 5 }), fc.array(call, { maxLength: 40 })] as const;

describe('bulkhead (properties)', () => {
  it('never runs more than limit, never queues more than queue, starts queued calls in arrival order, leaves nothing behind', async () => {
    await fc.assert(
      fc.asyncProperty(...plans, async (limit, queue, calls) => {
        const { peak, peakQueued, queuedOrder, startOrder } = await drive(limit, queue, calls);
        expect(peak).toBeLessThanOrEqual(limit);
        expect(peakQueued).toBeLessThanOrEqual(queue);
        const startedFromQueue = startOrder.filter((i) => queuedOrder.includes(i));
        expect(startedFromQueue).toEqual(queuedOrder.filter((i) => startedFromQueue.includes(i)));
      }),
      { numRuns: runs(150) },
    );
  });

  it('runs up to limit at once: rejects only when limit run and queue wait, never leaves a free slot with a waiter, and runs every call it kept', async () => {
    await fc.assert(
      fc.asyncProperty(...plans, async (limit, queue, calls) => {
        const { seen } = await drive(limit, queue, calls);
        seen.forEach((s, i) => {
          if (s.waitingBefore > 0) expect(s.runningBefore, `call ${i} arrived while a call waited beside a free slot`).toBe(limit);
          if (s.rejected) expect([s.runningBefore, s.waitingBefore], `call ${i} rejected with room`).toEqual([limit, queue]);
          // a call is run unless the bulkhead was full or its caller gave up while it waited
          expect(s.started || s.rejected || s.abandoned, `call ${i} neither ran nor was refused`).toBe(true);
        });
        if (calls.length > 0) expect(seen.filter((s) => s.started).length, 'the first call runs').toBeGreaterThan(0);
      }),
      { numRuns: runs(150) },
    );
  });
});
