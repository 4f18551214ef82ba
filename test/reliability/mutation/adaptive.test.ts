/**
 * Tests written from a manual mutation analysis of the adaptive parts: the SLA
 * formulas, the histogram, the degrade policy and its decision tree, the load
 * shedder, the retry budgets and backoffs, and the shared deadline timer.
 * Every expected figure is derived by hand from the formula in the spec or
 * the doc comment, not from running the code.
 */
import { BehaviorSubject, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  constant,
  decisionTree,
  degrade,
  exponential,
  linear,
  loadShedder,
  OverloadedError,
  sloBudget,
  tokenBudget,
  toSignal,
} from '../../../api/index.js';
import { DEGRADE_THRESHOLDS } from '../../../lib/sla.js';
import { fromFunction, isBackoff } from '../../../policies/retry/backoff.js';
import { isRetryBudget } from '../../../policies/retry/budget.js';
import { scriptedRandom, TestClock } from '../../../lib/testing.js';
import { collect } from '../../helpers/breakers.js';

const START = 1_700_000_000_000;

/** The upper edge of histogram bucket `b`: 0.1 ms · 1.1^b (lib/histogram.ts doc). */
const edge = (b: number): number => 0.1 * 1.1 ** b;

describe('degrade: defaults, events and signals', () => {
  it('its own qps counts the call being decided, over a 10 s window by default', async () => {
    const clock = new TestClock(START);
    const seen: number[] = [];
    const d = degrade({ when: (s) => (seen.push(s.qps!), false), signals: { cpu: 0 }, to: () => null, clock });
    await d.execute(() => 1);
    expect(seen).toEqual([0.1]); // 1 call / 10 s
    await d.execute(() => 1);
    expect(seen).toEqual([0.1, 0.2]);
    expect(d.readSignals()).toEqual({ qps: 0.2, cpu: 0, health: 1 });
  });

  it('an Observable health reads 1 and an Observable cpu 0 until they emit; dispose unsubscribes all', () => {
    const clock = new TestClock(START);
    const qps = new Subject<number>();
    const cpu = new Subject<number>();
    const health = new Subject<number>();
    const d = degrade({ when: () => false, signals: { qps, cpu, health }, to: () => null, clock });
    expect(d.readSignals()).toEqual({ qps: 0, cpu: 0, health: 1 });
    health.next(0.4);
    cpu.next(0.7);
    qps.next(12);
    expect(d.readSignals()).toEqual({ qps: 12, cpu: 0.7, health: 0.4 });
    d.dispose();
    expect([qps.observed, cpu.observed, health.observed]).toEqual([false, false, false]);
  });

  it('signal sources: finite numbers, functions, { value() } and Observables only', () => {
    const clock = new TestClock(START);
    const d = degrade({ when: () => false, signals: { cpu: { value: () => 0.3 }, health: new BehaviorSubject(0.6) }, to: () => null, clock });
    expect(d.readSignals()).toMatchObject({ cpu: 0.3, health: 0.6 });
    for (const bad of [Number.POSITIVE_INFINITY, Number.NaN, null, { value: 1 }, 'x']) {
      expect(() => degrade({ when: () => false, signals: { cpu: bad as never }, to: () => null })).toThrow(/expected a number, a function, \{ value\(\) \} or an Observable<number>/);
    }
    expect(() => degrade({ when: 1 as never, to: () => 1 })).toThrow(/expected decisionTree\(\.\.\.\) or a predicate \(signals\) => boolean/);
    expect(() => degrade({ when: () => true, to: 'x' as never })).toThrow(/expected a handler function \(info, ctx\) => value/);
    expect(() => degrade({ when: () => true, to: () => 1, rateWindowMs: 0 })).toThrow(/rateWindowMs/);
  });

  it('toSignal reads `initial` from an Observable until it emits, then its latest value', () => {
    const s = new Subject<number>();
    const sig = toSignal(s, 5);
    expect(sig.value()).toBe(5);
    s.next(2);
    expect(sig.value()).toBe(2);
    sig.dispose();
    expect(s.observed).toBe(false);
    expect(toSignal(s).value()).toBe(0);
  });
});

