import { describe, expect, it } from 'vitest';
import { ConfigError, isRateLimitedError, rateLimiter, RateLimitedError, tokenBucket, type PolicyEvent } from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

/** Fires calls at random times over `ms` and returns the clock times of the admitted ones. */
async function hammer(rate: number, burst: number, ms: number, meanGapMs: number, seed: number): Promise<number[]> {
  const clock = new TestClock(START);
  const random = seededRandom(seed);
  const limiter = rateLimiter({ algorithm: tokenBucket({ rate, burst }), clock });
  const admitted: number[] = [];
  while (clock.now() - START < ms) {
    // bursts of simultaneous calls as well as spread ones
    const n = random() < 0.1 ? 1 + Math.floor(random() * 3 * burst) : 1;
    for (let i = 0; i < n; i++) {
      const at = clock.now();
      await limiter.execute(() => admitted.push(at - START)).catch((e: unknown) => {
        if (!isRateLimitedError(e)) throw e;
      });
    }
    await clock.advance(Math.floor(random() * 2 * meanGapMs));
  }
  return admitted;
}

describe('tokenBucket', () => {
  it.each([
    [10, 5, 20, 1],
    [100, 20, 3, 2],
    [3, 1, 100, 3],
    [0.5, 2, 500, 4],
    [1000, 50, 5, 5],
  ])('over a simulated minute admits at most rate × t + burst in every span (rate %d, burst %d)', async (rate, burst, gap, seed) => {
    const times = await hammer(rate, burst, 60_000, gap, seed);
    // every span [times[i], times[j]] holds j - i + 1 admissions; with a_k = k - rate × t_k,
    // the worst span is max over i <= j of a_j - a_i + 1 (one pass with a running minimum)
    let minA = Infinity;
    let worst = 0;
    times.forEach((t, k) => {
      const a = k - (rate * t) / 1000;
      minA = Math.min(minA, a);
      worst = Math.max(worst, a - minA + 1);
    });
    expect(worst).toBeLessThanOrEqual(burst + 1e-9);
    // and it is not stricter than it must be under overload: the sustained rate gets through
    expect(times.length).toBeGreaterThanOrEqual(Math.floor(rate * 60 * 0.75));
    expect(times.length).toBeLessThanOrEqual(rate * 60 + burst);
  });

  it('refuses with retryAfterMs, and a call after that wait is admitted', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 4, burst: 2 }), clock, name: 'api' });
    await limiter.execute(() => 1);
    await limiter.execute(() => 2);
    const refused = await limiter.execute(() => 3).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterMs).toBe(250);
    expect((refused as RateLimitedError).policy).toBe('api');
    await clock.advance(249);
    await expect(limiter.execute(() => 4)).rejects.toMatchObject({ retryAfterMs: 1 });
    await clock.advance(1);
    await expect(limiter.execute(() => 5)).resolves.toBe(5);
  });

  it('handles sync throws of non-errors, plain values and thenables', async () => {
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 100, burst: 10 }) });
    await expect(
      limiter.execute(() => {
        throw 42;
      }),
    ).rejects.toBe(42);
    await expect(limiter.execute(() => ({ then: (ok: (v: string) => void) => ok('t') }) as PromiseLike<string>)).resolves.toBe('t');
    await expect(limiter.execute(() => null)).resolves.toBeNull();
  });

  it('defaults burst to ceil(rate)', () => {
    expect(tokenBucket({ rate: 2.5 }).burst).toBe(3);
    expect(tokenBucket({ rate: 0.1 }).burst).toBe(1);
  });

  it('emits rejected and one outcome per call', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: tokenBucket({ rate: 1, burst: 1 }), clock });
    const events: PolicyEvent[] = [];
    limiter.events$.subscribe((e) => events.push(e));
    await limiter.execute(() => 1);
    await limiter.execute(() => 1).catch(() => undefined);
    await limiter.execute(() => Promise.reject(new Error('x'))).catch(() => undefined);
    expect(events).toEqual([
      { type: 'outcome', policy: 'rateLimiter', result: 'success', durationMs: 0, error: undefined },
      { type: 'limitRejected', policy: 'rateLimiter', reason: 'rateLimited', retryAfterMs: 1000 },
      expect.objectContaining({ type: 'outcome', result: 'rejected' }),
      expect.objectContaining({ type: 'limitRejected' }),
      expect.objectContaining({ type: 'outcome', result: 'rejected' }),
    ]);
  });

  it('takes the algorithm as data too (for config files)', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: { kind: 'tokenBucket', rate: 1, burst: 1 }, clock });
    expect(limiter.algorithm.kind).toBe('tokenBucket');
    await limiter.execute(() => 1);
    await expect(limiter.execute(() => 2)).rejects.toBeInstanceOf(RateLimitedError);
    expect(rateLimiter({ algorithm: { kind: 'leakyBucket', rate: 2 } }).algorithm.kind).toBe('leakyBucket');
    expect(rateLimiter({ algorithm: { kind: 'slidingWindow', limit: 2, windowMs: 10 } }).algorithm.kind).toBe('slidingWindow');
    const bad = (algorithm: unknown) => {
      try {
        rateLimiter({ algorithm } as never);
      } catch (e) {
        return (e as ConfigError).issues.map((i) => i.path);
      }
      return [];
    };
    expect(bad({ kind: 'tokenBucket', rate: 0 })).toEqual(['algorithm.rate']);
    expect(bad({ kind: 'slidingWindow', limit: 1 })).toEqual(['algorithm.windowMs']);
    expect(bad({ kind: 'tokenBucket', rate: 1, size: 2 })).toEqual(['algorithm.size']);
    expect(bad({ kind: 'gcra', rate: 1 })[0]).toMatch(/^algorithm/);
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    const cases: [() => unknown, string][] = [
      [() => tokenBucket({ rate: 0 }), 'rate'],
      [() => tokenBucket({ rate: -1 }), 'rate'],
      [() => tokenBucket({ rate: NaN }), 'rate'],
      [() => tokenBucket({ rate: Infinity }), 'rate'],
      [() => tokenBucket({ rate: 1, burst: 0 }), 'burst'],
      [() => tokenBucket({ rate: 1, burst: 1.5 }), 'burst'],
      [() => tokenBucket({ rate: 1, bucket: 1 } as never), 'bucket'],
      [() => rateLimiter({ algorithm: { rate: 1 } } as never), 'algorithm.kind'],
      [() => rateLimiter({} as never), 'algorithm'],
      [() => rateLimiter({ algorithm: tokenBucket({ rate: 1 }), name: '' }), 'name'],
    ];
    for (const [make, path] of cases) {
      try {
        make();
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).issues.map((i) => i.path)).toContain(path);
      }
    }
  });
});

describe('TokenBucket.idle', () => {
  it('is true while the bucket is full, false from the first token taken until it has refilled', () => {
    const b = tokenBucket({ rate: 2, burst: 2 });
    expect(b.idle(START)).toBe(true); // never used
    b.take(START);
    expect(b.idle(START)).toBe(false);
    expect(b.idle(START + 499)).toBe(false);
    expect(b.idle(START + 500)).toBe(true); // one token back at 2 per second: full
  });
});
