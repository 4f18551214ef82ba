import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { ConfigError, leakyBucket, rateLimiter, RateLimitedError } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

describe('leakyBucket', () => {
  it('releases queued calls one every 1000 / rate ms, in order', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 10, capacity: 5 }), clock });
    const started: [number, number][] = [];
    const calls = [0, 1, 2, 3, 4, 5].map((i) => limiter.execute(() => started.push([i, clock.now() - START])));
    await clock.advance(1_000);
    await Promise.all(calls);
    expect(started).toEqual([
      [0, 0],
      [1, 100],
      [2, 200],
      [3, 300],
      [4, 400],
      [5, 500],
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('refuses beyond capacity with retryAfterMs until the head leaves', async () => {
    const clock = new TestClock(START);
    const bucket = leakyBucket({ rate: 10, capacity: 2 });
    const limiter = rateLimiter({ algorithm: bucket, clock });
    const ok = [limiter.execute(() => 'a'), limiter.execute(() => 'b'), limiter.execute(() => 'c')];
    const refused = await limiter.execute(() => 'd').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RateLimitedError);
    expect((refused as RateLimitedError).retryAfterMs).toBe(100);
    expect(bucket.waiting).toBe(2);
    await clock.advance(200);
    await expect(Promise.all(ok)).resolves.toEqual(['a', 'b', 'c']);
  });

  it('a cancelled waiter leaves the queue at once, listener removed, and the next moves up', async () => {
    const clock = new TestClock(START);
    const bucket = leakyBucket({ rate: 10, capacity: 3 });
    const limiter = rateLimiter({ algorithm: bucket, clock });
    const started: string[] = [];
    await limiter.execute(() => started.push('a'));
    const ac = new AbortController();
    const b = limiter.execute(() => started.push('b'), { signal: ac.signal });
    const c = limiter.execute(() => started.push('c'));
    expect(bucket.waiting).toBe(2);
    ac.abort(new Error('cancel'));
    await expect(b).rejects.toThrow('cancel');
    expect(bucket.waiting).toBe(1);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    await clock.advance(100);
    await c;
    expect(started).toEqual(['a', 'c']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('clears its timer when the last waiter leaves', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 1, capacity: 3 }), clock });
    await limiter.execute(() => 1);
    const ac = new AbortController();
    const p = limiter.execute(() => 2, { signal: ac.signal });
    expect(clock.pendingTimers).toBe(1);
    ac.abort();
    await expect(p).rejects.toBe(ac.signal.reason);
    expect(clock.pendingTimers).toBe(0);
  });

  it('refuses at once a call that could not leave before its deadline', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 10, capacity: 10 }), clock });
    await limiter.execute(() => 0);
    const second = limiter.execute(() => 1, { timeout: 150 });
    await expect(limiter.execute(() => 2, { timeout: 150 })).rejects.toMatchObject({ retryAfterMs: 200 });
    await clock.advance(100);
    await expect(second).resolves.toBe(1);
  });

  it('refuses at once a call whose turn comes exactly at its deadline (it could not run before it)', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 10, capacity: 5 }), clock });
    await limiter.execute(() => 0);
    let ran = false;
    await expect(limiter.execute(() => (ran = true), { timeout: 100 })).rejects.toBeInstanceOf(RateLimitedError);
    expect(ran).toBe(false);
    // one more millisecond and it waits its turn
    const next = limiter.execute(() => 'ran', { timeout: 101 });
    await clock.advance(100);
    await expect(next).resolves.toBe('ran');
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    for (const [o, path] of [
      [{ rate: 0 }, 'rate'],
      [{ rate: 1, capacity: -1 }, 'capacity'],
      [{ rate: 1, capacity: 0.5 }, 'capacity'],
      [{ rate: 1, size: 1 }, 'size'],
    ] as const) {
      expect(() => leakyBucket(o as never)).toThrow(ConfigError);
      try {
        leakyBucket(o as never);
      } catch (e) {
        expect((e as ConfigError).issues[0]!.path).toBe(path);
      }
    }
  });
});

describe('LeakyBucket.idle', () => {
  it('is true when nothing waits and the next call may leave at once', async () => {
    const clock = new TestClock(1_700_000_000_000);
    const b = leakyBucket({ rate: 10, capacity: 5 });
    const limiter = rateLimiter({ algorithm: b, clock });
    expect(b.idle(clock.now())).toBe(true);
    await limiter.execute(() => 1);
    const waiting = limiter.execute(() => 2); // waits 100 ms for its turn
    expect(b.idle(clock.now())).toBe(false);
    await clock.advance(100);
    await waiting;
    expect(b.idle(clock.now())).toBe(false); // the next may leave only 100 ms after this one
    await clock.advance(100);
    expect(b.idle(clock.now())).toBe(true);
  });
});

describe('LeakyBucket.reconfigure', () => {
  it('keeps the waiting calls in order and releases the ones after the next at the new rate', async () => {
    const clock = new TestClock(0);
    const bucket = leakyBucket({ rate: 10, capacity: 5 });
    const limiter = rateLimiter({ algorithm: bucket, clock });
    const released: [number, number][] = [];
    const calls = [1, 2, 3].map((n) => limiter.execute(() => released.push([n, clock.now()])));
    await Promise.resolve();
    expect(bucket.waiting).toBe(2);
    bucket.reconfigure({ rate: 100, capacity: 1 });
    expect([bucket.rate, bucket.capacity]).toEqual([100, 1]);
    // the queue holds 2 > the new capacity: a new call is refused
    await expect(limiter.execute(() => 0)).rejects.toBeInstanceOf(RateLimitedError);
    await clock.advance(200);
    await Promise.all(calls);
    // call 2 keeps its time (100 ms at the old rate), call 3 follows 10 ms later at the new one
    expect(released).toEqual([[1, 0], [2, 100], [3, 110]]);
    expect(() => bucket.reconfigure({ rate: 0 })).toThrow(ConfigError);
    expect(bucket.rate).toBe(100);
  });
});
