import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hedge, type ExecutionContext } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

interface Plan {
  delayMs: number;
  attempts: { latency: number; ok: boolean }[];
}

/** What hedging must do with these attempts, event by event; `undefined` when two events tie. */
function model(plan: Plan): { winner: number | undefined; at: number; starts: number[] } | undefined {
  const max = plan.attempts.length;
  const starts: number[] = [0];
  let timer = plan.delayMs;
  const done = new Set<number>();
  for (;;) {
    let next = Infinity;
    let who = -1;
    let tie = false;
    for (let i = 0; i < starts.length; i++) {
      if (done.has(i)) continue;
      const t = starts[i]! + plan.attempts[i]!.latency;
      if (t === next) tie = true;
      if (t < next) [next, who, tie] = [t, i, false];
    }
    const timerDue = starts.length < max ? timer : Infinity;
    if (tie || timerDue === next) return undefined;
    if (timerDue < next) {
      starts.push(timerDue);
      timer = timerDue + plan.delayMs;
      continue;
    }
    done.add(who);
    if (plan.attempts[who]!.ok) return { winner: who + 1, at: next, starts };
    if (starts.length < max) {
      starts.push(next);
      timer = next + plan.delayMs;
    } else if (done.size === starts.length) return { winner: undefined, at: next, starts };
  }
}

describe('hedge (property)', () => {
  it('answers as the event-by-event model says, aborts the losers, and leaves nothing behind', async () => {
    const plans = fc.record({
      delayMs: fc.integer({ min: 1, max: 50 }),
      attempts: fc.array(fc.record({ latency: fc.integer({ min: 1, max: 200 }), ok: fc.boolean() }), { minLength: 2, maxLength: 5 }),
    });
    await fc.assert(
      fc.asyncProperty(plans, async (plan) => {
        const expected = model(plan);
        fc.pre(expected !== undefined);
        const clock = new TestClock(START);
        const signals: AbortSignal[] = [];
        const outcome = hedge({ delayMs: plan.delayMs, maxHedged: plan.attempts.length - 1, clock }).execute(
          (ctx: ExecutionContext) => {
            const i = ctx.attempt - 1;
            signals.push(ctx.signal);
            const a = plan.attempts[i]!;
            return new Promise<number>((resolve, reject) => {
              const h = clock.setTimeout(() => (a.ok ? resolve(i + 1) : reject(new Error(String(i + 1)))), a.latency);
              ctx.signal.addEventListener('abort', () => {
                clock.clearTimeout(h);
                reject(ctx.signal.reason);
              });
            });
          },
        );
        let settledAt = -1;
        const result = outcome.then(
          (v) => ((settledAt = clock.now() - START), { ok: true, v }),
          (e: Error) => ((settledAt = clock.now() - START), { ok: false, v: Number(e.message) }),
        );
        await clock.advance(2_000);
        const r = await result;
        expect(settledAt).toBe(expected!.at);
        expect(signals.length).toBe(expected!.starts.length);
        expect(signals.length).toBeLessThanOrEqual(plan.attempts.length);
        if (expected!.winner !== undefined) {
          expect(r).toEqual({ ok: true, v: expected!.winner });
          // every other attempt still running was aborted
          signals.forEach((s, i) => {
            const pendingAtWin = expected!.starts[i]! + plan.attempts[i]!.latency > expected!.at;
            if (i + 1 !== expected!.winner) expect(s.aborted).toBe(pendingAtWin);
          });
          expect(signals[expected!.winner - 1]!.aborted).toBe(false);
        } else expect(r.ok).toBe(false);
        expect(clock.pendingTimers).toBe(0);
      }),
      { numRuns: runs(300) },
    );
  });
});
