import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigError, isRateLimitedError, rateLimiter, RateLimitedError, slidingWindow, SlidingWindow } from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

function issuesOf(build: () => unknown): string[] {
  try {
    build();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return [...new Set((e as ConfigError).issues.map((i) => i.path))];
  }
  return expect.unreachable('expected a ConfigError');
}

/** Admitted calls (clock times) in the closed span [from, to]. */
const within = (admitted: readonly number[], from: number, to: number): number => admitted.filter((t) => t >= from && t <= to).length;

describe('slidingWindow', () => {
  it('admits at most limit calls in any window of windowMs', async () => {
    const clock = new TestClock(START);
    const random = seededRandom(11);
    const limiter = rateLimiter({ algorithm: slidingWindow({ limit: 5, windowMs: 1_000 }), clock });
    const times: number[] = [];
    while (clock.now() - START < 60_000) {
      const at = clock.now();
      await limiter.execute(() => times.push(at)).catch((e: unknown) => {
        if (!isRateLimitedError(e)) throw e;
      });
      await clock.advance(Math.floor(random() * 150));
    }
    for (let i = 5; i < times.length; i++) expect(times[i]! - times[i - 5]!).toBeGreaterThanOrEqual(1_000);
    expect(times.length).toBeGreaterThan(250);
  });

  it('says when a call is admitted again: when the bucket of the oldest counted call leaves the window', async () => {
    const clock = new TestClock(START);
    // buckets of 100 ms, counted from the first call
    const limiter = rateLimiter({ algorithm: slidingWindow({ limit: 2, windowMs: 1_000, buckets: 10 }), clock });
    await limiter.execute(() => 1);
    await clock.advance(300);
    await limiter.execute(() => 2);
    const refused = await limiter.execute(() => 3).catch((e: unknown) => e);
    // an exact log would admit at 1 000; the first call's bucket [0, 100) leaves the window at 1 100
    expect((refused as RateLimitedError).retryAfterMs).toBe(800);
    await clock.advance(799);
    await expect(limiter.execute(() => 4)).rejects.toMatchObject({ retryAfterMs: 1 });
    await clock.advance(1);
    await expect(limiter.execute(() => 5)).resolves.toBe(5);
    await expect(limiter.execute(() => 6)).rejects.toMatchObject({ retryAfterMs: 300 });
  });

  it('waits whole milliseconds, at least 1, reaching the bucket edge even from a fractional clock time', () => {
    const w = slidingWindow({ limit: 1, windowMs: 1_000, buckets: 100 });
    expect(w.take(0)).toBe(0);
    // the edge is at 1 010; from 999.9999999 that is 10.0000001 ms, so 11 whole ones
    expect(w.take(999.9999999)).toBe(11);
    expect(w.take(1_009.5)).toBe(1);
    expect(w.take(1_010)).toBe(0);
  });

  it('drops each bucket as the window moves past it: with limit 2, the third call waits for the first, the fourth for the second', () => {
    const w = slidingWindow({ limit: 2, windowMs: 100, buckets: 10 });
    expect(w.take(0)).toBe(0);
    expect(w.take(10)).toBe(0);
    expect(w.take(50)).toBe(60); // bucket [0, 10) leaves at 110
    expect(w.take(110)).toBe(0);
    expect(w.take(110)).toBe(10); // bucket [10, 20) leaves at 120
    expect(w.take(120)).toBe(0);
    expect(w.take(150)).toBe(70); // bucket [110, 120) leaves at 220
  });

  it('forgets everything after a quiet window, and a clock that steps back counts in the latest bucket', () => {
    const w = slidingWindow({ limit: 2, windowMs: 1_000, buckets: 4 });
    expect([w.take(0), w.take(0), w.take(0)]).toEqual([0, 0, 1_250]);
    expect([w.take(10_000), w.take(10_000), w.take(10_000)]).toEqual([0, 0, 1_250]);
    expect(w.take(9_000)).toBe(2_250);
    expect(w.take(11_249)).toBe(1);
    expect(w.take(11_250)).toBe(0);
  });

  it('takes memory independent of limit: a daily quota of 100 million, and limits beyond 2^32', () => {
    const before = process.memoryUsage().arrayBuffers;
    const daily = slidingWindow({ limit: 100_000_000, windowMs: 86_400_000 });
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024);
    expect(daily.take(START)).toBe(0);
    for (const limit of [2 ** 32, Number.MAX_SAFE_INTEGER]) {
      expect(slidingWindow({ limit, windowMs: 1_000 }).take(0)).toBe(0);
      const fromData = rateLimiter({ algorithm: { kind: 'slidingWindow', limit, windowMs: 1_000 } }).algorithm;
      expect(fromData).toBeInstanceOf(SlidingWindow);
      expect((fromData as SlidingWindow).limit).toBe(limit);
    }
  });

  it('takes buckets from data, default 100', () => {
    expect(slidingWindow({ limit: 1, windowMs: 10 }).buckets).toBe(100);
    const fromData = rateLimiter({ algorithm: { kind: 'slidingWindow', limit: 1, windowMs: 10, buckets: 5 } }).algorithm as SlidingWindow;
    expect([fromData.limit, fromData.windowMs, fromData.buckets]).toEqual([1, 10, 5]);
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => slidingWindow({ limit: 0, windowMs: 1 })).toThrow(ConfigError);
    expect(() => slidingWindow({ limit: 1, windowMs: 0 })).toThrow(/windowMs/);
    expect(() => slidingWindow({ limit: 1.5, windowMs: 10 })).toThrow(/limit/);
    expect(() => slidingWindow({ limit: 1 } as never)).toThrow(/windowMs/);
    for (const limit of [2 ** 53, Number.MAX_SAFE_INTEGER + 2, 1e300, Number.POSITIVE_INFINITY, Number.NaN]) {
      expect(issuesOf(() => slidingWindow({ limit, windowMs: 1_000 }))).toEqual(['limit']);
      expect(issuesOf(() => rateLimiter({ algorithm: { kind: 'slidingWindow', limit, windowMs: 1_000 } }))).toEqual(['algorithm.limit']);
    }
    for (const buckets of [0, 1.5, 10_001, Number.NaN, '10']) {
      expect(issuesOf(() => slidingWindow({ limit: 1, windowMs: 1_000, buckets: buckets as number }))).toEqual(['buckets']);
    }
    expect(() => slidingWindow({ limit: 1, windowMs: 1_000, buckets: 10_000 })).not.toThrow();
  });

  it('for seeded random arrivals, never holds more than limit in any span of windowMs, and refuses only what a window one bucket longer would', async () => {
    // Safety: any closed span [s, s + windowMs] holds at most `limit` admitted calls.
    // Liveness: a refusal at t is one an exact log over a window one bucket longer makes too: at least `limit`
    // admitted calls lie in (t - windowMs - windowMs / buckets, t]. Its retryAfterMs points past the moment the
    // exact log (windowMs) would admit, and no later than the whole millisecond at which the longer one would.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 3_000 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 1_000 }), n: fc.integer({ min: 1, max: 5 }) }), { maxLength: 80 }),
        async (limit, windowMs, buckets, arrivals) => {
          const clock = new TestClock(START);
          const limiter = rateLimiter({ algorithm: slidingWindow({ limit, windowMs, buckets }), clock });
          const admitted: number[] = [];
          const refused: Array<{ at: number; retryAfterMs: number; before: number[] }> = [];
          for (const a of arrivals) {
            await clock.advance(Math.floor((a.gap * windowMs) / 500));
            for (let i = 0; i < a.n; i++) {
              const at = clock.now();
              await limiter.execute(() => admitted.push(at)).catch((e: unknown) => {
                if (!isRateLimitedError(e)) throw e;
                refused.push({ at, retryAfterMs: e.retryAfterMs, before: admitted.slice() });
              });
            }
          }
          for (let i = limit; i < admitted.length; i++) expect(admitted[i]! - admitted[i - limit]!).toBeGreaterThan(windowMs);
          const bucketMs = windowMs / buckets;
          for (const r of refused) {
            expect(within(r.before, r.at - windowMs - bucketMs + 1e-9, r.at)).toBeGreaterThanOrEqual(limit);
            const oldest = r.before[r.before.length - limit]!;
            expect(r.retryAfterMs).toBeGreaterThanOrEqual(1);
            expect(r.at + r.retryAfterMs).toBeGreaterThan(oldest + windowMs);
            expect(r.at + r.retryAfterMs).toBeLessThanOrEqual(Math.ceil(oldest + windowMs + bucketMs));
          }
        },
      ),
      { numRuns: runs(150) },
    );
  });
});

