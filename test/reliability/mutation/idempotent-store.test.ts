import { describe, expect, it } from 'vitest';
import { ConfigError, isIdempotencyCodec, isIdempotencyStore, memoryStore } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { encodeChecked, type IdempotencyCodec } from '../../../policies/idempotent/codec.js';
import { LeaseRenewer } from '../../../policies/idempotent/renewer.js';

const T0 = 1_700_000_000_000;

async function claimedToken(p: Promise<unknown>): Promise<string> {
  const r = (await p) as { state: string; token: string };
  expect(r.state).toBe('claimed');
  return r.token;
}

describe('memoryStore contract', () => {
  it('a live lease answers pending with leaseUntil - now; at the lease end it is taken over', async () => {
    const clock = new TestClock(T0);
    const s = memoryStore({ clock });
    const t1 = await claimedToken(s.claim('k', 100, 1000));
    await clock.advance(30);
    expect(await s.claim('k', 100, 1000)).toEqual({ state: 'pending', retryInMs: 70 });
    await clock.advance(69);
    expect(await s.claim('k', 100, 1000)).toEqual({ state: 'pending', retryInMs: 1 });
    await clock.advance(1);
    const r = (await s.claim('k', 100, 1000)) as { state: string; token: string; takeover: boolean };
    expect(r.state).toBe('claimed');
    expect(r.takeover).toBe(true);
    expect(Number(r.token)).toBeGreaterThan(Number(t1));
  });

  it('tokens increase from claim to claim', async () => {
    const s = memoryStore({ clock: new TestClock(T0) });
    const a = await claimedToken(s.claim('a', 10, 10));
    const b = await claimedToken(s.claim('b', 10, 10));
    expect(Number(b)).toBeGreaterThan(Number(a));
    expect(Number(a)).toBeGreaterThan(0);
  });

  it('complete serves the value; complete/release/extend refuse a wrong token, a settled record, a missing key', async () => {
    const clock = new TestClock(T0);
    const s = memoryStore({ clock });
    const t = await claimedToken(s.claim('k', 100, 1000));
    expect(await s.complete('k', t + 'x', 'v', 1000)).toBe(false);
    expect(await s.release('k', t + 'x', 1000)).toBe(false);
    expect(await s.extend('k', t + 'x', 100)).toBe(false);
    expect(await s.complete('missing', t, 'v', 1000)).toBe(false);
    expect(await s.release('missing', t, 1000)).toBe(false);
    expect(await s.extend('missing', t, 100)).toBe(false);
    expect(await s.complete('k', t, 'v', 1000)).toBe(true);
    expect(await s.claim('k', 100, 1000)).toEqual({ state: 'success', value: 'v' });
    // settled: same token is refused now
    expect(await s.complete('k', t, 'w', 1000)).toBe(false);
    expect(await s.release('k', t, 1000)).toBe(false);
    expect(await s.extend('k', t, 100)).toBe(false);
    expect(await s.claim('k', 100, 1000)).toEqual({ state: 'success', value: 'v' });
  });

  it('release makes the key claimable again (no takeover), and a released record refuses its token', async () => {
    const s = memoryStore({ clock: new TestClock(T0) });
    const t = await claimedToken(s.claim('k', 100, 1000));
    expect(await s.release('k', t, 1000)).toBe(true);
    expect(await s.extend('k', t, 100)).toBe(false);
    expect(await s.complete('k', t, 'v', 1000)).toBe(false);
    const r = (await s.claim('k', 100, 1000)) as { state: string; takeover: boolean };
    expect(r).toMatchObject({ state: 'claimed', takeover: false });
  });

  it('extend moves the lease to now + leaseMs', async () => {
    const clock = new TestClock(T0);
    const s = memoryStore({ clock });
    const t = await claimedToken(s.claim('k', 100, 100));
    await clock.advance(50);
    expect(await s.extend('k', t, 300)).toBe(true);
    expect(await s.claim('k', 100, 100)).toEqual({ state: 'pending', retryInMs: 300 });
    await clock.advance(299);
    expect(await s.claim('k', 100, 100)).toEqual({ state: 'pending', retryInMs: 1 });
  });

  it('a record expires at exactly expiresAt', async () => {
    const clock = new TestClock(T0);
    const s = memoryStore({ clock });
    const t = await claimedToken(s.claim('k', 10, 10));
    await clock.advance(9);
    const t2 = await claimedToken(s.claim('j', 10, 10));
    await clock.advance(1);
    // 'k' expired at T0+10 exactly: its token no longer settles it
    expect(await s.complete('k', t, 'v', 1000)).toBe(false);
    expect(await s.extend('k', t, 10)).toBe(false);
    await clock.advance(8);
    expect(await s.complete('j', t2, 'v', 100)).toBe(true);
    await clock.advance(99);
    expect(await s.claim('j', 10, 10)).toEqual({ state: 'success', value: 'v' });
  });

  it('sweeps expired records once claims outnumber records, at exactly expiresAt', async () => {
    const clock = new TestClock(T0);
    const s = memoryStore({ clock });
    expect(s.size).toBe(0);
    await s.claim('a', 10, 10);
    await s.claim('b', 10, 10);
    expect(s.size).toBe(2);
    await clock.advance(10); // a and b expire now
    await s.claim('c', 1000, 1000);
    expect(s.size).toBe(3); // 2 claims since the last sweep, 2 records: no sweep yet
    await s.claim('c', 1000, 1000);
    expect(s.size).toBe(3); // 3 claims, 3 records
    await s.claim('c', 1000, 1000);
    expect(s.size).toBe(1); // 4 claims > 3 records: swept
  });

  it('does not sweep while claims since the last sweep only equal the records', async () => {
    const clock = new TestClock(T0);
    const s = memoryStore({ clock });
    await s.claim('a', 10, 10); // first claim sweeps (1 > 0), counter back to 0
    await clock.advance(10); // 'a' expired
    await s.claim('b', 1000, 1000);
    expect(s.size).toBe(2); // 1 claim, 1 record before it: no sweep, expired 'a' still held
    await s.claim('b', 1000, 1000);
    expect(s.size).toBe(2); // 2 claims, 2 records
    await s.claim('b', 1000, 1000);
    expect(s.size).toBe(1); // 3 > 2: swept
  });

  it('names itself in a ConfigError', () => {
    let err: unknown;
    try {
      memoryStore({ bogus: 1 } as never);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).policy).toBe('memoryStore');
  });
});

describe('isIdempotencyStore', () => {
  it('needs an object with claim, complete and release', () => {
    const m = { claim: () => {}, complete: () => {}, completeNotStorable: () => {}, release: () => {} };
    expect(isIdempotencyStore(m)).toBe(true);
    expect(isIdempotencyStore(null)).toBe(false);
    expect(isIdempotencyStore(undefined)).toBe(false);
    expect(isIdempotencyStore('store')).toBe(false);
    expect(isIdempotencyStore(Object.assign(() => {}, m))).toBe(false);
    expect(isIdempotencyStore({ complete: m.complete, release: m.release })).toBe(false);
    expect(isIdempotencyStore({ claim: m.claim, release: m.release })).toBe(false);
    expect(isIdempotencyStore({ claim: m.claim, complete: m.complete })).toBe(false);
  });
});
