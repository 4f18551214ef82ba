import { describe, expect, it } from 'vitest';
import { ConfigError, jsonCacheCodec, memoryCacheStore, type CacheRecord } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';

const rec = (value: unknown): CacheRecord => ({ value, storedAt: 0, expiresAt: 10, staleUntil: 10 });

describe('memoryCacheStore', () => {
  it('evicts the least recently used key past maxEntries', async () => {
    const s = memoryCacheStore({ maxEntries: 2 });
    await s.set('a', rec(1), Infinity);
    await s.set('b', rec(2), Infinity);
    await s.get('a'); // a is now the most recent
    await s.set('c', rec(3), Infinity);
    expect(await s.get('b')).toBeUndefined();
    expect((await s.get('a'))?.value).toBe(1);
    expect((await s.get('c'))?.value).toBe(3);
    expect(s.size).toBe(2);
  });

  it('drops a record once retainMs passed on its clock', async () => {
    const clock = new TestClock(1_000);
    const s = memoryCacheStore({ clock });
    await s.set('a', rec(1), 100);
    await clock.advance(99);
    expect((await s.get('a'))?.value).toBe(1);
    await clock.advance(1);
    expect(await s.get('a')).toBeUndefined();
    expect(s.size).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('with a codec, serializes values: each read is a copy, and unencodable values are refused', async () => {
    const s = memoryCacheStore({ codec: jsonCacheCodec });
    const v = { n: 1 };
    await s.set('a', rec(v), Infinity);
    const got = await s.get('a');
    expect(got).toEqual(rec(v));
    expect(got!.value).not.toBe(v);
    await expect(s.set('b', rec(undefined), Infinity)).rejects.toThrow(TypeError);
    await s.delete('a');
    expect(await s.get('a')).toBeUndefined();
  });

  it('bad options are a ConfigError naming the option', () => {
    expect(() => memoryCacheStore({ maxEntries: 0 })).toThrow(ConfigError);
    expect(() => memoryCacheStore({ maxEntries: 0 })).toThrow(/maxEntries/);
  });
});
