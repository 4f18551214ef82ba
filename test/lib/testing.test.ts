import { describe, expect, it } from 'vitest';
import { scriptedRandom, seededRandom, TestClock } from '../../lib/testing.js';

const T0 = 1_700_000_000_000;

describe('TestClock', () => {
  it('starts at the time given and moves only when advanced', async () => {
    const clock = new TestClock(T0);
    expect(clock.now()).toBe(T0);
    await clock.advance(25);
    expect(clock.now()).toBe(T0 + 25);
    await clock.advanceTo(T0 + 100);
    expect(clock.now()).toBe(T0 + 100);
    // advanceTo never goes back
    await clock.advanceTo(T0);
    expect(clock.now()).toBe(T0 + 100);
    expect(new TestClock().now()).toBe(0);
  });

  it('fires due timers in order of time, then of creation, each at its own time', async () => {
    const clock = new TestClock(T0);
    const fired: string[] = [];
    const at = (label: string) => () => fired.push(`${label}@${clock.now() - T0}`);
    clock.setTimeout(at('c'), 30);
    clock.setTimeout(at('a1'), 10);
    clock.setTimeout(at('a2'), 10);
    clock.setTimeout(at('late'), 31);
    await clock.advance(30);
    expect(fired).toEqual(['a1@10', 'a2@10', 'c@30']);
    expect(clock.pendingTimers).toBe(1);
  });

  it('a timer armed by a timer fires in the same advance when it falls due', async () => {
    const clock = new TestClock(T0);
    const fired: number[] = [];
    clock.setTimeout(() => clock.setTimeout(() => fired.push(clock.now() - T0), 5), 5);
    await clock.advance(10);
    expect(fired).toEqual([10]);
  });

  it('settles promise callbacks between timers', async () => {
    const clock = new TestClock(T0);
    const order: string[] = [];
    clock.setTimeout(() => void Promise.resolve().then(() => order.push('then of first')), 1);
    clock.setTimeout(() => order.push('second'), 1);
    await clock.advance(1);
    expect(order).toEqual(['then of first', 'second']);
  });

  it('a delay that is negative, NaN or infinite fires at the next advance, at once', async () => {
    const clock = new TestClock(T0);
    const fired: number[] = [];
    for (const ms of [-5, Number.NaN, Infinity]) clock.setTimeout(() => fired.push(clock.now() - T0), ms);
    await clock.advance(0);
    expect(fired).toEqual([0, 0, 0]);
  });

  it('clearTimeout disarms a timer, once; a foreign handle is ignored', async () => {
    const clock = new TestClock(T0);
    let fired = 0;
    const h = clock.setTimeout(() => fired++, 5);
    clock.setTimeout(() => fired++, 5);
    clock.clearTimeout(h);
    clock.clearTimeout(h);
    clock.clearTimeout({} as never);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(5);
    expect(fired).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('unref takes a timer out of pendingTimers, not out of armedTimers; it still fires; ref counts it again', async () => {
    const clock = new TestClock(T0);
    let fired = 0;
    const h = clock.setTimeout(() => fired++, 5) as ReturnType<TestClock['setTimeout']> & { unref(): unknown; ref(): unknown; hasRef(): boolean };
    h.unref();
    h.unref();
    expect(h.hasRef()).toBe(false);
    expect(clock.pendingTimers).toBe(0);
    expect(clock.armedTimers).toBe(1);
    h.ref();
    h.ref();
    expect(clock.pendingTimers).toBe(1);
    h.unref();
    await clock.advance(5);
    expect(fired).toBe(1);
    expect(clock.armedTimers).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('advance refuses a negative or NaN step', async () => {
    const clock = new TestClock(T0);
    await expect(clock.advance(-1)).rejects.toThrow('TestClock.advance: expected ms >= 0, got -1');
    await expect(clock.advance(Number.NaN)).rejects.toBeInstanceOf(RangeError);
    expect(clock.now()).toBe(T0);
  });

  it('runAll fires every timer, however far, and stops a timer that re-arms forever at its limit', async () => {
    const clock = new TestClock(T0);
    const fired: number[] = [];
    clock.setTimeout(() => fired.push(clock.now() - T0), 1_000);
    clock.setTimeout(() => fired.push(clock.now() - T0), 60_000);
    await clock.runAll();
    expect(fired).toEqual([1_000, 60_000]);
    expect(clock.armedTimers).toBe(0);
    const again = (): void => void clock.setTimeout(again, 1);
    again();
    await expect(clock.runAll(3)).rejects.toThrow('TestClock.runAll: still timers after 3 rounds');
  });
});

describe('seededRandom', () => {
  it('the same seed gives the same sequence; another seed another one; every draw is in [0, 1)', () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const c = seededRandom(43);
    const xs = Array.from({ length: 1_000 }, () => a());
    expect(Array.from({ length: 1_000 }, () => b())).toEqual(xs);
    expect(Array.from({ length: 1_000 }, () => c())).not.toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(new Set(xs).size).toBeGreaterThan(990);
  });

  it('spreads its draws over [0, 1): each tenth gets between 5 % and 15 % of 10 000 draws', () => {
    const r = seededRandom(7);
    const tenths = new Array<number>(10).fill(0);
    for (let i = 0; i < 10_000; i++) tenths[Math.floor(r() * 10)]!++;
    for (const n of tenths) {
      expect(n).toBeGreaterThan(500);
      expect(n).toBeLessThan(1_500);
    }
  });
});

describe('scriptedRandom', () => {
  it('returns the given values in order, counts its draws, and throws past the end', () => {
    const r = scriptedRandom(0.1, 0.9);
    expect(r.draws).toBe(0);
    expect(r()).toBe(0.1);
    expect(r()).toBe(0.9);
    expect(r.draws).toBe(2);
    expect(() => r()).toThrow('scriptedRandom: drew value 3 of 2');
    expect(r.draws).toBe(2);
  });
});
