import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adaptiveBreaker, BrokenCircuitError, type BreakerState, type Clock, type BreakerPermit } from '../../../api/index.js';
import { T0 } from '../../helpers/breakers.js';
import { runs } from '../../helpers/fuzz.js';

interface Opts {
  windowMs: number;
  buckets: number;
  k: number;
  protection: number;
  forcePassMs: number;
  tripFailures: number;
  tripMs: number;
  probeRatio: number;
  rampFactor: number;
}

/** The default breaker's rules (docs/breakers.md), written the slow, obvious way: every record kept, every decision recounted. */
class Model {
  records: { bucket: number; ok: boolean; ms: number }[] = [];
  state: BreakerState = 'closed';
  generation = 0;
  admitRatio = 1;
  failuresInRow = 0;
  share = 1;
  shareBeforeRun = 1;
  lastSuccessAt = -Infinity;
  lastPass = NaN;
  /** Calls admitted since the last answer (cancelled ones taken out), and when the first of them went out. */
  unanswered = 0;
  firstUnansweredAt = 0;
  lastAnswerAt = -Infinity;
  /** The breaker's last clock reading on the call path; the last timed success's duration and time. */
  latest = -Infinity;
  heldMs = 0;
  timedAt = -Infinity;
  isolated = false;
  transitions: string[] = [];

  constructor(
    readonly t0: number,
    readonly o: Opts,
  ) {}

  bucketOf(t: number) {
    return Math.floor((t - this.t0) / (this.o.windowMs / this.o.buckets));
  }

  visible(t: number) {
    const cur = this.bucketOf(t);
    return this.records.filter((r) => cur - r.bucket < this.o.buckets);
  }

  counts(t: number) {
    const v = this.visible(t);
    const ok = v.filter((r) => r.ok);
    return { accepts: ok.length, failures: v.length - ok.length, ms: ok.reduce((s, r) => s + r.ms, 0) };
  }

  go(to: BreakerState, reason: string) {
    if (this.state !== to) this.transitions.push(`${this.state}>${to}:${reason}`);
    this.state = to;
    this.generation++;
    this.timedAt = -Infinity;
  }

  /** What a fresh breaker has: no streaks, a success share of 1, no last success or pass, nothing unanswered. */
  forget() {
    this.failuresInRow = 0;
    this.share = this.shareBeforeRun = 1;
    this.lastSuccessAt = -Infinity;
    this.lastPass = NaN;
    this.unanswered = 0;
  }

  /** `reset()` and the last disposed isolation: not isolated, forgotten, closed (closing empties the records). */
  reset() {
    this.isolated = false;
    this.forget();
    this.close('reset');
  }

  close(reason: string) {
    this.records = [];
    this.admitRatio = 1;
    this.go('closed', reason);
  }

  trip(t: number, reason: string) {
    this.unanswered = 0;
    this.lastPass = t;
    this.go('open', reason);
  }

  /** Admits with probability 1 − dropRatio (one draw), or by a force pass (no draw); undefined when shed. */
  pass(t: number, dropRatio: number, random: () => number): number | undefined {
    if (t - this.lastPass > this.o.forcePassMs) {
      this.lastPass = t;
      return this.generation;
    }
    if (random() < dropRatio) return undefined;
    this.lastPass = t;
    return this.generation;
  }

  /** The generation the call was admitted in, or undefined when shed. */
  allow(t: number, random: () => number): number | undefined {
    const o = this.o;
    this.latest = t;
    if (this.isolated) return undefined;
    if (this.state !== 'open' && this.unanswered >= o.tripFailures) {
      const waited = t - this.firstUnansweredAt;
      const c = this.counts(t);
      if (waited > o.tripMs && (c.accepts === 0 || waited > (3 * c.ms) / c.accepts)) {
        this.trip(t, 'stalled');
        return this.pass(t, 1 - o.probeRatio, random);
      }
    }
    const generation = this.decide(t, random);
    // Only a call let through waits for an answer.
    if (generation !== undefined && this.state !== 'open' && this.unanswered++ === 0) this.firstUnansweredAt = t;
    return generation;
  }

