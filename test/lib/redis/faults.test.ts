import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { idempotent, isRateLimitedError, rateLimiter, StoreUnavailableError, type PolicyEvent } from '../../../lib/index.js';
import { redisStore, redisTokenBucket } from '../../../lib/redis/index.js';
import { describeRedis, startRedis, type RedisServer } from '../../helpers/redis.js';

/** Waits (briefly, in real time) until `redis` answers again after a restart. */
async function reconnected(redis: Redis): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (redis.status === 'ready') return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`ioredis did not reconnect (status ${redis.status})`);
}

describeRedis('Redis stopped mid-run', () => {
  let server: RedisServer;
  let redis: Redis;
  beforeAll(async () => {
    server = await startRedis({ appendonly: true });
    // reconnect forever and queue commands while away, forever: only breakwater's own deadlines end a call
    redis = new Redis(server.port, '127.0.0.1', { retryStrategy: () => 100, maxRetriesPerRequest: null });
    redis.on('error', () => undefined);
  });
  afterAll(async () => {
    redis.disconnect();
    await server.dispose();
  });

  it('idempotent rejects with StoreUnavailableError (or passes through with failOpen), then recovers; records survive', async () => {
    const store = redisStore(redis, { prefix: 'fault:', commandTimeoutMs: 300 });
    const strict = idempotent({ store, storeTimeoutMs: 1_000 });
    const open = idempotent({ store, storeTimeoutMs: 1_000, failOpen: true });
    let runs = 0;
    await expect(strict.execute(() => ++runs, { key: 'before' })).resolves.toBe(1);

    await server.stop();
    let ran = false;
    const t0 = Date.now();
    const error = await strict.execute(() => (ran = true), { key: 'during' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect(ran).toBe(false);
    // bounded by breakwater's own deadline, not ioredis's retries
    expect(Date.now() - t0).toBeLessThan(5_000);
    await expect(open.execute(() => 'passed through', { key: 'during' })).resolves.toBe('passed through');

    await server.start();
    await reconnected(redis);
    await expect(strict.execute(() => ++runs, { key: 'after' })).resolves.toBe(2);
    // the record stored before the outage is still served (append-only file)
    await expect(strict.execute(() => ++runs, { key: 'before' })).resolves.toBe(1);
    expect(runs).toBe(2);
  });

  it('the distributed limiter falls back to a local bucket and goes back to Redis when it returns', async () => {
    const limiter = rateLimiter({
      algorithm: redisTokenBucket(redis, { key: 'fault', rate: 1, burst: 2, commandTimeoutMs: 200, retryMs: 300, localRate: 0.001 }),
      name: 'shared',
    });
    const events: PolicyEvent[] = [];
    limiter.events$.subscribe((e) => events.push(e));
    const call = () => limiter.execute(() => 'ok').catch((e: unknown) => (isRateLimitedError(e) ? 'limited' : Promise.reject(e)));
    expect(await call()).toBe('ok');

    await server.stop();
    // the local bucket (burst 2, next token in 1,000 s) limits meanwhile, however slow this machine is
    const during = [await call(), await call(), await call()];
    expect(during).toEqual(['ok', 'ok', 'limited']);
    expect(events.filter((e) => e.type === 'localFallback')).toEqual([expect.objectContaining({ active: true, policy: 'shared' })]);

    await server.start();
    await reconnected(redis);
    await new Promise((r) => setTimeout(r, 350)); // retryMs: the next call tries Redis again
    await call();
    const fallbacks = events.filter((e) => e.type === 'localFallback');
    expect(fallbacks).toEqual([expect.objectContaining({ active: true }), expect.objectContaining({ active: false })]);
    // and the shared bucket limits again
    expect(await redis.exists('breakwater:rate:fault')).toBe(1);
  });
});
