import { getEventListeners } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isRateLimitedError, leakyBucket, rateLimiter, slidingWindow, tokenBucket, type RateAlgorithm } from '../../../lib/index.js';
import { TestClock } from '../../../lib/testing.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

/** Calls arrive in groups at the given gaps; returns the clock times at which admitted calls started. */
async function drive(algorithm: RateAlgorithm, arrivals: { gap: number; n: number; abortAfter?: number }[]) {
  const clock = new TestClock(START);
  const limiter = rateLimiter({ algorithm, clock });
  const starts: number[] = [];
  const settled: Promise<unknown>[] = [];
  const signals: AbortSignal[] = [];
  for (const a of arrivals) {
    await clock.advance(a.gap);
    for (let i = 0; i < a.n; i++) {
      const ac = new AbortController();
      signals.push(ac.signal);
      if (a.abortAfter !== undefined) clock.setTimeout(() => ac.abort(), a.abortAfter);
      settled.push(
        limiter.execute(() => starts.push(clock.now() - START), { signal: ac.signal }).catch((e: unknown) => {
          if (!isRateLimitedError(e) && !ac.signal.aborted) throw e;
        }),
      );
    }
  }
  await clock.runAll();
  await Promise.all(settled);
  expect(clock.pendingTimers).toBe(0);
  for (const s of signals) expect(getEventListeners(s, 'abort')).toHaveLength(0);
  return starts;
}

const arrivals = fc.array(
  fc.record({ gap: fc.integer({ min: 0, max: 400 }), n: fc.integer({ min: 1, max: 6 }), abortAfter: fc.option(fc.integer({ min: 0, max: 500 }), { nil: undefined }) }),
  { maxLength: 60 },
);

describe('rate limiter algorithms (properties)', () => {
  it('tokenBucket admits at most rate × t + burst in every span', async () => {
    await fc.assert(
      fc.asyncProperty(fc.double({ min: 0.5, max: 50, noNaN: true }), fc.integer({ min: 1, max: 8 }), arrivals, async (rate, burst, a) => {
        const starts = await drive(tokenBucket({ rate, burst }), a);
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

  it('slidingWindow admits at most limit in any window', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 2_000 }), arrivals, async (limit, windowMs, a) => {
        const starts = await drive(slidingWindow({ limit, windowMs }), a);
        for (let i = limit; i < starts.length; i++) expect(starts[i]! - starts[i - limit]!).toBeGreaterThanOrEqual(windowMs);
      }),
      { numRuns: runs(100) },
    );
  });

  it('leakyBucket releases calls at least 1000 / rate ms apart, cancelled waiters included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 8 }), arrivals, async (rate, capacity, a) => {
        const starts = await drive(leakyBucket({ rate, capacity }), a);
        for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(1000 / rate - 1e-3) // epoch-ms floats carry ~1e-4 ms of noise;
      }),
      { numRuns: runs(100) },
    );
  });
});
