import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  adaptiveBreaker,
  BrokenCircuitError,
  circuitBreaker,
  ConfigError,
  sreBreaker,
  type CircuitBreakerOptions,
  type BreakerPermit,
} from '../../api/index.js';
import { seededRandom } from '../../lib/testing.js';
import { T0 } from '../helpers/breakers.js';
import { runs } from '../helpers/fuzz.js';

type Step = { op: 'success' | 'failure' | 'hold' } | { op: 'settle'; which: number; how: 'success' | 'failure' | 'release' } | { op: 'advance'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant<Step>({ op: 'success' }), weight: 3 },
  { arbitrary: fc.constant<Step>({ op: 'failure' }), weight: 4 },
  { arbitrary: fc.constant<Step>({ op: 'hold' }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('settle' as const), which: fc.nat(), how: fc.constantFrom('success' as const, 'failure' as const, 'release' as const) }), weight: 2 },
  { arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.integer({ min: 0, max: 400 }) }), weight: 2 },
);

/** A synchronous manual clock: breakers read time only when asked, so no timers are needed. */
class TestClock {
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  advance(ms: number): void {
    this.t += ms;
  }
  setTimeout(): number {
    return 0;
  }
  clearTimeout(): void {}
}

interface Breaker {
  allow(): BreakerPermit;
  readonly state: string;
}

/** Runs `steps`, returning each decision ('ok', or the rejection's retryAfterMs) and the state after it. */
function drive(b: Breaker, clock: TestClock, steps: Step[], held: BreakerPermit[]): string[] {
  const out: string[] = [];
  for (const s of steps) {
    if (s.op === 'advance') clock.advance(s.ms);
    else if (s.op === 'settle') held.splice(s.which % Math.max(held.length, 1), 1)[0]?.[s.how]();
    else {
      try {
        const p = b.allow();
        if (s.op === 'hold') held.push(p);
        else p[s.op]();
        out.push(`ok ${b.state}`);
        continue;
      } catch (e) {
        if (!(e instanceof BrokenCircuitError)) throw e;
        out.push(`shed ${e.retryAfterMs} ${b.state}`);
        continue;
      }
    }
    out.push(b.state);
  }
  return out;
}

/** A deep-frozen JSON copy: restoring from it must not try to write to it. */
function frozenCopy<T>(value: T): T {
  const freeze = (v: unknown): unknown => {
    if (typeof v === 'object' && v !== null) {
      for (const x of Object.values(v)) freeze(x);
      Object.freeze(v);
    }
    return v;
  };
  return freeze(JSON.parse(JSON.stringify(value))) as T;
}

const machine: fc.Arbitrary<CircuitBreakerOptions> = fc.oneof(
  fc.record({ strategy: fc.constant('errorRatio' as const), threshold: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ strategy: fc.constant('slowCallRatio' as const), threshold: fc.double({ min: 0, max: 1, noNaN: true }), slowCallMs: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ strategy: fc.constant('errorCount' as const), threshold: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ strategy: fc.constant('consecutiveFailures' as const), threshold: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ strategy: fc.constant('dynamicThreshold' as const), baseRps: fc.integer({ min: 1, max: 50 }) }),
);

const prefix = fc.array(step, { minLength: 0, maxLength: 80, size: 'max' });
const suffix = fc.array(step, { minLength: 1, maxLength: 80, size: 'max' });

