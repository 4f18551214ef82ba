import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { ConfigError, isRateLimitedError, rateLimiter, type PolicyEvent } from '../../../lib/index.js';
import { redisTokenBucket } from '../../../lib/redis/index.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

describeRedis('redisTokenBucket', () => {
  const db = useRedis();

  it('shares one bucket between limiters: burst at once, then refused with retryAfterMs', async () => {
    const a = rateLimiter({ algorithm: redisTokenBucket(db.redis, { key: 'shared', rate: 0.5, burst: 3 }) });
    const b = rateLimiter({ algorithm: redisTokenBucket(db.redis, { key: 'shared', rate: 0.5, burst: 3 }) });
    const outcomes = await Promise.all([a, b, a, b, a].map((l) => l.execute(() => 'ok').catch((e: unknown) => e)));
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(3);
    const refused = outcomes.filter(isRateLimitedError);
    expect(refused).toHaveLength(2);
    // one token every 2 s: the next is at most 2,000 ms away
    for (const e of refused) expect(e.retryAfterMs).toBeGreaterThan(0);
    for (const e of refused) expect(e.retryAfterMs).toBeLessThanOrEqual(2_000);
    expect(await db.redis.pttl('breakwater:rate:shared')).toBeGreaterThan(0);
  });

  it('holds rate × t + burst for many concurrent callers, by Redis time', async () => {
    const limiter = rateLimiter({ algorithm: redisTokenBucket(db.redis, { key: 'bound', rate: 20, burst: 5 }) });
    const started = Date.now();
    let admitted = 0;
    const worker = async () => {
      while (Date.now() - started < 1_000) {
        await limiter.execute(() => admitted++).catch((e: unknown) => {
          if (!isRateLimitedError(e)) throw e;
        });
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
    const elapsed = Date.now() - started;
    expect(admitted).toBeLessThanOrEqual(Math.floor((20 * elapsed) / 1000 + 5));
    expect(admitted).toBeGreaterThan(5);
  });

  it('tells its limiter when it falls back to local limiting (an unreachable Redis)', async () => {
    const dead = new Redis(1, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    dead.on('error', () => undefined);
    const limiter = rateLimiter({
      algorithm: redisTokenBucket(dead, { key: 'x', rate: 1, burst: 2, commandTimeoutMs: 50, retryMs: 60_000 }),
    });
    const events: PolicyEvent[] = [];
    limiter.events$.subscribe((e) => events.push(e));
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push(await limiter.execute(() => 'ok').catch((e: unknown) => e));
    expect(outcomes.slice(0, 2)).toEqual(['ok', 'ok']);
    expect(isRateLimitedError(outcomes[2])).toBe(true);
    expect(events.filter((e) => e.type === 'localFallback')).toEqual([expect.objectContaining({ active: true })]);
    dead.disconnect();
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => redisTokenBucket({} as never, { key: 'k', rate: 1 })).toThrow(ConfigError);
    expect(() => redisTokenBucket(db.redis, { key: '', rate: 1 })).toThrow(/key/);
    expect(() => redisTokenBucket(db.redis, { key: 'k', rate: 0 })).toThrow(/rate/);
    expect(() => redisTokenBucket(db.redis, { key: 'k', rate: 1, burst: 0 })).toThrow(/burst/);
    expect(() => redisTokenBucket(db.redis, { key: 'k', rate: 1, retryMs: -1 })).toThrow(/retryMs/);
    expect(() => redisTokenBucket(db.redis, { key: 'k', rate: 1, localRate: NaN })).toThrow(/localRate/);
  });
});