describe('loadShedder: thresholds, cool-off and the capacity estimate', () => {
  /**
   * 100 ms buckets (window 1 s in 10). 20 calls pass in one bucket, each taking
   * 100 ms: capacity maxPass × minRt / bucketMs = 20 × 100 / 100 = 20.
   * Then 1000 calls are admitted cold and 100 fail, so the moving average of
   * calls in flight is far above any capacity here while 900 stay in flight.
   */
  async function overloaded(cpuThreshold = 0.9, start = START) {
    const clock = new TestClock(start); // a multiple of 100
    const state = { cpu: 0 };
    const s = loadShedder({ cpu: () => state.cpu, cpuThreshold, windowMs: 1_000, buckets: 10, clock, name: 'shed' });
    const first = Array.from({ length: 20 }, () => s.allow());
    await clock.advance(100);
    for (const p of first) p.success(); // bucket START+100, rt 100 each
    await clock.advance(100); // bucket START+100 is complete now
    const held = Array.from({ length: 1_000 }, () => s.allow());
    for (const p of held.splice(0, 100)) p.failure();
    const events = collect(s);
    return { clock, state, s, events, held };
  }

  function shedOnce(s: ReturnType<typeof loadShedder>): unknown {
    try {
      s.allow();
    } catch (e) {
      return e;
    }
    return undefined;
  }

  it('the shed and outcome events carry every field; the error names the policy', async () => {
    const { state, s, events } = await overloaded();
    state.cpu = 0.9; // at the threshold: hot, factor 1 → carry 20
    const e = shedOnce(s);
    expect(e).toBeInstanceOf(OverloadedError);
    expect((e as OverloadedError).policy).toBe('shed');
    expect((e as Error).message).toBe('service overloaded, call shed (shed)');
    expect(events).toEqual([
      { type: 'shed', policy: 'shed', cpu: 0.9, inFlight: 900, maxInFlight: 20 },
      { type: 'outcome', policy: 'shed', result: 'rejected', durationMs: 0, error: e },
    ]);
    expect(s.inFlight).toBe(900);
  });

  it('the overload factor (1 − cpu) / (1 − threshold), between 0.1 and 1', async () => {
    const { state, s, events } = await overloaded(0.5);
    const carried = (cpu: number): number => {
      state.cpu = cpu;
      events.length = 0;
      expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
      return (events[0] as { maxInFlight: number }).maxInFlight;
    };
    expect(carried(0.75)).toBeCloseTo(10, 9); // 0.25 / 0.5 = 0.5
    expect(carried(0.9)).toBeCloseTo(4, 9); // 0.1 / 0.5 = 0.2
    expect(carried(1)).toBeCloseTo(2, 9); // 0 → floor 0.1
    expect(carried(0.99)).toBeCloseTo(2, 9); // 0.02 → floor 0.1
    // cool CPU within the cool-off: 0.9 / 0.5 = 1.8 → capped at 1
    expect(carried(0.1)).toBeCloseTo(20, 9);
  });

  it('CPU just under the threshold is not hot', async () => {
    const { state, s } = await overloaded(0.8);
    state.cpu = 0.79;
    expect(shedOnce(s)).toBeUndefined();
    state.cpu = 0.8;
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
  });

  it('cool-off: 1 s by default, measured from the last drop, exclusive', async () => {
    const { clock, state, s } = await overloaded();
    state.cpu = 0.95;
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
    state.cpu = 0;
    await clock.advance(999);
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError); // a drop at +999 restarts the cool-off
    await clock.advance(999);
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
    await clock.advance(1_000);
    expect(shedOnce(s)).toBeUndefined();
  });

  it('the bucket still filling and buckets a whole window old do not count', async () => {
    const { clock, state, s, events } = await overloaded();
    // 50 quick passes (admitted cold) in the current bucket (START+200): if counted, minRt 0 → capacity 1
    const quick = Array.from({ length: 50 }, () => s.allow());
    for (const p of quick) p.success();
    state.cpu = 0.95; // factor 0.5
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
    expect((events[0] as { maxInFlight: number }).maxInFlight).toBeCloseTo(10, 9);
    // once that bucket is complete it counts: minRt 0 → capacity max(1, 50 × 0 / 100) = 1 → × 0.5
    await clock.advance(800); // now START+1000
    events.length = 0;
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
    expect((events[0] as { maxInFlight: number }).maxInFlight).toBeCloseTo(0.5, 9);
  });

  it('a bucket exactly a window old is out: only the cold default of 1 remains', async () => {
    const { clock, state, s, events } = await overloaded();
    state.cpu = 0.9; // factor 1
    await clock.advance(800); // START+1000: the bucket of START+100 is 9 buckets old
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
    expect((events[0] as { maxInFlight: number }).maxInFlight).toBe(20);
    await clock.advance(100); // START+1100: 10 buckets old
    events.length = 0;
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
    expect((events[0] as { maxInFlight: number }).maxInFlight).toBe(1);
  });

  it('clock times before 0 map to buckets too', async () => {
    const { state, s, events } = await overloaded(0.9, -100_000);
    state.cpu = 0.9;
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
    expect((events[0] as { maxInFlight: number }).maxInFlight).toBe(20);
  });

  it('failed calls do not count as passes', async () => {
    const { clock, state, s, events } = await overloaded();
    // 100 calls failed in bucket START+200; in the next bucket they are complete but must not count
    await clock.advance(100);
    state.cpu = 0.9;
    expect(shedOnce(s)).toBeInstanceOf(OverloadedError);
    expect((events[0] as { maxInFlight: number }).maxInFlight).toBe(20);
  });

  it('both the average and the current in-flight count must exceed the capacity', () => {
    const clock = new TestClock(START);
    // cpu 1 over the default threshold 0.9: factor 0.1; cold capacity max(1, 0) = 1 → carries 0.1
    const s = loadShedder({ cpu: 1, clock });
    // build a high moving average, then let every call finish: nothing in flight
    const permits = Array.from({ length: 30 }, () => s.allow());
    expect(s.inFlight).toBe(30); // admitted: the average was 0
    for (const p of permits) p.failure();
    expect(s.inFlight).toBe(0);
    // average well over 0.1, in flight 0: admitted; then 1 in flight > 0.1: shed
    const a = s.allow();
    expect(() => s.allow()).toThrow(OverloadedError);
    expect(() => s.allow()).toThrow('service overloaded, call shed (loadShedder)'); // the default name
    a.success();
  });

  it('the cold capacity is 1 call in flight at factor 1', () => {
    const clock = new TestClock(START);
    const t = loadShedder({ cpu: 0.5, cpuThreshold: 0.5, clock }); // at threshold: hot, factor 1
    const permits = Array.from({ length: 30 }, () => t.allow());
    for (const p of permits.splice(0, 28)) p.failure(); // average high, 2 in flight
    expect(t.inFlight).toBe(2);
    expect(() => t.allow()).toThrow(OverloadedError); // 2 > 1
    permits[0]!.failure(); // 1 in flight: not > 1
    expect(() => t.allow().success()).not.toThrow();
    permits[1]!.success();
    expect(t.inFlight).toBe(0);
  });

  it('through execute: a success leaves the in-flight count and feeds the capacity', async () => {
    const clock = new TestClock(START);
    const state = { cpu: 0 };
    const s = loadShedder({ cpu: () => state.cpu, windowMs: 1_000, buckets: 10, clock });
    const events = collect(s);
    // 30 calls of 100 ms pass in bucket START+100: capacity 30 × 100 / 100 = 30
    const calls = Array.from({ length: 30 }, () => s.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve(1), 100))));
    expect(s.inFlight).toBe(30);
    await clock.advance(100);
    await Promise.all(calls);
    expect(s.inFlight).toBe(0);
    await clock.advance(100);
    const held = Array.from({ length: 1_000 }, () => s.allow());
    for (const p of held.splice(0, 100)) p.failure();
    state.cpu = 0.9;
    await expect(s.execute(() => 1)).rejects.toBeInstanceOf(OverloadedError);
    // the 30 calls that ran each report their outcome, then the shed call
    expect(events.slice(0, 30).every((e) => e.type === 'outcome' && e.result === 'success' && e.durationMs === 100)).toBe(true);
    expect(events[30]).toEqual({ type: 'shed', policy: 'loadShedder', cpu: 0.9, inFlight: 900, maxInFlight: 30 });
  });

  it('a permit settles once, whichever way', () => {
    const clock = new TestClock(START);
    const s = loadShedder({ cpu: 0, clock });
    const a = s.allow();
    const b = s.allow();
    const c = s.allow();
    a.success();
    a.success();
    a.failure();
    b.failure();
    b.success();
    b.release();
    expect(s.inFlight).toBe(1);
    c.release();
    c.release();
    expect(s.inFlight).toBe(0);
  });

  it('options: threshold strictly inside (0, 1), buckets at least 2, cool-off > 0', () => {
    expect(() => loadShedder({ cpuThreshold: 0 })).toThrow(/expected a number in \(0, 1\)/);
    expect(() => loadShedder({ cpuThreshold: 0.99, cpu: 0 })).not.toThrow();
    expect(() => loadShedder({ buckets: 2, cpu: 0 })).not.toThrow();
    expect(() => loadShedder({ buckets: 1 })).toThrow(/buckets/);
    expect(() => loadShedder({ coolOffMs: 0 })).toThrow(/coolOffMs/);
    expect(() => loadShedder({ cpu: Number.NaN })).toThrow(/cpu/);
  });
});

