import { describe, expect, it } from 'vitest';
import { TestClock } from '../../../lib/testing.js';
import { LeaseRenewer } from '../../../policies/idempotent/renewer.js';

const T0 = 1_700_000_000_000;

describe('LeaseRenewer', () => {
  it('renews every everyMs while ours; stop clears its timer', async () => {
    const clock = new TestClock(T0);
    const at: number[] = [];
    const r = new LeaseRenewer(clock, 100, () => {
      at.push(clock.now() - T0);
      return Promise.resolve(true);
    });
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(99);
    expect(at).toEqual([]);
    await clock.advance(201);
    expect(at).toEqual([100, 200, 300]);
    r.stop();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(1000);
    expect(at).toEqual([100, 200, 300]);
  });

  it('stops when the store answers false', async () => {
    const clock = new TestClock(T0);
    let n = 0;
    new LeaseRenewer(clock, 100, () => Promise.resolve(++n < 2));
    await clock.advance(1000);
    expect(n).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('tries again after a failed extension', async () => {
    const clock = new TestClock(T0);
    let n = 0;
    const r = new LeaseRenewer(clock, 100, () => (++n === 1 ? Promise.reject(new Error('x')) : Promise.resolve(true)));
    await clock.advance(300);
    expect(n).toBe(3);
    r.stop();
    expect(clock.pendingTimers).toBe(0);
  });

  it('stopped during an extension, it does not arm again', async () => {
    const clock = new TestClock(T0);
    let answer!: (v: boolean) => void;
    const r = new LeaseRenewer(clock, 100, () => new Promise<boolean>((res) => (answer = res)));
    await clock.advance(100);
    expect(clock.pendingTimers).toBe(0);
    r.stop();
    answer(true);
    await clock.advance(0);
    expect(clock.pendingTimers).toBe(0);
  });
});