describe('breaker snapshots: a restored breaker decides like the original', () => {
  it('circuitBreaker (every strategy)', () => {
    let differentStates = 0;
    fc.assert(
      fc.property(machine, fc.integer({ min: 0, max: 6 }), fc.integer({ min: 1, max: 3 }), prefix, suffix, (options, minRequests, probes, before, after) => {
        const clock = new TestClock(T0);
        const o = { ...options, minRequests, probes, openMs: 300, maxHalfOpenMs: 1_000, windowMs: 1_000, buckets: 4, clock };
        const a = circuitBreaker(o);
        const heldA: BreakerPermit[] = [];
        drive(a, clock, before, heldA);
        // Calls in flight are not part of a snapshot: settle them first.
        for (const p of heldA.splice(0)) p.success();
        const snap = frozenCopy(a.snapshot());
        if (snap.state !== 'closed') differentStates++;
        const clockB = new TestClock(clock.t);
        const b = circuitBreaker({ ...o, clock: clockB, initialState: snap });
        expect(b.snapshot()).toEqual(a.snapshot());
        expect(drive(b, clockB, after, [])).toEqual(drive(a, clock, after, heldA));
      }),
      { numRuns: runs(400) },
    );
    expect(differentStates).toBeGreaterThan(40);
  });

  it('sreBreaker (seeded random from the snapshot on)', () => {
    let opened = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.double({ min: 1.1, max: 2, noNaN: true }), fc.integer(), prefix, suffix, (protection, k, seed, before, after) => {
        const clock = new TestClock(T0);
        let source = seededRandom(seed);
        const o = { protection, k, windowMs: 1_000, buckets: 10, forcePassMs: 200, clock };
        const a = sreBreaker({ ...o, random: () => source() });
        drive(a, clock, before, []);
        const snap = frozenCopy(a.snapshot());
        if (snap.open) opened++;
        source = seededRandom(seed + 1);
        const clockB = new TestClock(clock.t);
        const b = sreBreaker({ ...o, clock: clockB, random: seededRandom(seed + 1), initialState: snap });
        expect(b.snapshot()).toEqual(a.snapshot());
        expect(drive(b, clockB, after, [])).toEqual(drive(a, clock, after, []));
      }),
      { numRuns: runs(400) },
    );
    expect(opened).toBeGreaterThan(20);
  });
});

describe('breaker snapshots: the default breaker', () => {
  it('adaptiveBreaker (seeded random from the snapshot on)', () => {
    const states = new Set<string>();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 300 }), fc.integer(), prefix, suffix, (tripFailures, tripMs, seed, before, after) => {
        const clock = new TestClock(T0);
        let source = seededRandom(seed);
        const o = { tripFailures, tripMs, protection: 2, windowMs: 1_000, buckets: 10, forcePassMs: 200, probeRatio: 0.2, clock };
        const a = adaptiveBreaker({ ...o, random: () => source() });
        const heldA: BreakerPermit[] = [];
        drive(a, clock, before, heldA);
        // Calls in flight are not part of a snapshot: settle them first, then let a millisecond pass (the stall rule
        // compares a released call's start with the last answer, which a snapshot does not keep either).
        for (const p of heldA.splice(0)) p.success();
        clock.advance(1);
        const snap = frozenCopy(a.snapshot());
        states.add(snap.state);
        source = seededRandom(seed + 1);
        const clockB = new TestClock(clock.t);
        const b = adaptiveBreaker({ ...o, clock: clockB, random: seededRandom(seed + 1), initialState: snap });
        expect(b.snapshot()).toEqual(a.snapshot());
        expect(drive(b, clockB, after, [])).toEqual(drive(a, clock, after, []));
      }),
      { numRuns: runs(400) },
    );
    expect([...states].sort()).toEqual(['closed', 'half-open', 'open']);
  });
});