describe('backoff: exact values with scripted random', () => {
  it('defaults: initial 100, multiplier 2, max 10 s, full jitter', () => {
    const b = exponential();
    expect(b.delay(1, null, 0, scriptedRandom(0.5))).toBe(50); // 0.5 × 100
    expect(b.delay(3, null, 0, scriptedRandom(0.5))).toBe(200); // 0.5 × 400
    expect(b.delay(10, null, 0, scriptedRandom(0.5))).toBe(5_000); // 0.5 × min(10000, 51200)
  });

  it("'none' draws nothing; the multiplier is the base of the power", () => {
    const b = exponential({ initial: 100, multiplier: 3, max: 100_000, jitter: 'none' });
    const r = scriptedRandom();
    expect([1, 2, 3].map((i) => b.delay(i, null, 0, r))).toEqual([100, 300, 900]);
    expect(r.draws).toBe(0);
    expect(exponential({ multiplier: 1, jitter: 'none' }).delay(5, null, 0, r)).toBe(100);
    expect(exponential({ initial: 200, max: 200, jitter: 'none' }).delay(3, null, 0, r)).toBe(200);
  });

  it("'full' and 'equal'", () => {
    const full = exponential({ initial: 100, max: 10_000, jitter: 'full' });
    expect(full.delay(3, null, 0, scriptedRandom(0.25))).toBe(100); // 0.25 × 400
    const equal = exponential({ initial: 100, max: 10_000, jitter: 'equal' });
    expect(equal.delay(3, null, 0, scriptedRandom(0.5))).toBe(300); // 200 + 0.5 × 400 / 2
    expect(equal.delay(3, null, 0, scriptedRandom(0))).toBe(200);
    expect(equal.delay(1, null, 0, scriptedRandom(0.5))).toBe(75); // 50 + 25
  });

  it("'decorrelated' grows from the previous delay, starting from initial", () => {
    const b = exponential({ initial: 100, max: 1_000, jitter: 'decorrelated' });
    expect(b.delay(1, null, 0, scriptedRandom(0.5))).toBe(200); // 100 + 0.5 × (300 − 100)
    expect(b.delay(2, null, 250, scriptedRandom(0.5))).toBe(425); // 100 + 0.5 × (750 − 100)
    expect(b.delay(2, null, 250, scriptedRandom(0))).toBe(100);
    expect(b.delay(2, null, 500, scriptedRandom(0.9))).toBe(1_000); // 100 + 0.9 × 1400 = 1360 → max
    // the retry number plays no part
    expect(b.delay(7, null, 250, scriptedRandom(0.5))).toBe(425);
  });

  it("'proportional' is initial·2^retry + random·initial·retry, capped", () => {
    const b = exponential({ initial: 100, multiplier: 3, max: 1_000, jitter: 'proportional' });
    expect(b.delay(1, null, 0, scriptedRandom(0.5))).toBe(250); // 200 + 0.5 × 100
    expect(b.delay(2, null, 0, scriptedRandom(0.5))).toBe(500); // 400 + 0.5 × 200
    expect(b.delay(3, null, 0, scriptedRandom(0))).toBe(800); // 800 + 0
    expect(b.delay(3, null, 0, scriptedRandom(0.9))).toBe(1_000); // 800 + 270 → max
  });

  it('constant(0), linear, fromFunction and isBackoff', () => {
    expect(constant(0).delay(3, null, 0, Math.random)).toBe(0);
    expect(linear(0, 0).delay(3, null, 0, Math.random)).toBe(0);
    expect(linear(10, 5).delay(1, null, 0, Math.random)).toBe(10);
    expect(() => linear(-1, 5)).toThrow(/ms/);
    const seen: unknown[] = [];
    const err = new Error('e');
    const f = fromFunction((retry, error) => (seen.push(retry, error), retry * 7));
    expect(f.delay(3, err, 99, Math.random)).toBe(21);
    expect(seen).toEqual([3, err]);
    expect(isBackoff(f)).toBe(true);
    expect(isBackoff(null)).toBe(false);
    expect(isBackoff(undefined)).toBe(false);
    expect(isBackoff({})).toBe(false);
    expect(isBackoff(() => 1)).toBe(false);
    expect(isBackoff({ delay: 5 })).toBe(false);
  });
});