  decide(t: number, random: () => number): number | undefined {
    const o = this.o;
    const c = this.counts(t);
    if (this.state === 'closed') {
      const calls = c.accepts + c.failures;
      const dropRatio = (calls - o.protection - o.k * c.accepts) / (calls + 1);
      return dropRatio <= 0 ? this.generation : this.pass(t, dropRatio, random);
    }
    if (c.accepts + c.failures === 0) {
      this.forget();
      this.close('windowExpired');
      return this.generation;
    }
    return this.pass(t, this.state === 'open' ? 1 - o.probeRatio : 1 - this.admitRatio, random);
  }

  settle(generation: number, start: number, end: number, ok: boolean) {
    const o = this.o;
    let t = end;
    let ms = 0;
    // Closed, a success within a bucket of the last timed one is taken at the last reading with its duration.
    const since = this.latest - this.timedAt;
    if (ok && generation === this.generation && this.state === 'closed' && since >= 0 && since < this.o.windowMs / this.o.buckets) {
      t = this.latest;
      ms = this.heldMs;
    } else {
      this.latest = end;
      if (ok && generation === this.generation) {
        ms = this.heldMs = Math.max(0, Math.round(end - start));
        this.timedAt = end;
      }
    }
    this.lastAnswerAt = t;
    this.unanswered = 0;
    if (generation !== this.generation) return;
    this.records.push({ bucket: this.bucketOf(t), ok, ms });
    if (ok) {
      this.share += (1 - this.share) / 16;
      this.shareBeforeRun = this.share;
      this.failuresInRow = 0;
      this.lastSuccessAt = t;
      if (this.state === 'open') {
        this.share = this.shareBeforeRun = 1;
        this.admitRatio = Math.min(1, o.probeRatio * o.rampFactor);
        this.go('half-open', 'probeSucceeded');
        if (this.admitRatio >= 1) this.close('probesSucceeded');
      } else if (this.state === 'half-open') {
        this.admitRatio = Math.min(1, this.admitRatio * o.rampFactor);
        if (this.admitRatio >= 1) this.close('probesSucceeded');
      }
      return;
    }
    this.share -= this.share / 16;
    this.failuresInRow++;
    const run = this.failuresInRow;
    if (this.state !== 'open' && run >= o.tripFailures && t - this.lastSuccessAt >= o.tripMs && run * this.shareBeforeRun >= o.tripFailures) {
      this.trip(t, this.state === 'closed' ? 'threshold' : 'probeFailed');
    }
  }

  release(start: number) {
    // Went out after the last answer (strictly: one in the same millisecond may have gone out before it).
    if (start > this.lastAnswerAt && this.unanswered > 0) this.unanswered--;
  }
}

/** A call settles at once (`call`) or later (`hold`, then `settle`/`release`); `flip` takes the dependency down or back up. */
type Op = { dt: number; kind: 'call' | 'hold' | 'settle' | 'release' | 'flip' | 'isolate' | 'reset'; ok: boolean };
const counters = { shed: 0, open: 0, halfOpen: 0, stalled: 0, expired: 0, probeFailed: 0 };

