import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { circuitBreaker, type CircuitBreakerOptions, type Clock, type BreakerPermit } from '../../../api/index.js';
import { T0 } from '../../helpers/breakers.js';
import { runs } from '../../helpers/fuzz.js';

type Strategy = 'errorRatio' | 'slowCallRatio' | 'errorCount' | 'consecutiveFailures';
interface Opts {
  strategy: Strategy;
  threshold: number;
  minRequests: number;
  probes: number;
  openMs: number;
  maxHalfOpenMs: number;
  slowCallMs: number;
}
const WINDOW = 1_000;
const BUCKETS = 4;
const BUCKET = WINDOW / BUCKETS;

/** The state machine of breakers.md B, the slow obvious way: every record kept and recounted. */
class Model {
  state: 'closed' | 'open' | 'half-open' = 'closed';
  gen = 0;
  records: { t: number; failed: boolean; slow: boolean }[] = [];
  retryAt = 0;
  waitSince = 0;
  inFlight = 0;
  successes = 0;
  streak = 0;
  constructor(readonly o: Opts) {}
  visible(t: number) {
    const cur = Math.floor(t / BUCKET);
    return this.records.filter((r) => cur - Math.floor(r.t / BUCKET) < BUCKETS);
  }
  private go(state: Model['state'], t: number) {
    this.state = state;
    this.gen++;
    this.inFlight = 0;
    this.successes = 0;
    this.streak = 0;
    if (state === 'open') this.retryAt = t + this.o.openMs;
    if (state === 'closed') this.records = [];
  }
  private expired(t: number) {
    if (this.state === 'half-open' && this.inFlight > 0 && t - this.waitSince > this.o.maxHalfOpenMs) {
      this.go('open', t);
      return true;
    }
    return false;
  }
  /** the generation admitted in, or -1 when shed */
  allow(t: number): number {
    if (this.state === 'closed') return this.gen;
    if (this.state === 'open') {
      if (t < this.retryAt) return -1;
      this.go('half-open', t);
      this.waitSince = t;
      this.inFlight = 1;
      return this.gen;
    }
    if (this.expired(t)) return -1;
    if (this.inFlight >= this.o.probes) return -1;
    if (this.inFlight++ === 0) this.waitSince = t;
    return this.gen;
  }
  settle(gen: number, start: number, t: number, failed: boolean) {
    this.expired(t);
    if (gen !== this.gen) return;
    const slow = this.o.strategy === 'slowCallRatio' && t - start > this.o.slowCallMs;
    if (this.state === 'closed') {
      this.records.push({ t, failed, slow });
      this.streak = failed ? this.streak + 1 : 0;
      const v = this.visible(t);
      const total = v.length;
      const failures = v.filter((r) => r.failed).length;
      const slowN = v.filter((r) => r.slow).length;
      const meets = (r: number) => r > this.o.threshold || Math.abs(r - this.o.threshold) < 1e-8;
      let trip = false;
      if (this.o.strategy === 'consecutiveFailures') trip = this.streak >= this.o.threshold;
      else if (total >= this.o.minRequests) {
        if (this.o.strategy === 'errorRatio') trip = meets(failures / total);
        if (this.o.strategy === 'slowCallRatio') trip = meets(slowN / total);
        if (this.o.strategy === 'errorCount') trip = failures >= this.o.threshold;
      }
      if (trip) this.go('open', t);
      return;
    }
    this.inFlight--;
    if (failed || slow) this.go('open', t);
    else if (++this.successes >= this.o.probes) this.go('closed', t);
  }
  release(gen: number, t: number) {
    if (this.state !== 'half-open') return;
    if (this.expired(t)) return;
    if (gen === this.gen) this.inFlight--;
  }
}

type Op = { dt: number; kind: 'success' | 'failure' | 'hold' | 'settleOk' | 'settleFail' | 'release' };

describe('circuitBreaker against a model', () => {
  it('makes the same admissions and transitions', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.record({ strategy: fc.constantFrom<Strategy>('errorRatio', 'slowCallRatio'), threshold: fc.constantFrom(0, 0.25, 1 / 3, 0.5, 1) }),
          fc.record({ strategy: fc.constantFrom<Strategy>('errorCount', 'consecutiveFailures'), threshold: fc.integer({ min: 0, max: 4 }) }),
        ),
        fc.record({
          minRequests: fc.integer({ min: 0, max: 6 }),
          probes: fc.integer({ min: 1, max: 3 }),
          openMs: fc.constantFrom(1, 100, 700),
          maxHalfOpenMs: fc.constantFrom(50, 1_000),
          slowCallMs: fc.constantFrom(0, 30),
        }),
        fc.array(
          fc.record({
            dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 80 }), fc.integer({ min: 0, max: 1_500 })),
            kind: fc.constantFrom<Op['kind']>('success', 'failure', 'hold', 'hold', 'settleOk', 'settleFail', 'release'),
          }),
          { minLength: 10, maxLength: 150, size: 'max' },
        ),
        (s, rest, ops) => {
          const o = { ...s, ...rest } as Opts;
          const clock: Clock & { t: number } = { t: T0 + 123, now() { return this.t; }, setTimeout: () => 0, clearTimeout: () => {} };
          const { slowCallMs, ...common } = o;
          const options = o.strategy === 'slowCallRatio' ? { ...common, slowCallMs } : common;
          const b = circuitBreaker({ ...options, windowMs: WINDOW, buckets: BUCKETS, clock } as CircuitBreakerOptions);
          const m = new Model(o);
          const held: { p: BreakerPermit; gen: number; start: number }[] = [];
          for (const op of ops) {
            clock.t += op.dt;
            const t = clock.t;
            if (op.kind === 'settleOk' || op.kind === 'settleFail' || op.kind === 'release') {
              const h = held.shift();
              if (!h) continue;
              if (op.kind === 'release') {
                h.p.release();
                m.release(h.gen, t);
              } else {
                h.p[op.kind === 'settleOk' ? 'success' : 'failure']();
                m.settle(h.gen, h.start, t, op.kind === 'settleFail');
              }
            } else {
              const gen = m.allow(t);
              let p: BreakerPermit | undefined;
              try {
                p = b.allow();
              } catch {
                p = undefined;
              }
              expect(p !== undefined).toBe(gen >= 0);
              if (p !== undefined) {
                if (op.kind === 'hold') held.push({ p, gen, start: t });
                else {
                  p[op.kind]();
                  m.settle(gen, t, t, op.kind === 'failure');
                }
              }
            }
            expect(b.state).toBe(m.state);
            const v = m.visible(t);
            expect(b.stats()).toMatchObject({ total: v.length, failures: v.filter((r) => r.failed).length, slow: v.filter((r) => r.slow).length });
          }
        },
      ),
      { numRuns: runs(300) },
    );
  });
});
