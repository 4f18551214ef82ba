import { expect, it } from 'vitest';
import { isRedisClient, redisStore } from '../../../integrations/redis/index.js';
import { LuaScript, type RedisClient } from '../../../integrations/redis/script.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

const fn = (): Promise<unknown> => Promise.resolve(null);

it('isRedisClient: an object with evalsha and eval functions, and nothing else', () => {
  expect(isRedisClient({ evalsha: fn, eval: fn })).toBe(true);
  expect(isRedisClient(null)).toBe(false);
  expect(isRedisClient(undefined)).toBe(false);
  expect(isRedisClient('redis://127.0.0.1:6379')).toBe(false);
  expect(isRedisClient(6379)).toBe(false);
  expect(isRedisClient({})).toBe(false);
  expect(isRedisClient({ eval: fn })).toBe(false);
  expect(isRedisClient({ evalsha: fn })).toBe(false);
  expect(isRedisClient({ evalsha: 'x', eval: fn })).toBe(false);
  expect(isRedisClient({ evalsha: fn, eval: 'x' })).toBe(false);
  // a function is not a client, whatever it carries
  expect(isRedisClient(Object.assign(() => undefined, { evalsha: fn, eval: fn }))).toBe(false);
});

it('LuaScript: a rejection that is not an Error is passed on as it is, and the script is not sent again', async () => {
  // Hand-made client: a real server always answers with an Error, never with null.
  const sent: string[] = [];
  const client: RedisClient = {
    evalsha: () => (sent.push('evalsha'), Promise.reject(null)),
    eval: () => (sent.push('eval'), Promise.resolve('ran')),
  };
  await expect(new LuaScript('return 1').run(client, [], [])).rejects.toBeNull();
  expect(sent).toEqual(['evalsha']);
});

describeRedis('LuaScript on a real server', () => {
  const db = useRedis();

  it('runs by SHA1 once the server knows the script, and loads it again after SCRIPT FLUSH', async () => {
    const script = new LuaScript("return redis.call('INCR', KEYS[1]) + tonumber(ARGV[1])");
    await db.redis.script('FLUSH');
    await expect(script.run(db.redis, ['s1:n'], [100])).resolves.toBe(101);
    expect(await db.redis.script('EXISTS', script.sha)).toEqual([1]);
    await expect(script.run(db.redis, ['s1:n'], [100])).resolves.toBe(102);
    await db.redis.script('FLUSH');
    expect(await db.redis.script('EXISTS', script.sha)).toEqual([0]);
    await expect(script.run(db.redis, ['s1:n'], [100])).resolves.toBe(103);
    expect(await db.redis.get('s1:n')).toBe('3');
  });

  it('an error other than NOSCRIPT rejects as the server sent it, without running the script a second time', async () => {
    const script = new LuaScript("redis.call('INCR', KEYS[1]) return redis.error_reply('boom')");
    await db.redis.script('LOAD', script.source);
    const error = await script.run(db.redis, ['s2:n'], []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe('ERR boom');
    expect(await db.redis.get('s2:n')).toBe('1');
  });

  it('redisStore works on a server that flushed its scripts', async () => {
    const store = redisStore(db.redis, { prefix: 's3:' });
    await expect(store.claim('k', 10_000, 60_000)).resolves.toEqual({ state: 'claimed', token: '1', takeover: false });
    await db.redis.script('FLUSH');
    await expect(store.complete('k', '1', '"v"', 60_000)).resolves.toBe(true);
    await db.redis.script('FLUSH');
    await expect(store.claim('k', 10_000, 60_000)).resolves.toEqual({ state: 'success', value: '"v"' });
  });
});
