import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goZeroOrigin, leapArrayOrigin, RollingWindow } from '../../lib/window.js';
import { runs } from '../helpers/fuzz.js';

const T0 = 1_700_000_000_123;

function sums(w: RollingWindow, now: number): [number, number, number] {
  w.read(now);
  return [w.v0, w.v1, w.v2];
}

describe('RollingWindow', () => {
  it('go-zero grid: a record at t stays visible until t0 + (b + size) * bucketMs, exclusive', () => {
    const w = new RollingWindow(4, 100, goZeroOrigin(T0));
    w.add(T0 + 250, 1, 0, 0); // bucket 2
    const gone = T0 + (2 + 4) * 100;
    expect(sums(w, gone - 1)).toEqual([1, 0, 0]);
    expect(sums(w, gone)).toEqual([0, 0, 0]);
  });

  it('leap-array grid: buckets start at multiples of the bucket length on the clock', () => {
    const origin = leapArrayOrigin(T0, 1000);
    expect(origin % 1000).toBe(0);
    const w = new RollingWindow(10, 1000, origin);
    const b = Math.floor(T0 / 1000) * 1000; // start of T0's bucket
    w.add(b + 999, 1, 1, 0);
    w.add(b + 1000, 1, 0, 0); // next bucket
    expect(sums(w, b + 1000)).toEqual([2, 1, 0]);
    // the first bucket leaves at b + 10 000, the second at b + 11 000
    expect(sums(w, b + 9_999)).toEqual([2, 1, 0]);
    expect(sums(w, b + 10_000)).toEqual([1, 0, 0]);
    expect(sums(w, b + 10_999)).toEqual([1, 0, 0]);
    expect(sums(w, b + 11_000)).toEqual([0, 0, 0]);
  });

  it('reading never changes what the window holds', () => {
    const w = new RollingWindow(4, 100, T0);
    w.add(T0, 1, 0, 0);
    w.add(T0 + 100, 0, 1, 0);
    const before = { head: w.head, s: [w.s0, w.s1, w.s2], counts: Array.from(w.counts!) };
    sums(w, T0 + 10_000);
    sums(w, T0 + 450);
    expect({ head: w.head, s: [w.s0, w.s1, w.s2], counts: Array.from(w.counts!) }).toEqual(before);
    expect(sums(w, T0 + 150)).toEqual([1, 1, 0]);
  });

  it('advancing by size buckets or more at once clears everything', () => {
    const w = new RollingWindow(4, 100, T0);
    w.add(T0, 1, 0, 0);
    w.add(T0 + 100, 1, 0, 0);
    w.add(T0 + 100 + 400, 0, 0, 1);
    expect(sums(w, T0 + 500)).toEqual([0, 0, 1]);
  });

  it('keeps running sums across many rolls (O(1) per record)', () => {
    const w = new RollingWindow(5, 10, T0);
    const log: [number, number][] = [];
    for (let t = 0; t < 500; t += 3) {
      w.add(T0 + t, 1, t % 2, 0);
      log.push([t, t % 2]);
      const cur = Math.floor(t / 10);
      const visible = log.filter(([u]) => cur - Math.floor(u / 10) < 5);
      expect(sums(w, T0 + t)).toEqual([visible.length, visible.filter(([, f]) => f).length, 0]);
    }
  });

  it('allocates no arrays while all records sit in one bucket', () => {
    const w = new RollingWindow(40, 250, T0);
    w.add(T0 + 10, 1, 0, 0);
    w.add(T0 + 20, 0, 1, 0);
    expect(w.counts).toBeUndefined();
    w.add(T0 + 20_000, 1, 0, 0); // the first bucket has expired: still none
    expect(w.counts).toBeUndefined();
    expect(sums(w, T0 + 20_000)).toEqual([1, 0, 0]);
    w.add(T0 + 20_250, 1, 0, 0);
    expect(w.counts).toBeInstanceOf(Uint32Array);
    expect(sums(w, T0 + 20_250)).toEqual([2, 0, 0]);
  });

  it('a clock that steps back records into the newest bucket', () => {
    const w = new RollingWindow(4, 100, T0);
    w.add(T0 + 300, 1, 0, 0);
    w.add(T0 + 50, 1, 0, 0);
    expect(w.count(3, 3, 0)).toBe(2);
    expect(w.count(0, 3, 0)).toBe(0);
  });

  it('count() reads single buckets as seen from a later bucket', () => {
    const w = new RollingWindow(4, 100, T0);
    w.add(T0, 2, 0, 0);
    w.add(T0 + 100, 0, 3, 0);
    expect(w.count(0, 1, 0)).toBe(2);
    expect(w.count(1, 1, 1)).toBe(3);
    expect(w.count(0, 4, 0)).toBe(0); // expired as seen from bucket 4
    expect(w.count(1, 4, 1)).toBe(3);
  });
});


describe('RollingWindow against a naive model', () => {
  it('read() and count() agree with recounting every record', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 0, max: 999 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 120 }), fc.nat(3), fc.nat(3), fc.nat(3), fc.boolean()), { minLength: 1, maxLength: 80, size: 'max' }),
        (size, bucketMs, offset, leap, ops) => {
          const t0 = T0 + offset;
          const origin = leap ? leapArrayOrigin(t0, bucketMs) : goZeroOrigin(t0);
          const w = new RollingWindow(size, bucketMs, origin);
          const log: [number, number, number, number][] = [];
          let now = t0;
          for (const [dt, a, b, c, write] of ops) {
            now += dt;
            const idx = Math.floor((now - origin) / bucketMs);
            if (write) {
              w.add(now, a, b, c);
              log.push([idx, a, b, c]);
            }
            const visible = log.filter(([i]) => idx - i < size);
            const sum = (k: 1 | 2 | 3) => visible.reduce((s, r) => s + r[k], 0);
            expect(sums(w, now)).toEqual([sum(1), sum(2), sum(3)]);
            for (let i = idx - size + 1; i <= idx; i++) {
              expect(w.count(i, idx, 1)).toBe(log.filter(([j]) => j === i).reduce((s, r) => s + r[2], 0));
            }
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });
});

describe('window: from the survivors', () => {
  it('a lazy window (one bucket recorded) reads its sums from a later bucket still in view', () => {
    const w = new RollingWindow(4, 100, 0);
    w.add(10, 1, 2, 3);
    w.read(150);
    expect([w.v0, w.v1, w.v2]).toEqual([1, 2, 3]);
    w.read(399);
    expect([w.v0, w.v1, w.v2]).toEqual([1, 2, 3]);
    w.read(400);
    expect([w.v0, w.v1, w.v2]).toEqual([0, 0, 0]);
    expect([w.count(0, 3, 0), w.count(0, 3, 1), w.count(0, 3, 2)]).toEqual([1, 2, 3]);
  });
});