describe('SlidingWindow.idle', () => {
  it('is true before any call and once every admitted call has left the window', () => {
    const w = slidingWindow({ limit: 5, windowMs: 1_000, buckets: 10 });
    const t0 = 1_700_000_000_000;
    expect(w.idle(t0)).toBe(true);
    w.take(t0);
    expect(w.idle(t0)).toBe(false);
    expect(w.idle(t0 + 1_000)).toBe(false); // the ring still counts the bucket one step more
    expect(w.idle(t0 + 1_100)).toBe(true);
  });
});

describe('SlidingWindow.reconfigure', () => {
  it('takes a new limit, keeping the calls the window counts; refuses another window shape, naming it', () => {
    const w = slidingWindow({ limit: 3, windowMs: 1_000, buckets: 10 });
    for (let i = 0; i < 3; i++) expect(w.take(0)).toBe(0);
    expect(w.take(0)).toBeGreaterThan(0);
    w.reconfigure({ limit: 4, windowMs: 1_000, buckets: 10 });
    expect(w.limit).toBe(4);
    // the three still count: one more fits, not four
    expect(w.take(0)).toBe(0);
    expect(w.take(0)).toBeGreaterThan(0);
    w.reconfigure({ limit: 2, windowMs: 1_000, buckets: 10 });
    // a lower limit refuses until enough leave the window
    expect(w.take(500)).toBeGreaterThan(0);
    expect(w.take(2_000)).toBe(0);
    expect(() => w.reconfigure({ limit: 2, windowMs: 2_000, buckets: 10 })).toThrow(/windowMs: cannot change in place/);
    expect(() => w.reconfigure({ limit: 2, windowMs: 1_000 })).toThrow(/buckets: cannot change in place/);
    // both reshaping options changed: both named, nothing changed
    const refusal = (() => {
      try {
        w.reconfigure({ limit: 7, windowMs: 2_000, buckets: 20 });
      } catch (e) {
        return e;
      }
    })();
    expect(refusal).toBeInstanceOf(ConfigError);
    expect((refusal as ConfigError).issues).toEqual([
      { path: 'windowMs', message: 'cannot change in place (it shapes the window); build a new limiter' },
      { path: 'buckets', message: 'cannot change in place (it shapes the window); build a new limiter' },
    ]);
    expect(() => w.reconfigure({ limit: 0, windowMs: 1_000, buckets: 10 })).toThrow(ConfigError);
    expect(w.limit).toBe(2);
  });
});
