import { describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { cache } from '../../../policies/cache/index.js';
import { collect, own } from '../../helpers/events.js';

const T0 = 1_700_000_000_000;

describe('cache events', () => {
  it('miss then hit: the key; a miss says whether it shared a call in flight, a hit whether it was stale', async () => {
    const clock = new TestClock(T0);
    const c = cache({ ttlMs: 100, staleWhileRevalidateMs: 100, clock, name: 'users' });
    const seen = own(c);
    let release!: (v: string) => void;
    const first = c.execute(() => new Promise<string>((r) => (release = r)), { key: 'u1' });
    const second = c.execute(() => 'not called', { key: 'u1' });
    await clock.advance(0);
    release('alice');
    expect([await first, await second]).toEqual(['alice', 'alice']);
    await clock.advance(0);
    expect(await c.execute(() => 'not called', { key: 'u1' })).toBe('alice');
    expect(seen).toEqual([
      { type: 'miss', policy: 'users', key: 'u1', coalesced: false },
      { type: 'miss', policy: 'users', key: 'u1', coalesced: true },
      { type: 'hit', policy: 'users', key: 'u1', stale: false },
    ]);
  });

  it('a stale hit starts a refresh; revalidated reports it with ok true once stored', async () => {
    const clock = new TestClock(T0);
    const c = cache({ ttlMs: 100, staleWhileRevalidateMs: 100, clock });
    await c.execute(() => 'v1', { key: 'k' });
    await clock.advance(150);
    const seen = own(c);
    expect(await c.execute(() => 'v2', { key: 'k' })).toBe('v1');
    await clock.advance(0);
    expect(seen).toEqual([
      { type: 'hit', policy: 'cache', key: 'k', stale: true },
      { type: 'revalidated', policy: 'cache', key: 'k', ok: true },
    ]);
    expect(await c.execute(() => 'v3', { key: 'k' })).toBe('v2');
  });

  it('a refresh whose result handleResult refuses reports ok: false and keeps the stale value', async () => {
    const clock = new TestClock(T0);
    const c = cache({ ttlMs: 10, staleWhileRevalidateMs: 100, clock, handleResult: (v) => v === 503 });
    const events = collect(c);
    await c.execute(() => 200, { key: 'k' });
    await clock.advance(20);
    await expect(c.execute(() => 503, { key: 'k' })).resolves.toBe(200);
    await clock.advance(0);
    expect(events.filter((e) => e.type === 'revalidated')).toEqual([{ type: 'revalidated', policy: 'cache', key: 'k', ok: false }]);
    // the refresh is over: the next stale read starts another
    await expect(c.execute(() => 201, { key: 'k' })).resolves.toBe(200);
    await clock.advance(0);
    await expect(c.execute(() => 202, { key: 'k' })).resolves.toBe(201);
  });

  it('a failed refresh reports its error with the key and policy name', async () => {
    const clock = new TestClock(T0);
    const c = cache({ ttlMs: 10, staleWhileRevalidateMs: 100, clock, name: 'users' });
    const events = collect(c);
    await c.execute(() => 'v1', { key: 'k' });
    await clock.advance(20);
    const down = new Error('down');
    await c.execute(() => Promise.reject(down), { key: 'k' });
    await clock.advance(0);
    expect(events.filter((e) => e.type === 'revalidated')).toEqual([{ type: 'revalidated', policy: 'users', key: 'k', ok: false, error: down }]);
    // the refresh is over: the next stale read refreshes again
    await c.execute(() => 'v2', { key: 'k' });
    await clock.advance(0);
    await expect(c.execute(() => 'v3', { key: 'k' })).resolves.toBe('v2');
  });
});
