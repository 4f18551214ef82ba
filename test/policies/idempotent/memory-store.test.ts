import { describe, expect, it } from 'vitest';
import { memoryStore } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

async function claimedToken(p: Promise<unknown>): Promise<string> {
  const r = (await p) as { state: string; token: string };
  expect(r.state).toBe('claimed');
  return r.token;
}

describe('memoryStore', () => {
  it('a record completed as not storable answers notStorable for ttlMs, then the key is claimable afresh', async () => {
    const clock = new TestClock(START);
    const s = memoryStore({ clock });
    const t = await claimedToken(s.claim('k', 100, 5_000));
    await expect(s.completeNotStorable('k', t, 1_000)).resolves.toBe(true);
    await expect(s.claim('k', 100, 5_000)).resolves.toEqual({ state: 'notStorable' });
    // kept ttlMs from completion, not from the claim's record TTL
    await clock.advance(999);
    await expect(s.claim('k', 100, 5_000)).resolves.toEqual({ state: 'notStorable' });
    await clock.advance(1);
    const again = (await s.claim('k', 100, 5_000)) as { state: string; token: string; takeover: boolean };
    expect(again).toMatchObject({ state: 'claimed', takeover: false });
    expect(Number(again.token)).toBeGreaterThan(Number(t));
  });

  it('completeNotStorable is fenced, and a not-storable record refuses every later settlement', async () => {
    const clock = new TestClock(START);
    const s = memoryStore({ clock });
    const t = await claimedToken(s.claim('k', 100, 1_000));
    await expect(s.completeNotStorable('k', t + 'x', 1_000)).resolves.toBe(false);
    await expect(s.completeNotStorable('missing', t, 1_000)).resolves.toBe(false);
    await expect(s.completeNotStorable('k', t, 1_000)).resolves.toBe(true);
    await expect(s.completeNotStorable('k', t, 1_000)).resolves.toBe(false);
    await expect(s.complete('k', t, '"late"', 1_000)).resolves.toBe(false);
    await expect(s.release('k', t, 1_000)).resolves.toBe(false);
    await expect(s.extend('k', t, 100)).resolves.toBe(false);
    await expect(s.claim('k', 100, 1_000)).resolves.toEqual({ state: 'notStorable' });
    // a stored success is not turned into a not-storable record either
    const u = await claimedToken(s.claim('v', 100, 1_000));
    await s.complete('v', u, '1', 1_000);
    await expect(s.completeNotStorable('v', u, 1_000)).resolves.toBe(false);
    await expect(s.claim('v', 100, 1_000)).resolves.toEqual({ state: 'success', value: '1' });
  });

  it('a claim whose lease lapsed can no longer be completed as not storable by its old claimant', async () => {
    const clock = new TestClock(START);
    const s = memoryStore({ clock });
    const old = await claimedToken(s.claim('k', 100, 1_000));
    await clock.advance(100);
    const fresh = await claimedToken(s.claim('k', 100, 1_000));
    await expect(s.completeNotStorable('k', old, 1_000)).resolves.toBe(false);
    await expect(s.completeNotStorable('k', fresh, 1_000)).resolves.toBe(true);
  });
});