describe('adaptiveBreaker against a model of its rules', () => {
  it('makes the same decisions, draws the same random numbers, and reports the same state, stats and transitions', () => {
    fc.assert(
      fc.property(
        fc.record({
          buckets: fc.constantFrom(4, 10, 20),
          bucketMs: fc.constantFrom(50, 100),
          k: fc.constantFrom(1, 1.5, 2),
          protection: fc.integer({ min: 0, max: 6 }),
          forcePassMs: fc.constantFrom(0, 100, 1_000),
          tripFailures: fc.integer({ min: 1, max: 5 }),
          tripMs: fc.constantFrom(0, 50, 250),
          probeRatio: fc.constantFrom(0.05, 0.05, 0.2, 1),
          rampFactor: fc.constantFrom(1.2, 1.5, 2, 4),
        }),
        fc.array(
          fc.record({
            dt: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 60 }), fc.integer({ min: 0, max: 3_000 })),
            kind: fc.constantFrom(...(['call', 'call', 'call', 'call', 'hold', 'hold', 'settle', 'settle', 'release', 'flip', 'isolate'] as const)),
            // While up, 4 in 5 calls succeed.
            ok: fc.integer({ min: 0, max: 4 }).map((x) => x > 0),
          }),
          { minLength: 10, maxLength: 250, size: 'max' },
        ),
        fc.array(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), { minLength: 64, maxLength: 64 }),
        (p, ops: Op[], randoms) => {
          const clock: Clock & { t: number } = { t: T0, now() { return this.t; }, setTimeout: () => 0, clearTimeout: () => {} };
          let i1 = 0;
          let i2 = 0;
          const o: Opts = { ...p, windowMs: p.buckets * p.bucketMs };
          const { bucketMs: _b, ...options } = p;
          const b = adaptiveBreaker({ ...options, windowMs: o.windowMs, clock, random: () => randoms[i1++ % 64]! });
          const seen: string[] = [];
          b.events$.subscribe((e) => e.type === 'stateChange' && seen.push(`${e.from}>${e.to}:${e.reason}`));
          const model = new Model(T0, o);
          const held: { permit: BreakerPermit; generation: number; start: number; ok: boolean }[] = [];
          const isolations: { dispose(): void }[] = [];
          let down = false;
          for (const op of ops) {
            clock.t += op.dt;
            if (op.kind === 'flip') {
              down = !down;
              continue;
            }
            if (op.kind === 'settle' || op.kind === 'release') {
              const h = held.shift();
              if (h === undefined) continue;
              if (op.kind === 'release') {
                h.permit.release();
                model.release(h.start);
              } else {
                const ok = h.ok && !down;
                h.permit[ok ? 'success' : 'failure']();
                model.settle(h.generation, h.start, clock.t, ok);
              }
            } else if (op.kind === 'isolate' && !op.ok) {
              if (isolations.length === 0) {
                isolations.push(b.isolate());
                model.isolated = true;
                model.go('open', 'isolated');
              } else {
                isolations.pop()!.dispose();
                model.reset();
              }
            } else if (op.kind === 'reset' || (op.kind === 'isolate' && op.ok && op.dt % 7 === 0)) {
              b.reset();
              isolations.length = 0;
              model.reset();
            } else {
              const generation = model.allow(clock.t, () => randoms[i2++ % 64]!);
              let permit: BreakerPermit | undefined;
              try {
                permit = b.allow();
              } catch (e) {
                counters.shed++;
                expect(e).toBeInstanceOf(BrokenCircuitError);
              }
              expect(permit !== undefined).toBe(generation !== undefined);
              expect(i1).toBe(i2);
              if (permit !== undefined) {
                if (op.kind === 'hold') held.push({ permit, generation: generation!, start: clock.t, ok: op.ok });
                else {
                  const ok = op.ok && !down;
                  permit[ok ? 'success' : 'failure']();
                  model.settle(generation!, clock.t, clock.t, ok);
                }
              }
            }
            if (b.state === 'open') counters.open++;
            if (b.state === 'half-open') counters.halfOpen++;
            expect(b.state).toBe(model.state);
            const c = model.counts(clock.t);
            const s = b.stats();
            expect([s.accepts, s.failures, s.failuresInRow]).toEqual([c.accepts, c.failures, model.failuresInRow]);
            expect(s.meanMs).toBeCloseTo(c.accepts === 0 ? 0 : c.ms / c.accepts, 9);
            expect(s.successShare).toBeCloseTo(model.share, 12);
            expect(seen).toEqual(model.transitions);
          }
          counters.stalled += seen.filter((x) => x.endsWith('stalled')).length;
          counters.expired += seen.filter((x) => x.endsWith('windowExpired')).length;
          counters.probeFailed += seen.filter((x) => x.endsWith('probeFailed')).length;
        },
      ),
      { numRuns: runs(300) },
    );
    // the runs must exercise every rule, not only pass calls
    expect(counters.shed).toBeGreaterThan(500);
    expect(counters.open).toBeGreaterThan(500);
    expect(counters.halfOpen).toBeGreaterThan(50);
    expect(counters.probeFailed).toBeGreaterThan(1);
    expect(counters.stalled).toBeGreaterThan(10);
    expect(counters.expired).toBeGreaterThan(10);
  });
});