describe('retry budgets at their edges', () => {
  it('isRetryBudget wants both methods on an object', () => {
    expect(isRetryBudget({ onCall() {}, tryRetry: () => true })).toBe(true);
    expect(isRetryBudget({ onCall() {} })).toBe(false);
    expect(isRetryBudget({ tryRetry: () => true })).toBe(false);
    expect(isRetryBudget({ onCall: 1, tryRetry: () => true })).toBe(false);
    expect(isRetryBudget(null)).toBe(false);
    expect(isRetryBudget(undefined)).toBe(false);
    expect(isRetryBudget(tokenBudget())).toBe(true);
  });

  it('tokenBudget defaults: floor 10/s over 10 s = 100, plus 10 % of calls', () => {
    const quiet = tokenBudget();
    for (let i = 0; i < 100; i++) expect(quiet.tryRetry(START, 0)).toBe(true);
    expect(quiet.tryRetry(START, 0)).toBe(false);
    const busy = tokenBudget();
    for (let i = 0; i < 20; i++) busy.onCall(START);
    for (let i = 0; i < 102; i++) expect(busy.tryRetry(START, 0)).toBe(true); // 100 + 0.1 × 20
    expect(busy.tryRetry(START, 0)).toBe(false);
    // the default window is 10 s: at +9,999 the retries still count, at +10,000 they are gone
    expect(busy.tryRetry(START + 9_999, 0)).toBe(false);
    expect(busy.tryRetry(START + 10_000, 0)).toBe(true);
  });

  it('the floor is minPerSecond × windowMs / 1000; a retry exactly at the limit is allowed', () => {
    const b = tokenBudget({ ratio: 0, minPerSecond: 4, windowMs: 500 }); // floor 2
    expect(b.tryRetry(START, 0)).toBe(true);
    expect(b.tryRetry(START, 0)).toBe(true);
    expect(b.tryRetry(START, 0)).toBe(false);
    const r = tokenBudget({ ratio: 0.25, minPerSecond: 0 }); // 8 calls → 2 retries
    for (let i = 0; i < 8; i++) r.onCall(START);
    expect([r.tryRetry(START, 0), r.tryRetry(START, 0), r.tryRetry(START, 0)]).toEqual([true, true, false]);
    // a refused retry is not counted: four more calls fund a third retry (0.25 × 12 = 3)
    r.onCall(START);
    r.onCall(START);
    r.onCall(START);
    r.onCall(START);
    expect(r.tryRetry(START, 0)).toBe(true);
    expect(r.tryRetry(START, 0)).toBe(false);
  });

  it('sloBudget: defaults, the cap as a strict bound, and the p99 window of 5 minutes', () => {
    const b = sloBudget();
    // empty: p99 0 → cost 100 → floor(6000 / 100) = 60 → cap 3
    expect(b.allowed(START)).toBe(3);
    expect(b.tryRetry(START, 2)).toBe(true);
    expect(b.tryRetry(START, 3)).toBe(false);
    b.onCall(START);
    // 1000 ms lands in bucket 97: p99 = 0.1·1.1^97 ≈ 1034.7 → floor(6000 / 2069.4) = 2
    b.onAttempt!(1_000, START);
    expect(b.allowed(START)).toBe(Math.floor(6_000 / (2 * edge(97))));
    expect(b.allowed(START)).toBe(2);
    expect(b.tryRetry(START, 1)).toBe(true);
    expect(b.tryRetry(START, 2)).toBe(false);
    // 6 slices of 50 s: the sample leaves the window 300 s after its slice began
    expect(b.allowed(START + 299_999)).toBe(2);
    expect(b.allowed(START + 300_000)).toBe(3);
  });

  it('sloBudget reads the 99th percentile, not a lower one', () => {
    const b = sloBudget();
    // 98 attempts of 10 ms and 2 of 1000 ms: the 99th of 100 is 1000 ms (bucket 97); the 95th is 10 ms
    for (let i = 0; i < 98; i++) b.onAttempt!(10, START);
    b.onAttempt!(1_000, START);
    b.onAttempt!(1_000, START);
    expect(b.allowed(START)).toBe(Math.floor(6_000 / (2 * edge(97))));
    expect(b.allowed(START)).toBe(2);
  });

  it('sloBudget options each apply', () => {
    const a = sloBudget({ maxRetries: 100 });
    expect(a.allowed(START)).toBe(60);
    const f = sloBudget({ maxRetries: 100, fraction: 0.05 });
    expect(f.allowed(START)).toBe(30);
    const w = sloBudget({ maxRetries: 100, sloWindowMs: 10_000 });
    expect(w.allowed(START)).toBe(10);
    const z = sloBudget({ maxRetries: 0 });
    expect(z.tryRetry(START, 0)).toBe(false);
    const l = sloBudget({ latencyWindowMs: 60_000 });
    l.onAttempt!(1_000, START);
    expect(l.allowed(START + 59_999)).toBe(2);
    expect(l.allowed(START + 60_000)).toBe(3);
  });
});
