import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { ConfigError, isRateLimitedError, rateLimiter, StoreUnavailableError, type PolicyEvent } from '../../../api/index.js';
import { redisTokenBucket, type RedisTokenBucketOptions } from '../../../integrations/redis/index.js';
import { TestClock } from '../../../lib/testing.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

const client = { evalsha: () => Promise.resolve(0), eval: () => Promise.resolve(0) };

it('refuses a value that is not an ioredis client, and bad options, with a ConfigError of redisTokenBucket naming them', () => {
  let error: unknown;
  try {
    redisTokenBucket({ evalsha: () => undefined } as never, { key: 'k', rate: 1 });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(ConfigError);
  expect(error).toMatchObject({
    policy: 'redisTokenBucket',
    message: 'invalid redisTokenBucket options: redis: expected an ioredis client (evalsha, eval)',
    issues: [{ path: 'redis', message: 'expected an ioredis client (evalsha, eval)' }],
  });
  expect(() => redisTokenBucket(client, { key: 'k', rate: 1, retryMs: 0 })).toThrow(
    new ConfigError('redisTokenBucket', [{ path: 'retryMs', message: 'expected a number greater than 0' }]),
  );
  expect(() => redisTokenBucket(client, { key: 'k', rate: 1, retryMs: 0 })).toThrow('invalid redisTokenBucket options: retryMs: expected a number greater than 0');
});

it('is of kind redisTokenBucket, with burst max(1, ceil(rate)) unless given', () => {
  expect(redisTokenBucket(client, { key: 'k', rate: 2.5 })).toMatchObject({ kind: 'redisTokenBucket', rate: 2.5, burst: 3 });
  expect(redisTokenBucket(client, { key: 'k', rate: 0.5 }).burst).toBe(1);
  expect(redisTokenBucket(client, { key: 'k', rate: 2.5, burst: 7 }).burst).toBe(7);
});

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

  it('with a key function, each key has its own shared bucket: one key spending its burst leaves another its own', async () => {
    const algorithm = () => redisTokenBucket(db.redis, { key: (ctx) => `t:${ctx.meta.tenant}`, rate: 0.001, burst: 2 });
    const a = rateLimiter({ algorithm: algorithm(), reserve: { sheddable: 0 } });
    const b = rateLimiter({ algorithm: algorithm(), reserve: { sheddable: 0 } });
    const call = (l: typeof a, tenant: string) => l.execute(() => 'ok', { meta: { tenant } }).catch((e: unknown) => (isRateLimitedError(e) ? 'limited' : e));
    // two limiters (as two processes would) share each key's bucket
    expect([await call(a, 'x'), await call(b, 'x'), await call(a, 'x')]).toEqual(['ok', 'ok', 'limited']);
    expect([await call(b, 'y'), await call(a, 'y'), await call(b, 'y')]).toEqual(['ok', 'ok', 'limited']);
    expect(await db.redis.pttl('breakwater:rate:t:x')).toBeGreaterThan(0);
    expect(await db.redis.pttl('breakwater:rate:t:y')).toBeGreaterThan(0);
  });

  it('with a key function, an unreachable Redis limits each key with its own local bucket', async () => {
    const dead = new Redis(1, '127.0.0.1', { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    dead.on('error', () => undefined);
    const limiter = rateLimiter({
      algorithm: redisTokenBucket(dead, { key: (ctx) => ctx.meta.tenant ?? '', rate: 0.001, burst: 1, commandTimeoutMs: 50, retryMs: 60_000 }),
      reserve: { sheddable: 0 },
    });
    const call = (tenant: string) => limiter.execute(() => 'ok', { meta: { tenant } }).catch((e: unknown) => (isRateLimitedError(e) ? 'limited' : e));
    expect([await call('x'), await call('x'), await call('y'), await call('y')]).toEqual(['ok', 'limited', 'ok', 'limited']);
    dead.disconnect();
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => redisTokenBucket({} as never, { key: 'k', rate: 1 })).toThrow(ConfigError);
    expect(() => redisTokenBucket(db.redis, { key: '', rate: 1 })).toThrow(/key/);
    expect(() => redisTokenBucket(db.redis, { key: 5 as never, rate: 1 })).toThrow('key: expected a non-empty string or a function (ctx) => string');
    expect(() => redisTokenBucket(db.redis, { key: () => 'k', rate: 1, maxKeys: 0 })).toThrow(/maxKeys/);
    expect(() => redisTokenBucket(db.redis, { key: () => 'k', rate: 1, idleMs: 0 })).toThrow(/idleMs/);
    expect(() => redisTokenBucket(db.redis, { key: 'k', rate: 0 })).toThrow(/rate/);
    expect(() => redisTokenBucket(db.redis, { key: 'k', rate: 1, burst: 0 })).toThrow(/burst/);
    expect(() => redisTokenBucket(db.redis, { key: 'k', rate: 1, retryMs: -1 })).toThrow(/retryMs/);
    expect(() => redisTokenBucket(db.redis, { key: 'k', rate: 1, localRate: NaN })).toThrow(/localRate/);
  });

  it('admits burst calls at once by default max(1, ceil(rate)), and keeps the state as long as a full bucket takes to refill, plus a second', async () => {
    // default burst 3; a token every 400 ms
    const limiter = rateLimiter({ algorithm: redisTokenBucket(db.redis, { key: 'default-burst', rate: 2.5 }) });
    const outcomes = await Promise.all([1, 2, 3, 4].map(() => limiter.execute(() => 'ok').catch((e: unknown) => (isRateLimitedError(e) ? 'limited' : e))));
    expect([...outcomes].sort()).toEqual(['limited', 'ok', 'ok', 'ok']);
    // 3 tokens at 0.004 a second: 750,000 ms to refill, kept 751,000 ms
    await rateLimiter({ algorithm: redisTokenBucket(db.redis, { key: 'slow', rate: 0.004, burst: 3 }) }).execute(() => 'ok');
    const ttl = await db.redis.pttl('breakwater:rate:slow');
    expect(ttl).toBeGreaterThan(740_000);
    expect(ttl).toBeLessThanOrEqual(751_000);
  });

  /** A limiter on a shared bucket (rate 0.001: it does not refill during a test) and a local one, on a TestClock. */
  function limiterOn(key: string, options: Partial<RedisTokenBucketOptions> = {}) {
    const clock = new TestClock(1_000_000);
    const algorithm = redisTokenBucket(db.redis, { key, rate: 0.001, burst: 5, retryMs: 1_000, localRate: 0.001, localBurst: 5, clock, ...options });
    const limiter = rateLimiter({ algorithm, clock, name: 'shared' });
    const events: PolicyEvent[] = [];
    limiter.events$.subscribe((e) => events.push(e));
    const call = () => limiter.execute(() => 'ok').catch((e: unknown) => (isRateLimitedError(e) ? 'limited' : Promise.reject(e)));
    const fallbacks = () => events.filter((e) => e.type === 'localFallback').map((e) => (e as { active: boolean }).active);
    return { clock, algorithm, events, call, fallbacks, redisKey: `breakwater:rate:${key}` };
  }

  it('an error from Redis limits locally until retryMs has passed, though Redis answers again meanwhile; then one call goes back to it', async () => {
    const { clock, algorithm, events, call, fallbacks, redisKey } = limiterOn('wrongtype', { localBurst: 2 });
    await db.redis.set(redisKey, 'not a bucket'); // the script fails on it with WRONGTYPE
    expect(await call()).toBe('ok');
    expect(algorithm.local).toBe(true);
    expect(fallbacks()).toEqual([true]);
    // the error the limiter is told of names the bucket
    const error = (events.find((e) => e.type === 'localFallback') as { error?: unknown }).error;
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(error).toMatchObject({ policy: 'redisTokenBucket' });
    expect((error as Error).message).toMatch(/^store token bucket failed \(redisTokenBucket\): WRONGTYPE Operation against a key holding the wrong kind of value/);

    await db.redis.del(redisKey);
    expect(await call()).toBe('ok');
    await clock.advance(999);
    // the local bucket (burst 2) is empty; the shared one, untouched, would admit
    expect(await call()).toBe('limited');
    expect(await db.redis.exists(redisKey)).toBe(0);
    expect(fallbacks()).toEqual([true]);

    await clock.advance(1); // retryMs since the failure
    expect(await call()).toBe('ok');
    expect(algorithm.local).toBe(false);
    expect(fallbacks()).toEqual([true, false]);
    expect(await call()).toBe('ok');
    expect(Number(await db.redis.hget(redisKey, 'tokens'))).toBeCloseTo(3, 2);
  });

  it('a try of Redis that fails again is not told again, and the next try waits retryMs from it', async () => {
    const { clock, algorithm, call, fallbacks, redisKey } = limiterOn('still-wrong');
    await db.redis.set(redisKey, 'not a bucket');
    expect(await call()).toBe('ok');
    await clock.advance(1_000);
    expect(await call()).toBe('ok'); // tried Redis: WRONGTYPE again, the local bucket admits
    expect(await db.redis.get(redisKey)).toBe('not a bucket');
    expect(fallbacks()).toEqual([true]);
    expect(algorithm.local).toBe(true);

    await db.redis.del(redisKey);
    await clock.advance(999);
    expect(await call()).toBe('ok');
    expect(await db.redis.exists(redisKey)).toBe(0);
    await clock.advance(1);
    expect(await call()).toBe('ok');
    expect(await db.redis.exists(redisKey)).toBe(1);
    expect(fallbacks()).toEqual([true, false]);
  });

  it('while one call tries Redis again, the others are limited locally', async () => {
    const { clock, call, fallbacks, redisKey } = limiterOn('one-probe', { localBurst: 1 });
    await db.redis.set(redisKey, 'not a bucket');
    expect(await call()).toBe('ok'); // the local bucket's only token
    await db.redis.del(redisKey);
    await clock.advance(1_000);
    const probe = call();
    const other = call();
    expect(await Promise.all([probe, other])).toEqual(['ok', 'limited']);
    expect(Number(await db.redis.hget(redisKey, 'tokens'))).toBeCloseTo(4, 2);
    expect(fallbacks()).toEqual([true, false]);
  });
});
