import { expect, it } from 'vitest';
import { exchangeScript, leaveScript, readSummaries, writeSummary } from '../../../integrations/redis/fleet-script.js';
import { describeRedis, useRedis } from '../../helpers/redis.js';

it('writeSummary and readSummaries: what one writes, the other reads back, with the age Redis prefixed', () => {
  const written = writeSummary({ seq: 'n.7', sick: true, fleetOpen: false, state: 'half-open' });
  expect(written).toBe('n.7|1|0|half-open');
  const read = readSummaries(['a', `12|${written}`, 'b', '0|n.1|0|1|open']);
  expect([...read]).toEqual([
    ['a', { seq: 'n.7', sick: true, fleetOpen: false, state: 'half-open', ageMs: 12 }],
    ['b', { seq: 'n.1', sick: false, fleetOpen: true, state: 'open', ageMs: 0 }],
  ]);
});

it('readSummaries leaves out an entry it cannot read, and refuses a reply that is not a list', () => {
  const read = readSummaries(['x', 'old-format', 'y', '5|s|1|0|broken', 'z', 'NaN|s|1|0|open', 'w', '3||1|0|open', 'ok', '3|s|0|0|closed']);
  expect([...read.keys()]).toEqual(['ok']);
  expect(() => readSummaries(null)).toThrow(TypeError);
  expect(() => readSummaries('OK')).toThrow('unexpected reply to the fleet exchange: OK');
});

describeRedis('the fleet exchange script', () => {
  const db = useRedis();

  it('writes the summary stamped by Redis, keeps the hash for the TTL given, and replies with every fresh summary and its age', async () => {
    const key = 'script:fresh';
    const ms = async () => {
      const [seconds, micros] = await db.redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    };
    const before = await ms();
    await exchangeScript.run(db.redis, [key], ['a', 'n.1|1|0|open', 60_000, 60_000]);
    const after = await ms();
    // stamped by Redis's clock, between the two readings of it
    const stamp = Number((await db.redis.hget(key, 'a'))!.split('|')[0]);
    expect(stamp).toBeGreaterThanOrEqual(before);
    expect(stamp).toBeLessThanOrEqual(after);
    const reply = (await exchangeScript.run(db.redis, [key], ['b', 'm.1|0|0|closed', 60_000, 60_000])) as string[];
    const read = readSummaries(reply);
    expect([...read.keys()].sort()).toEqual(['a', 'b']);
    expect(read.get('a')).toMatchObject({ seq: 'n.1', sick: true, fleetOpen: false, state: 'open' });
    expect(read.get('a')!.ageMs).toBeGreaterThanOrEqual(0);
    expect(read.get('b')).toEqual({ seq: 'm.1', sick: false, fleetOpen: false, state: 'closed', ageMs: 0 });
    const ttl = await db.redis.pttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('drops summaries older than staleMs by Redis clock, and unreadable ones, from the reply and the hash', async () => {
    const key = 'script:stale';
    await db.redis.hset(key, 'ancient', '1000|s.1|1|0|open', 'junk', 'no stamp', 'empty', '');
    const reply = (await exchangeScript.run(db.redis, [key], ['a', 'n.1|0|0|closed', 60_000, 60_000])) as string[];
    expect(reply.filter((_, i) => i % 2 === 0)).toEqual(['a']);
    expect(await db.redis.hkeys(key)).toEqual(['a']);
  });

  it('leave removes only the instance given', async () => {
    const key = 'script:leave';
    await exchangeScript.run(db.redis, [key], ['a', 'n.1|0|0|closed', 60_000, 60_000]);
    await exchangeScript.run(db.redis, [key], ['b', 'n.1|0|0|closed', 60_000, 60_000]);
    expect(await leaveScript.run(db.redis, [key], ['a'])).toBe(1);
    expect(await db.redis.hkeys(key)).toEqual(['b']);
  });
});
