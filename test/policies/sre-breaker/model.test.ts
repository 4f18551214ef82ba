import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, sreBreaker, type Clock, type BreakerPermit } from '../../../api/index.js';
import { T0 } from '../../helpers/breakers.js';
import { runs } from '../../helpers/fuzz.js';

/** go-zero's googleBreaker, written the slow, obvious way: every record kept, every decision recounted. */
class Model {
  records: { bucket: number; kind: 'success' | 'failure' | 'drop' }[] = [];
  lastPass = 0;
  constructor(
    readonly t0: number,
    readonly o: { k: number; minK: number; protection: number; forcePassMs: number; buckets: number; bucketMs: number },
  ) {}
  bucketOf(t: number) {
    return Math.floor((t - this.t0) / this.o.bucketMs);
  }
  history(t: number) {
    const cur = this.bucketOf(t);
    let accepts = 0, total = 0, working = 0, failing = 0;
    for (let b = cur - this.o.buckets + 1; b <= cur; b++) {
      const rs = this.records.filter((r) => r.bucket === b);
      const s = rs.filter((r) => r.kind === 'success').length;
      const f = rs.filter((r) => r.kind === 'failure').length;
      accepts += s;
      total += rs.length;
      if (f > 0) working = 0;
      else if (s > 0) working++;
      if (s > 0) failing = 0;
      else if (f > 0) failing++;
    }
    return { accepts, total, working, failing };
  }
  /** true: pass; false: shed. */
  accept(t: number, random: () => number): boolean {
    const { k, minK, protection, forcePassMs, buckets } = this.o;
    const h = this.history(t);
    const w = k - ((k - minK) * h.failing) / buckets;
    const weighted = Math.max(w, minK) * h.accepts;
    let dropRatio = (h.total - protection - weighted) / (h.total + 1);
    if (dropRatio <= 0) return true;
    if (this.lastPass > 0 && t - this.lastPass > forcePassMs) {
      forced++;
      this.lastPass = t;
      return true;
    }
    dropRatio *= (buckets - h.working) / buckets;
    if (random() < dropRatio) {
      this.records.push({ bucket: this.bucketOf(t), kind: 'drop' });
      return false;
    }
    this.lastPass = t;
    return true;
  }
}

let sheds = 0;
let forced = 0;

type Op = { dt: number; kind: 'success' | 'failure' | 'hold' | 'settle' };

describe('sreBreaker against a model of go-zero', () => {
  it('makes the same decisions, drawing the same random numbers', () => {
    fc.assert(
      fc.property(
        fc.record({
          k: fc.constantFrom(1.5, 2, 1.1),
          protection: fc.integer({ min: 0, max: 6 }),
          forcePassMs: fc.constantFrom(0, 100, 1_000),
          buckets: fc.constantFrom(4, 10, 40),
        }),
        fc.array(
          fc.record({
            dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 12_000 })),
            kind: fc.constantFrom('success' as const, 'failure' as const, 'failure' as const, 'hold' as const, 'settle' as const),
          }),
          { minLength: 10, maxLength: 200, size: 'max' },
        ),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 200, maxLength: 200 }),
        (opts, ops: Op[], randoms) => {
          const clock: Clock & { t: number } = { t: T0, now() { return this.t; }, setTimeout: () => 0, clearTimeout: () => {} };
          let i1 = 0, i2 = 0;
          const windowMs = opts.buckets * 250;
          const b = sreBreaker({ ...opts, minK: 1.1, windowMs, clock, random: () => randoms[i1++ % 200]! });
          const model = new Model(T0, { ...opts, minK: 1.1, bucketMs: 250 });
          const held: BreakerPermit[] = [];
          const heldKinds: ('success' | 'failure')[] = [];
          for (const op of ops) {
            clock.t += op.dt;
            if (op.kind === 'settle') {
              const p = held.shift();
              if (p) {
                const kind = heldKinds.shift()!;
                p[kind]();
                model.records.push({ bucket: model.bucketOf(clock.t), kind });
              }
              continue;
            }
            const passed = model.accept(clock.t, () => randoms[i2++ % 200]!);
            let permit: BreakerPermit | undefined;
            try {
              permit = b.allow();
            } catch (e) {
              sheds++;
              expect(e).toBeInstanceOf(BrokenCircuitError);
            }
            expect(permit !== undefined).toBe(passed);
            expect(i1).toBe(i2);
            if (!permit) continue;
            if (op.kind === 'hold') {
              held.push(permit);
              heldKinds.push(held.length % 2 ? 'success' : 'failure');
            } else {
              permit[op.kind]();
              model.records.push({ bucket: model.bucketOf(clock.t), kind: op.kind });
            }
            const h = model.history(clock.t);
            expect(b.stats()).toEqual({ accepts: h.accepts, total: h.total, failingBuckets: h.failing, workingBuckets: h.working });
          }
        },
      ),
      { numRuns: runs(200) },
    );
    // the runs must shed and force-pass, not only pass
    expect(sheds).toBeGreaterThan(500);
    expect(forced).toBeGreaterThan(100);
  });
});
