import { describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { idempotent, memoryStore } from '../../../policies/idempotent/index.js';
import { own } from '../../helpers/events.js';

const T0 = 1_700_000_000_000;

describe('idempotent events', () => {
  it('claimed with its token, joined with the callers sharing the run, then served from the record', async () => {
    const clock = new TestClock(T0);
    const p = idempotent({ store: memoryStore({ clock }), clock, name: 'orders' });
    const seen = own(p);
    let release!: (v: string) => void;
    const first = p.execute(() => new Promise<string>((r) => (release = r)), { key: 'o1' });
    const second = p.execute(() => 'not run', { key: 'o1' });
    const third = p.execute(() => 'not run', { key: 'o1' });
    await clock.advance(0);
    release('done');
    expect(await Promise.all([first, second, third])).toEqual(['done', 'done', 'done']);
    await clock.advance(0);
    expect(await p.execute(() => 'not run', { key: 'o1' })).toBe('done');
    expect(seen).toEqual([
      { type: 'joined', policy: 'orders', key: 'o1', callers: 2 },
      { type: 'joined', policy: 'orders', key: 'o1', callers: 3 },
      { type: 'claimed', policy: 'orders', key: 'o1', token: expect.any(String) },
      { type: 'served', policy: 'orders', key: 'o1' },
    ]);
  });

  it('takeover: another instance claims a key whose claimant’s lease expired, with a new token', async () => {
    const clock = new TestClock(T0);
    const store = memoryStore({ clock });
    const a = idempotent({ store, clock, leaseMs: 1_000, name: 'a' });
    const b = idempotent({ store, clock, leaseMs: 1_000, name: 'b' });
    const seenA = own(a);
    const seenB = own(b);
    void a.execute(() => new Promise(() => {}), { key: 'k' });
    await clock.advance(1_000);
    const run = b.execute(() => 'b ran', { key: 'k' });
    await clock.advance(0);
    expect(await run).toBe('b ran');
    expect(seenA).toEqual([{ type: 'claimed', policy: 'a', key: 'k', token: expect.any(String) }]);
    expect(seenB).toEqual([{ type: 'takeover', policy: 'b', key: 'k', token: expect.any(String) }]);
    expect((seenB[0] as { token: string }).token).not.toBe((seenA[0] as { token: string }).token);
  });

  it('notStorable: the callers get a result the codec cannot keep, and the event says why', async () => {
    const clock = new TestClock(T0);
    const p = idempotent({ store: memoryStore({ clock }), clock });
    const seen = own(p);
    const value = { at: new Date(T0) };
    expect(await p.execute(() => value, { key: 'd' })).toBe(value);
    expect(seen).toEqual([
      { type: 'claimed', policy: 'idempotent', key: 'd', token: expect.any(String) },
      { type: 'notStorable', policy: 'idempotent', key: 'd', error: expect.any(TypeError) },
    ]);
    expect((seen[1] as { error: Error }).error.message).toContain('"d" does not survive the codec\'s round trip');
  });
});
