import { describe, expect, it } from 'vitest';
import { ConfigError, isRateLimitedError, rateLimiter, RateLimitedError, slidingWindow } from '../../../lib/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

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

  it('says exactly when the oldest call leaves the window', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: slidingWindow({ limit: 2, windowMs: 1_000 }), clock });
    await limiter.execute(() => 1);
    await clock.advance(300);
    await limiter.execute(() => 2);
    const refused = await limiter.execute(() => 3).catch((e: unknown) => e);
    expect((refused as RateLimitedError).retryAfterMs).toBe(700);
    await clock.advance(700);
    await expect(limiter.execute(() => 4)).resolves.toBe(4);
    await expect(limiter.execute(() => 5)).rejects.toMatchObject({ retryAfterMs: 300 });
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => slidingWindow({ limit: 0, windowMs: 1 })).toThrow(ConfigError);
    expect(() => slidingWindow({ limit: 1, windowMs: 0 })).toThrow(/windowMs/);
    expect(() => slidingWindow({ limit: 1.5, windowMs: 10 })).toThrow(/limit/);
    expect(() => slidingWindow({ limit: 1 } as never)).toThrow(/windowMs/);
  });
});