describe('breaker snapshots', () => {
  it('an open breaker whose open period passed meanwhile moves to half-open on its next allow()', () => {
    const clock = new TestClock(T0);
    const a = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 5_000, clock });
    a.allow().failure();
    const saved = JSON.stringify(a.snapshot());
    const later = new TestClock(T0 + 6_000);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 5_000, clock: later, initialState: JSON.parse(saved) });
    expect(b.state).toBe('open');
    b.allow().success();
    expect(b.state).toBe('closed');
    // and one restored before the period ends still sheds, telling how long is left
    const early = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 5_000, clock: new TestClock(T0 + 1_000), initialState: JSON.parse(saved) });
    expect(() => early.allow()).toThrow(expect.objectContaining({ retryAfterMs: 4_000 }));
  });

  it('isolation survives a snapshot until reset()', () => {
    const clock = new TestClock(T0);
    for (const a of [sreBreaker({ clock }), circuitBreaker({ strategy: 'errorRatio', clock })]) {
      a.isolate();
      const snap = JSON.parse(JSON.stringify(a.snapshot()));
      const b = 'kind' in snap && snap.kind === 'sre' ? sreBreaker({ clock, initialState: snap }) : circuitBreaker({ strategy: 'errorRatio', clock, initialState: snap });
      expect(() => b.allow()).toThrow(BrokenCircuitError);
      b.reset();
      b.allow().success();
      expect(b.state).toBe('closed');
    }
  });

  it('never changes the object it was given, nor shares its arrays', () => {
    const clock = new TestClock(T0);
    const a = circuitBreaker({ strategy: 'errorRatio', windowMs: 1_000, buckets: 4, minRequests: 1_000, clock });
    for (let i = 0; i < 3; i++) {
      a.allow().failure();
      clock.advance(300);
    }
    const snap = a.snapshot();
    const copy = JSON.parse(JSON.stringify(snap));
    const b = circuitBreaker({ strategy: 'errorRatio', windowMs: 1_000, buckets: 4, minRequests: 1_000, clock, initialState: snap });
    for (let i = 0; i < 20; i++) b.allow().failure();
    expect(snap).toEqual(copy);
  });

  it.each([
    ['window.size', (s: any) => ({ ...s, window: { ...s.window, size: 5, counts: null } }), 'initialState.window.size'],
    ['bucketMs', (s: any) => ({ ...s, window: { ...s.window, bucketMs: 100 } }), 'initialState.window.bucketMs'],
    ['counts length', (s: any) => ({ ...s, window: { ...s.window, counts: [1, 2, 3] } }), 'initialState.window.counts'],
    ['sums disagree', (s: any) => ({ ...s, window: { ...s.window, sums: [9, 0, 0] } }), 'initialState.window.sums[0]'],
    ['negative count', (s: any) => ({ ...s, window: { ...s.window, counts: s.window.counts.map(() => -1) } }), 'initialState.window.counts[0]'],
    ['state', (s: any) => ({ ...s, state: 'ajar' }), 'initialState.state'],
    ['retryAt NaN', (s: any) => ({ ...s, retryAt: Number.NaN }), 'initialState.retryAt'],
    ['retryAt null, not isolated', (s: any) => ({ ...s, retryAt: null }), 'initialState.retryAt'],
    ['probeBits', (s: any) => ({ ...s, probeBits: 8 }), 'initialState.probeBits'],
    ['unknown key', (s: any) => ({ ...s, extra: 1 }), 'initialState.extra'],
    ['wrong family', (s: any) => ({ ...s, kind: 'sre' }), 'initialState.kind'],
    ['not an object', () => 'open', 'initialState'],
  ])('rejects a bad circuitBreaker snapshot (%s) with a ConfigError at its path', (_, mutate, path) => {
    const clock = new TestClock(T0);
    const a = circuitBreaker({ strategy: 'errorRatio', windowMs: 1_000, buckets: 4, clock });
    a.allow().failure();
    clock.advance(300);
    a.allow().failure();
    const bad = mutate(a.snapshot());
    try {
      circuitBreaker({ strategy: 'errorRatio', windowMs: 1_000, buckets: 4, clock, initialState: bad });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues.map((i) => i.path)).toContain(path);
    }
  });

  it.each([
    ['open', (s: any) => ({ ...s, open: 'yes' }), 'initialState.open'],
    ['lastPass', (s: any) => ({ ...s, lastPass: Infinity }), 'initialState.lastPass'],
    ['window.size', (s: any) => ({ ...s, window: { ...s.window, size: 4, counts: null, sums: [0, 0, 0], head: -1 } }), 'initialState.window.size'],
    ['head', (s: any) => ({ ...s, window: { ...s.window, head: 1.5 } }), 'initialState.window.head'],
    ['sums before any record', (s: any) => ({ ...s, window: { ...s.window, head: -1, counts: null, sums: [1, 0, 0] } }), 'initialState.window.sums'],
  ])('rejects a bad sreBreaker snapshot (%s) with a ConfigError at its path', (_, mutate, path) => {
    const clock = new TestClock(T0);
    const a = sreBreaker({ clock });
    a.allow().failure();
    try {
      sreBreaker({ clock, initialState: mutate(a.snapshot()) });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues.map((i) => i.path)).toContain(path);
    }
  });
});
