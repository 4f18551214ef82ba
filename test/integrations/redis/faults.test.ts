import { expect, it } from 'vitest';
import { idempotent, isRateLimitedError, rateLimiter, StoreUnavailableError, type PolicyEvent } from '../../../api/index.js';
import { redisStore, redisTokenBucket } from '../../../integrations/redis/index.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

describeRedis('Redis stopped mid-run', () => {
  const db = useRedis({ appendonly: true, retryMs: 100 });

  it('idempotent rejects with StoreUnavailableError (or passes through with failOpen), then recovers; records survive', async () => {
    const store = redisStore(db.redis, { prefix: 'fault:', commandTimeoutMs: 300 });
    const strict = idempotent({ store, storeTimeoutMs: 1_000 });
    const open = idempotent({ store, storeTimeoutMs: 1_000, failOpen: true });
    let runs = 0;
    await expect(strict.execute(() => ++runs, { key: 'before' })).resolves.toBe(1);

    await db.server.stop();
    let ran = false;
    const t0 = Date.now();
    const error = await strict.execute(() => (ran = true), { key: 'during' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(ran).toBe(false);
    // bounded by breakwater's own deadline, not ioredis's retries
    expect(Date.now() - t0).toBeLessThan(5_000);
    await expect(open.execute(() => 'passed through', { key: 'during' })).resolves.toBe('passed through');

    await db.server.start();
    await db.ready();
    await expect(strict.execute(() => ++runs, { key: 'after' })).resolves.toBe(2);
    // the record stored before the outage is still served (append-only file)
    await expect(strict.execute(() => ++runs, { key: 'before' })).resolves.toBe(1);
    expect(runs).toBe(2);
  });

  it('the distributed limiter falls back to a local bucket and goes back to Redis when it returns', async () => {
    const limiter = rateLimiter({
      algorithm: redisTokenBucket(db.redis, { key: 'fault', rate: 1, burst: 2, commandTimeoutMs: 200, retryMs: 300, localRate: 0.001 }),
      name: 'shared',
    });
    const events: PolicyEvent[] = [];
    limiter.events$.subscribe((e) => events.push(e));
    const call = () => limiter.execute(() => 'ok').catch((e: unknown) => (isRateLimitedError(e) ? 'limited' : Promise.reject(e)));
    expect(await call()).toBe('ok');

    await db.server.stop();
    // the local bucket (burst 2, next token in 1,000 s) limits meanwhile, however slow this machine is
    const during = [await call(), await call(), await call()];
    expect(during).toEqual(['ok', 'ok', 'limited']);
    expect(events.filter((e) => e.type === 'localFallback')).toEqual([expect.objectContaining({ active: true, policy: 'shared' })]);

    await db.server.start();
    await db.ready();
    await new Promise((r) => setTimeout(r, 350)); // retryMs: the next call tries Redis again
    await call();
    const fallbacks = events.filter((e) => e.type === 'localFallback');
    expect(fallbacks).toEqual([expect.objectContaining({ active: true }), expect.objectContaining({ active: false })]);
    // and the shared bucket limits again
    expect(await db.redis.exists('breakwater:rate:fault')).toBe(1);
  });
});
