import { expect, it } from 'vitest';
import { idempotent, isRateLimitedError, rateLimiter, StoreUnavailableError, type PolicyEvent } from '../../api/index.js';
import { redisStore, redisTokenBucket, redisWriteQueue } from '../../integrations/redis/index.js';
import { strategies } from '../../api/index.js';
import { describeRedis, useRedis } from '../helpers/redis.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Redis crashes (SIGKILL, no shutdown work) while calls are in flight, under
 * every Redis-backed feature (the idempotent store, the distributed token
 * bucket), and comes back. test/integrations/redis/faults.test.ts covers a clean stop
 * between calls; this covers a crash under a steady stream of calls.
 */
describeRedis('Redis killed and restarted under load', () => {
  const db = useRedis({ appendonly: true, retryMs: 50 });

  it('idempotent: calls cut off by the crash settle, calls during it fail fast running nothing, and after it each key runs once more at most', async () => {
    const store = redisStore(db.redis, { prefix: 'kill:', commandTimeoutMs: 200 });
    const p = idempotent({ store, storeTimeoutMs: 400, leaseMs: 600, pollMs: 50 });
    const runs = new Map<string, number>();
    const op = (key: string) => () => {
      runs.set(key, (runs.get(key) ?? 0) + 1);
      return new Promise<string>((r) => setTimeout(() => r(`done ${key}`), 30));
    };
    const durations: number[] = [];
    const call = async (key: string): Promise<string> => {
      const t0 = Date.now();
      try {
        const r = await p.execute(op(key), { key });
        return r === `done ${key}` ? 'ok' : `wrong ${r}`;
      } catch (e) {
        return e instanceof StoreUnavailableError ? 'unavailable' : `other ${String(e)}`;
      } finally {
        durations.push(Date.now() - t0);
      }
    };
    const keys = (from: number) => Array.from({ length: 10 }, (_, i) => `k${from + i}`);
    const round = (from: number) => Promise.all(keys(from).map(call));

    expect(await round(0)).toEqual(Array(10).fill('ok'));
    // killed while k10..k19 run: their claims went through, their completions may not
    const cut = round(10);
    await sleep(10);
    await db.server.kill();
    for (const r of await cut) expect(r).toMatch(/^(ok|unavailable)$/);
    // dead: fail fast, run nothing
    expect(await round(20)).toEqual(Array(10).fill('unavailable'));
    expect(keys(20).map((k) => runs.get(k) ?? 0)).toEqual(Array(10).fill(0));
    await db.server.start();
    await db.ready();

    // back: stored keys run nothing; cut-off keys wait out their lease and run once more at most; new keys run once
    for (const from of [0, 10, 20]) for (const r of await round(from)) expect(r).toBe('ok');
    for (const k of keys(0)) expect(runs.get(k)).toBe(1);
    for (const k of keys(10)) expect(runs.get(k)).toBeLessThanOrEqual(2);
    for (const k of keys(20)) expect(runs.get(k)).toBe(1);
    const settled = new Map(runs);
    for (const from of [0, 10, 20]) await round(from);
    expect(runs).toEqual(settled);
    // bounded by breakwater's own deadlines (and one lease), never by ioredis's retries
    expect(Math.max(...durations)).toBeLessThan(3_000);
  });

  it('the distributed token bucket: local limiting while Redis is dead, shared again afterwards; no call hangs', async () => {
    const limiter = rateLimiter({
      algorithm: redisTokenBucket(db.redis, { key: 'kill', rate: 50, burst: 20, commandTimeoutMs: 150, retryMs: 200, localRate: 5, localBurst: 3 }),
      name: 'shared',
    });
    const events: PolicyEvent[] = [];
    limiter.events$.subscribe((e) => events.push(e));
    const results: string[] = [];
    const durations: number[] = [];
    const call = async () => {
      const t0 = Date.now();
      const r = await limiter.execute(() => 'ok').catch((e: unknown) => (isRateLimitedError(e) ? 'limited' : `error ${String(e)}`));
      durations.push(Date.now() - t0);
      results.push(r);
    };
    const stream = (async () => {
      for (let i = 0; i < 60; i++) {
        await Promise.all([call(), call()]);
        await sleep(25);
      }
    })();
    await sleep(200);
    await db.server.kill();
    await sleep(500);
    await db.server.start();
    await stream;
    await db.ready();
    await sleep(250);
    await call();

    expect(results.filter((r) => r.startsWith('error'))).toEqual([]);
    expect(results.filter((r) => r === 'ok').length).toBeGreaterThan(10);
    expect(Math.max(...durations)).toBeLessThan(1_000);
    const fallbacks = events.filter((e) => e.type === 'localFallback') as { active: boolean }[];
    expect(fallbacks.length).toBeGreaterThanOrEqual(2);
    expect(fallbacks[0]!.active).toBe(true);
    expect(fallbacks.at(-1)!.active).toBe(false);
    expect(await db.redis.exists('breakwater:rate:kill')).toBe(1);
  });

  it('writeBehind on the Redis queue: a write it reported queued survives Redis being killed and is replayed in order once it is back; a refused one never lands', async () => {
    let up = false;
    const delivered: number[] = [];
    const deliver = (n: number) => {
      if (!up) throw new Error('downstream down');
      delivered.push(n);
    };
    const store = redisWriteQueue(db.redis, { prefix: 'kill-writes:', commandTimeoutMs: 200 });
    const first = strategies.writeBehind<number>({ deliver, store, timeoutMs: 100, replayIntervalMs: 60_000 });
    const acked: number[] = [];
    const refused: number[] = [];
    for (let n = 1; n <= 10; n++) {
      if (n === 6) await db.server.kill(); // Redis dies mid-stream (SIGKILL)
      const r = await first.write(n).catch(() => undefined);
      (r?.status === 'queued' ? acked : refused).push(n);
    }
    first.close(); // and the writing process goes away
    expect(acked).toEqual([1, 2, 3, 4, 5]);
    expect(refused).toEqual([6, 7, 8, 9, 10]); // never reported queued: the caller is told
    await db.server.start();
    await db.ready();
    up = true;
    const second = strategies.writeBehind<number>({ deliver, store, timeoutMs: 100, replayIntervalMs: 50 });
    for (let i = 0; i < 100 && !acked.every((n) => delivered.includes(n)); i++) await sleep(20);
    await sleep(200);
    second.close();
    // every write reported queued is delivered, once, in order
    expect(delivered.filter((n) => acked.includes(n))).toEqual(acked);
    expect(new Set(delivered).size).toBe(delivered.length);
    expect(delivered).toEqual([...delivered].sort((a, b) => a - b));
    // and no write refused to its caller lands later (ioredis would replay its offline queue on reconnect)
    expect(delivered.filter((n) => refused.includes(n))).toEqual([]);
    expect(await db.redis.llen('kill-writes:order')).toBe(0);
  });
});
