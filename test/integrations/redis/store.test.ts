import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { ConfigError, idempotent, IdempotencyResultNotStorableError, StoreUnavailableError, type PolicyEvent } from '../../../api/index.js';
import { redisStore } from '../../../integrations/redis/index.js';
import { TestClock } from '../../../lib/testing.js';
import { describeRedis, freePort, useRedis } from '../../helpers/redis.js';

/** What a call rejected with (it must reject). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    (v) => {
      throw new Error(`expected a rejection, got ${String(v)}`);
    },
    (e: unknown) => e,
  );
}

it('refuses a value that is not an ioredis client, and bad options, with a ConfigError of redisStore naming them', () => {
  const notClient = (() => {
    try {
      redisStore({ get: () => undefined } as never);
    } catch (e) {
      return e;
    }
  })();
  expect(notClient).toBeInstanceOf(ConfigError);
  expect(notClient).toMatchObject({
    policy: 'redisStore',
    message: 'invalid redisStore options: redis: expected an ioredis client (evalsha, eval)',
    issues: [{ path: 'redis', message: 'expected an ioredis client (evalsha, eval)' }],
  });
  const client = { evalsha: () => Promise.resolve(0), eval: () => Promise.resolve(0) };
  expect(() => redisStore(client, { commandTimeoutMs: 0 })).toThrow(
    new ConfigError('redisStore', [{ path: 'commandTimeoutMs', message: 'expected a number greater than 0' }]),
  );
  expect(() => redisStore(client, { commandTimeoutMs: 0 })).toThrow('invalid redisStore options: commandTimeoutMs: expected a number greater than 0');
});

describeRedis('redisStore', () => {
  const db = useRedis();

  it('claims atomically with growing fencing tokens, serves stored results, fences completions', async () => {
    const store = redisStore(db.redis, { prefix: 't1:' });
    const first = await store.claim('k', 10_000, 60_000);
    expect(first).toEqual({ state: 'claimed', token: '1', takeover: false });
    const second = await store.claim('k', 10_000, 60_000);
    expect(second.state).toBe('pending');
    expect((second as { retryInMs: number }).retryInMs).toBeGreaterThan(9_000);
    await expect(store.complete('k', '2', '"x"', 60_000)).resolves.toBe(false);
    await expect(store.complete('k', '1', '"x"', 60_000)).resolves.toBe(true);
    await expect(store.claim('k', 10_000, 60_000)).resolves.toEqual({ state: 'success', value: '"x"' });
    expect(await db.redis.pttl('t1:k')).toBeGreaterThan(59_000);
  });

  it('a released (failed) record is claimable again, with the next token', async () => {
    const store = redisStore(db.redis, { prefix: 't2:' });
    await store.claim('k', 10_000, 60_000);
    await expect(store.release('k', '1', 60_000)).resolves.toBe(true);
    expect(await db.redis.hget('t2:k', 's')).toBe('f');
    // a failed run keeps no value
    expect(await db.redis.hget('t2:k', 'v')).toBe('');
    await expect(store.claim('k', 10_000, 60_000)).resolves.toEqual({ state: 'claimed', token: '2', takeover: false });
  });

  it('an expired lease is taken over once, and the old claimant is fenced out', async () => {
    const store = redisStore(db.redis, { prefix: 't3:' });
    await store.claim('k', 150, 60_000);
    await new Promise((r) => setTimeout(r, 200));
    const claims = await Promise.all([1, 2, 3, 4].map(() => store.claim('k', 10_000, 60_000)));
    expect(claims.filter((c) => c.state === 'claimed')).toEqual([{ state: 'claimed', token: '2', takeover: true }]);
    await expect(store.complete('k', '1', '"old"', 60_000)).resolves.toBe(false);
    await expect(store.complete('k', '2', '"new"', 60_000)).resolves.toBe(true);
  });

  it('extends a lease only for the claim that holds it', async () => {
    const store = redisStore(db.redis, { prefix: 't6:' });
    await store.claim('k', 200, 1_000);
    await expect(store.extend('k', '1', 5_000)).resolves.toBe(true);
    await expect(store.extend('k', '2', 5_000)).resolves.toBe(false);
    await new Promise((r) => setTimeout(r, 250));
    expect((await store.claim('k', 200, 1_000)).state).toBe('pending');
    expect(await db.redis.pttl('t6:k')).toBeGreaterThan(4_000);
    await store.complete('k', '1', '1', 60_000);
    await expect(store.extend('k', '1', 5_000)).resolves.toBe(false);
  });

  it('records a run whose result was not storable: claims answer notStorable, fenced, kept ttlMs by Redis', async () => {
    const store = redisStore(db.redis, { prefix: 't7:' });
    await store.claim('k', 10_000, 60_000);
    await expect(store.completeNotStorable('k', '2', 30_000)).resolves.toBe(false);
    await expect(store.completeNotStorable('k', '1', 30_000)).resolves.toBe(true);
    expect(await db.redis.hget('t7:k', 's')).toBe('n');
    // no result is kept
    expect(await db.redis.hget('t7:k', 'v')).toBe('');
    expect(await db.redis.pttl('t7:k')).toBeGreaterThan(29_000);
    await expect(store.claim('k', 10_000, 60_000)).resolves.toEqual({ state: 'notStorable' });
    // the claim above left the record as it was: same fence
    expect(await db.redis.hget('t7:k', 'tok')).toBe('1');
    await expect(store.complete('k', '1', '"late"', 60_000)).resolves.toBe(false);
    await expect(store.release('k', '1', 60_000)).resolves.toBe(false);
    await expect(store.extend('k', '1', 60_000)).resolves.toBe(false);
    await expect(store.claim('k', 10_000, 60_000)).resolves.toEqual({ state: 'notStorable' });
  });

  const unstorable: [string, () => unknown][] = [
    ['{ a: undefined }', () => ({ a: undefined })],
    ['a Date', () => new Date(0)],
    ['NaN', () => NaN],
    ['-0', () => -0],
  ];

  it.each(unstorable)('%s: runs once across policies on one Redis; its caller gets it, the others IdempotencyResultNotStorableError until ttlMs', async (name, make) => {
    const store = redisStore(db.redis, { prefix: `t8:${name}:` });
    const [a, b] = [0, 1].map(() => idempotent({ store, ttlMs: 150 }));
    const events: PolicyEvent[] = [];
    a!.events$.subscribe((e) => events.push(e));
    let runs = 0;
    const value = make();
    const op = () => (runs++, value);
    await expect(a!.execute(op, { key: 'k' })).resolves.toBe(value);
    await expect(b!.execute(op, { key: 'k' })).rejects.toBeInstanceOf(IdempotencyResultNotStorableError);
    await expect(a!.execute(op, { key: 'k' })).rejects.toBeInstanceOf(IdempotencyResultNotStorableError);
    expect(runs).toBe(1);
    expect(events.filter((e) => e.type === 'notStorable')).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 250));
    await expect(b!.execute(op, { key: 'k' })).resolves.toBe(value);
    expect(runs).toBe(2);
  });

  it('keeps TTLs in Redis: a stored result lapses after ttlMs', async () => {
    const store = redisStore(db.redis, { prefix: 't4:' });
    const p = idempotent({ store, ttlMs: 150 });
    let runs = 0;
    await p.execute(() => ++runs, { key: 'k' });
    await expect(p.execute(() => ++runs, { key: 'k' })).resolves.toBe(1);
    await new Promise((r) => setTimeout(r, 250));
    await expect(p.execute(() => ++runs, { key: 'k' })).resolves.toBe(2);
  });

  it('runs the operation once for 1,000 concurrent calls through 50 policies (claims race in Redis)', async () => {
    const store = redisStore(db.redis, { prefix: 't5:' });
    const policies = Array.from({ length: 50 }, () => idempotent({ store, pollMs: 20 }));
    const events: PolicyEvent[] = [];
    for (const p of policies) p.events$.subscribe((e) => events.push(e));
    let runs = 0;
    const calls = Array.from({ length: 1_000 }, (_, i) =>
      policies[i % 50]!.execute(
        async () => {
          runs++;
          await new Promise((r) => setTimeout(r, 50));
          return { id: 'r', n: runs };
        },
        { key: 'same' },
      ),
    );
    const results = await Promise.all(calls);
    expect(runs).toBe(1);
    expect(results.every((r) => r.n === 1)).toBe(true);
    expect(events.filter((e) => e.type === 'claimed')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'served')).toHaveLength(49);
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    expect(() => redisStore({} as never)).toThrow(ConfigError);
    expect(() => redisStore(db.redis, { commandTimeoutMs: 0 })).toThrow(/commandTimeoutMs/);
    expect(() => redisStore(db.redis, { prefix: 1 } as never)).toThrow(/prefix/);
    expect(() => redisStore(db.redis, { ttl: 1 } as never)).toThrow(/ttl/);
  });

  it('a call Redis does not answer within commandTimeoutMs rejects with StoreUnavailableError naming redisStore and the operation', async () => {
    // a client to a closed port queues its commands and retries forever: only the store's deadline ends a call
    const dead = new Redis(await freePort(), '127.0.0.1', { lazyConnect: true, retryStrategy: () => 50, maxRetriesPerRequest: null });
    dead.on('error', () => undefined);
    const clock = new TestClock(1_000_000);
    const store = redisStore(dead, { commandTimeoutMs: 250, clock });
    try {
      const calls: [string, () => Promise<unknown>][] = [
        ['claim', () => store.claim('k', 1_000, 1_000)],
        ['complete', () => store.complete('k', '1', '"v"', 1_000)],
        ['complete', () => store.completeNotStorable('k', '1', 1_000)],
        ['release', () => store.release('k', '1', 1_000)],
        ['extend', () => store.extend('k', '1', 1_000)],
      ];
      for (const [what, call] of calls) {
        const error = rejection(call());
        await clock.advance(250);
        const e = await error;
        expect(e).toBeInstanceOf(StoreUnavailableError);
        expect(e).toMatchObject({ policy: 'redisStore', message: `store ${what} did not answer within 250 ms (redisStore)` });
      }
    } finally {
      dead.disconnect();
    }
  });
});
