import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRateLimitedError, leakyBucket, rateLimiter, slidingWindow, tokenBucket, type RateAlgorithm } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

/** One call of a run: when it arrived, when its operation started, whether the limiter refused it. */
interface Call {
  at: number;
  startedAt: number | undefined;
  refused: boolean;
  /** Calls the algorithm held waiting when this one arrived (leaky bucket only). */
  waitingBefore: number;
}

/** Calls arrive in groups at the given gaps; returns every call in arrival order, and the start times of admitted calls in start order. */
async function drive(algorithm: RateAlgorithm, arrivals: { gap: number; n: number; abortAfter?: number }[]) {
  const clock = new TestClock(START);
  const limiter = rateLimiter({ algorithm, clock });
  const starts: number[] = [];
  const calls: Call[] = [];
  const settled: Promise<unknown>[] = [];
  const signals: AbortSignal[] = [];
  for (const a of arrivals) {
    await clock.advance(a.gap);
    for (let i = 0; i < a.n; i++) {
      const ac = new AbortController();
      signals.push(ac.signal);
      if (a.abortAfter !== undefined) clock.setTimeout(() => ac.abort(), a.abortAfter);
      const waiting = (algorithm as { waiting?: number }).waiting ?? 0;
      const call: Call = { at: clock.now() - START, startedAt: undefined, refused: false, waitingBefore: waiting };
      calls.push(call);
      settled.push(
        limiter
          .execute(
            () => {
              call.startedAt = clock.now() - START;
              starts.push(call.startedAt);
            },
            { signal: ac.signal },
          )
          .catch((e: unknown) => {
            if (isRateLimitedError(e)) call.refused = true;
            else if (!ac.signal.aborted) throw e;
          }),
      );
    }
  }
  await clock.runAll();
  await Promise.all(settled);
  expect(clock.pendingTimers).toBe(0);
  for (const s of signals) expect(getEventListeners(s, 'abort')).toHaveLength(0);
  return { starts, calls };
}

const arrivals = fc.array(
  fc.record({ gap: fc.integer({ min: 0, max: 400 }), n: fc.integer({ min: 1, max: 6 }), abortAfter: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }) }),
  { maxLength: 60 },
);

/** Arrivals no caller aborts: every call is either admitted or refused. */
const steadyArrivals = fc.array(fc.record({ gap: fc.integer({ min: 0, max: 400 }), n: fc.integer({ min: 1, max: 6 }) }), { minLength: 1, maxLength: 60 });

describe('rate limiter algorithms (properties)', () => {
  it('tokenBucket admits at most rate × t + burst in every span', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0.5, max: 50, noNaN: true }), fc.integer({ min: 1, max: 8 }), arrivals, async (rate, burst, a) => {
        const { starts } = await drive(tokenBucket({ rate, burst }), a);
        let minA = Infinity;
        starts.forEach((t, k) => {
          const v = k - (rate * t) / 1000;
          minA = Math.min(minA, v);
          expect(v - minA + 1).toBeLessThanOrEqual(burst + 1e-6);
        });
      }),
      { numRuns: runs(100) },
    );
  });

  it('tokenBucket admits every call that rate × t + burst allows, at once', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0.5, max: 50, noNaN: true }), fc.integer({ min: 1, max: 8 }), steadyArrivals, async (rate, burst, a) => {
        const { calls } = await drive(tokenBucket({ rate, burst }), a);
        calls.forEach((c, q) => {
          if (!c.refused) {
            expect(c.startedAt, `call ${q} was admitted, so it runs on arrival`).toBe(c.at);
            return;
          }
          // refused only if admitting it would put more than rate × span + burst calls in some span ending now
          const admitted = calls.slice(0, q).filter((x) => !x.refused);
          const tight = admitted.some((first, j) => admitted.length - j + 1 > burst + (rate * (c.at - first.at)) / 1000 - 1e-6);
          expect(tight, `call ${q} at ${c.at} ms refused with ${admitted.length} admitted before`).toBe(true);
        });
        expect(calls[0]!.refused, 'a full bucket admits the first call').toBe(false);
      }),
      { numRuns: runs(100) },
    );
  });

  it('slidingWindow admits at most limit in any window', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 2_000 }), arrivals, async (limit, windowMs, a) => {
        const { starts } = await drive(slidingWindow({ limit, windowMs }), a);
        for (let i = limit; i < starts.length; i++) expect(starts[i]! - starts[i - limit]!).toBeGreaterThanOrEqual(windowMs);
      }),
      { numRuns: runs(100) },
    );
  });

  it('slidingWindow refuses a call only when limit calls were admitted within the last two windows, and runs the rest at once', async () => {
    // two windows, not one: a window kept as bucketed counts may refuse up to one bucket early
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 2_000 }), steadyArrivals, async (limit, windowMs, a) => {
        const { calls } = await drive(slidingWindow({ limit, windowMs }), a);
        calls.forEach((c, q) => {
          if (!c.refused) {
            expect(c.startedAt, `call ${q} was admitted, so it runs on arrival`).toBe(c.at);
            return;
          }
          const recent = calls.slice(0, q).filter((x) => !x.refused && x.at > c.at - 2 * windowMs).length;
          expect(recent, `call ${q} at ${c.at} ms refused`).toBeGreaterThanOrEqual(limit);
        });
        expect(calls.slice(0, limit).every((c) => !c.refused), 'the first limit calls are admitted').toBe(true);
      }),
      { numRuns: runs(100) },
    );
  });

  it('leakyBucket releases calls at least 1000 / rate ms apart, cancelled waiters included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 8 }), arrivals, async (rate, capacity, a) => {
        const { starts } = await drive(leakyBucket({ rate, capacity }), a);
        for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(1000 / rate - 1e-3); // epoch-ms floats carry ~1e-4 ms of noise
      }),
      { numRuns: runs(100) },
    );
  });

  it('leakyBucket refuses a call only when capacity calls wait, and releases every call it took within capacity + 1 intervals', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 8 }), steadyArrivals, async (rate, capacity, a) => {
        const interval = 1000 / rate;
        const { calls } = await drive(leakyBucket({ rate, capacity }), a);
        calls.forEach((c, q) => {
          if (!c.refused) {
            expect(c.startedAt, `call ${q} was taken, so it is released`).toBeDefined();
            expect(c.startedAt! - c.at, `call ${q} waited too long`).toBeLessThanOrEqual((capacity + 1) * interval + 1e-3);
            return;
          }
          expect(c.waitingBefore, `call ${q} at ${c.at} ms refused with room to wait`).toBeGreaterThanOrEqual(capacity);
          if (c.waitingBefore === 0) {
            // nothing waits (capacity 0): refused only while the last release is under an interval old
            const last = Math.max(...calls.slice(0, q).map((x) => (x.startedAt !== undefined && x.startedAt <= c.at ? x.startedAt : -Infinity)));
            expect(c.at - last, `call ${q} at ${c.at} ms refused though the bucket was idle`).toBeLessThan(interval + 1e-3);
          }
        });
        expect(calls[0]!.refused, 'an idle bucket releases the first call').toBe(false);
      }),
      { numRuns: runs(100) },
    );
  });
});
