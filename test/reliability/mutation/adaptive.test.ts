/**
 * Tests written from a manual mutation analysis of the adaptive parts: the SLA
 * formulas, the histogram, the degrade policy and its decision tree, the load
 * shedder, the retry budgets and backoffs, and the shared deadline timer.
 * Every expected figure is derived by hand from the formula in the spec or
 * the doc comment, not from running the code.
 */
import { BehaviorSubject, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DeadlineTimer, deadlineTimerOf, type DeadlineEntry } from '../../../lib/clock.js';
import { RollingHistogram } from '../../../lib/histogram.js';
import {
  ConfigError,
  constant,
  decisionTree,
  degrade,
  exponential,
  healthOf,
  linear,
  loadShedder,
  OverloadedError,
  processCpu,
  sloBudget,
  tokenBudget,
  toSignal,
  type PolicyEvent,
} from '../../../api/index.js';
import {
  allowedDowntime,
  availabilityNines,
  combinedAvailability,
  DEGRADE_THRESHOLDS,
  degradeDecision,
  DYNAMIC_THRESHOLD_WEIGHTS,
  dynamicThreshold,
  RTO_BASE_DELAY_MS,
  rtoMax,
  shouldDegrade,
  sloRetryBudget,
  YEAR_MS,
} from '../../../lib/sla.js';
import { fromFunction, isBackoff } from '../../../policies/retry/backoff.js';
import { isRetryBudget } from '../../../policies/retry/budget.js';
import { scriptedRandom, seededRandom, TestClock } from '../../../lib/testing.js';
import { collect } from '../../helpers/breakers.js';

const START = 1_700_000_000_000;

/** The upper edge of histogram bucket `b`: 0.1 ms · 1.1^b (lib/histogram.ts doc). */
const edge = (b: number): number => 0.1 * 1.1 ** b;

describe('sla: combinedAvailability edges', () => {
  it('accepts the ends of [0, 1] for availability and overlap', () => {
    // 1 − (1 − 0)·1 = 0; 1 − (1 − 1)·1 = 1; 1 − (1 − 0)·0 = 1
    expect(combinedAvailability([{ availability: 0, overlap: 1 }])).toBe(0);
    expect(combinedAvailability([{ availability: 1, overlap: 1 }])).toBe(1);
    expect(combinedAvailability([{ availability: 0, overlap: 0 }])).toBe(1);
    // three parts: (0.5·0.5)·(0.5·1)·(0.5·0.5) = 0.03125
    expect(
      combinedAvailability([
        { availability: 0.5, overlap: 0.5 },
        { availability: 0.5, overlap: 1 },
        { availability: 0.5, overlap: 0.5 },
      ]),
    ).toBe(1 - 0.03125);
  });

  it('names the part and the value it rejects', () => {
    expect(() => combinedAvailability([])).toThrow('combinedAvailability needs at least one part');
    expect(() => combinedAvailability([{ availability: 0.9, overlap: 1 }, { availability: 0.9, overlap: 1.5 }])).toThrow(
      new RangeError('parts[1].overlap must lie in [0, 1], got 1.5'),
    );
    expect(() => combinedAvailability([{ availability: -0.01, overlap: 1 }])).toThrow(new RangeError('parts[0].availability must lie in [0, 1], got -0.01'));
    expect(() => combinedAvailability([{ availability: Number.NaN, overlap: 1 }])).toThrow(RangeError);
    expect(() => combinedAvailability([{ availability: 0.5, overlap: Number.NaN }])).toThrow(RangeError);
  });
});

describe('sla: rtoMax edges', () => {
  it('base delays are open 6000, half-open 1000, closed 0', () => {
    expect(RTO_BASE_DELAY_MS).toEqual({ open: 6_000, 'half-open': 1_000, closed: 0 });
    // errorLatency 0 leaves only the base delay
    expect(rtoMax({ state: 'open', errorLatencyMs: 0, recoveryRate: 0.5 })).toBe(6_000);
    expect(rtoMax({ state: 'half-open', errorLatencyMs: 0, recoveryRate: 0.5 })).toBe(1_000);
  });

  it('a partial baseDelayMs falls back per state, and a given 0 is kept', () => {
    // half-open is not given: its default 1000 applies; r = 1 → denominator 1
    expect(rtoMax({ state: 'half-open', errorLatencyMs: 100, recoveryRate: 1, baseDelayMs: { open: 10 } })).toBe(1_100);
    // an explicit 0 is not replaced by the default 6000
    expect(rtoMax({ state: 'open', errorLatencyMs: 100, recoveryRate: 1, baseDelayMs: { open: 0 } })).toBe(100);
  });

  it('a recovery rate over 1 counts as 1; probes shape the denominator', () => {
    expect(rtoMax({ state: 'closed', errorLatencyMs: 500, recoveryRate: 1.5 })).toBe(500);
    // 1 − 0.5² = 0.75 → 300 / 0.75 = 400
    expect(rtoMax({ state: 'closed', errorLatencyMs: 300, recoveryRate: 0.5, probes: 2 })).toBe(400);
    // default probes 3: 1 − 0.5³ = 0.875 → 350 / 0.875 = 400
    expect(rtoMax({ state: 'closed', errorLatencyMs: 350, recoveryRate: 0.5 })).toBe(400);
  });

  it('rejects bad inputs with their values, before the Infinity answer', () => {
    expect(() => rtoMax({ state: 'open', errorLatencyMs: -1, recoveryRate: 0.5 })).toThrow(new RangeError('errorLatencyMs must be >= 0, got -1'));
    expect(() => rtoMax({ state: 'open', errorLatencyMs: -1, recoveryRate: 0 })).toThrow(RangeError);
    expect(() => rtoMax({ state: 'open', errorLatencyMs: Number.NaN, recoveryRate: 0.5 })).toThrow(RangeError);
    expect(() => rtoMax({ state: 'open', errorLatencyMs: 1, recoveryRate: 0.5, probes: 0 })).toThrow(new RangeError('probes must be an integer >= 1, got 0'));
    expect(() => rtoMax({ state: 'open', errorLatencyMs: 1, recoveryRate: 0, probes: 0 })).toThrow(RangeError);
    expect(() => rtoMax({ state: 'open', errorLatencyMs: 1, recoveryRate: 0.5, probes: 1.5 })).toThrow(/probes/);
  });
});

describe('sla: sloRetryBudget edges', () => {
  it('each default on its own: window 60000, fraction 0.1, cap 3', () => {
    // cost = max(100, 2·500) = 1000
    expect(sloRetryBudget({ p99Ms: 500, maxRetries: 100 })).toBe(6); // 0.1·60000 / 1000
    expect(sloRetryBudget({ p99Ms: 500, fraction: 0.5, maxRetries: 100 })).toBe(30); // 0.5·60000 / 1000
    expect(sloRetryBudget({ p99Ms: 500, sloWindowMs: 10_000, maxRetries: 100 })).toBe(1); // 0.1·10000 / 1000
    expect(sloRetryBudget({ p99Ms: 500 })).toBe(3); // 6 capped at 3
    expect(sloRetryBudget({ p99Ms: 700, maxRetries: 100 })).toBe(4); // floor(6000 / 1400 = 4.28)
  });

  it('the 100 ms cost floor and twice the p99 above it', () => {
    // 1 × 1000 ms of budget: p99 40 → cost max(100, 80) = 100 → 10; p99 60 → 120 → floor(8.33) = 8
    expect(sloRetryBudget({ p99Ms: 40, sloWindowMs: 1_000, fraction: 1, maxRetries: 100 })).toBe(10);
    expect(sloRetryBudget({ p99Ms: 60, sloWindowMs: 1_000, fraction: 1, maxRetries: 100 })).toBe(8);
    expect(sloRetryBudget({ p99Ms: 0, sloWindowMs: 1_000, fraction: 1, maxRetries: 100 })).toBe(10);
  });

  it('never negative, and rejects a negative p99 naming it', () => {
    expect(sloRetryBudget({ p99Ms: 100, maxRetries: 0 })).toBe(0);
    expect(sloRetryBudget({ p99Ms: 100, maxRetries: -2 })).toBe(0);
    expect(sloRetryBudget({ p99Ms: 100, fraction: 0 })).toBe(0);
    expect(() => sloRetryBudget({ p99Ms: -1 })).toThrow(new RangeError('p99Ms must be >= 0, got -1'));
    expect(() => sloRetryBudget({ p99Ms: Number.NaN })).toThrow(RangeError);
  });
});

describe('sla: dynamicThreshold edges', () => {
  it('each weight multiplies its own term', () => {
    expect(DYNAMIC_THRESHOLD_WEIGHTS).toEqual({ rps: 0.3, error: 0.5, probe: 0.2 });
    // load 0.5, error 0.5, distrust 0.5 with weights 0.1, 0.2, 0.4: 0.05 + 0.1 + 0.2
    expect(dynamicThreshold({ rps: 50, baseRps: 100, errorRate: 0.5, probeSuccessRate: 0.5 }, { rps: 0.1, error: 0.2, probe: 0.4 })).toBeCloseTo(0.35, 12);
    // only the probe term: 0.2 × (1 − 0.25) = 0.15
    expect(dynamicThreshold({ rps: 0, baseRps: 100, errorRate: 0, probeSuccessRate: 0.25 })).toBeCloseTo(0.15, 12);
    // load exactly at base: 0.3 × 1
    expect(dynamicThreshold({ rps: 100, baseRps: 100, errorRate: 0, probeSuccessRate: 1 })).toBeCloseTo(0.3, 12);
  });

  it('a negative rps counts as no load; baseRps must be > 0', () => {
    expect(dynamicThreshold({ rps: -500, baseRps: 100, errorRate: 0, probeSuccessRate: 1 })).toBe(0);
    expect(() => dynamicThreshold({ rps: 1, baseRps: 0, errorRate: 0, probeSuccessRate: 1 })).toThrow(new RangeError('baseRps must be > 0, got 0'));
  });
});

describe('sla: the decision tree exactly at its thresholds', () => {
  it('the seed thresholds are the defaults', () => {
    expect(DEGRADE_THRESHOLDS).toEqual({ qpsHigh: 5_000, qpsMid: 2_000, cpuHigh: 0.85, cpuCritical: 0.92, healthyMin: 0.9 });
  });

  it.each([
    // qps exactly qpsHigh is medium traffic: hot CPU under cpuCritical and a sick downstream do not degrade
    [{ qps: 5_000, cpu: 0.9, healthyRatio: 0.5 }, 'none'],
    [{ qps: 5_000, cpu: 0.95, healthyRatio: 1 }, 'limitAndSample'],
    [{ qps: 5_001, cpu: 0.86, healthyRatio: 1 }, 'shedNonCore'],
    [{ qps: 5_001, cpu: 0.85, healthyRatio: 0.9 }, 'none'],
    [{ qps: 5_001, cpu: 0.5, healthyRatio: 0.89 }, 'serveFromCache'],
    // CPU is asked first
    [{ qps: 5_001, cpu: 0.9, healthyRatio: 0.1 }, 'shedNonCore'],
    // qps just over qpsMid with critical CPU
    [{ qps: 2_001, cpu: 0.93, healthyRatio: 1 }, 'limitAndSample'],
    [{ qps: 2_000, cpu: 0.93, healthyRatio: 1 }, 'none'],
  ] as const)('default thresholds: %j → %s', (signals, action) => {
    expect(degradeDecision(signals)).toEqual({ degrade: action !== 'none', action });
    expect(shouldDegrade(signals)).toBe(action !== 'none');
  });
});

describe('sla: conversions at the ends', () => {
  it('nines of 0 and 0.9995; downtime of 1 and 0; the default period is a 365.25-day year', () => {
    expect(availabilityNines(0) + 0).toBe(0);
    expect(availabilityNines(0.9995)).toBeCloseTo(3.30103, 5);
    expect(() => availabilityNines(1.5)).toThrow(new RangeError('availability must lie in [0, 1], got 1.5'));
    expect(YEAR_MS).toBe(31_557_600_000);
    expect(allowedDowntime(1, 1_000)).toBe(0);
    expect(allowedDowntime(0, 1_000)).toBe(1_000);
    expect(allowedDowntime(0.5)).toBe(15_778_800_000);
    expect(() => allowedDowntime(0.5, 0)).toThrow(new RangeError('periodMs must be > 0, got 0'));
    expect(() => allowedDowntime(-0.5, 10)).toThrow(/availability/);
  });
});

describe('RollingHistogram: buckets and quantiles', () => {
  it('a sample at or under 0.1 ms is bucket 0, whose edge is 0.1', () => {
    for (const ms of [0, 0.1, -3]) {
      const h = new RollingHistogram({ windowMs: 60_000 });
      h.record(ms, 0);
      expect(h.quantile(0.5, 0)).toBe(0.1);
    }
    // 0.2 ms: floor(ln 2 / ln 1.1) + 1 = floor(7.27) + 1 = 8
    const h = new RollingHistogram({ windowMs: 60_000 });
    h.record(0.2, 0);
    expect(h.quantile(0.5, 0)).toBeCloseTo(edge(8), 12);
  });

  it('samples beyond the last bucket land in bucket 179; a q over 1 answers its edge', () => {
    const h = new RollingHistogram({ windowMs: 60_000 });
    h.record(1e12, 0);
    expect(h.quantile(0.5, 0)).toBeCloseTo(edge(179), 3);
    const g = new RollingHistogram({ windowMs: 60_000 });
    g.record(1, 0);
    expect(g.quantile(2, 0)).toBeCloseTo(edge(179), 3);
  });

  it('the quantile is the bucket holding the ceil(q·n)-th sample, at least the first', () => {
    // 1, 10, 100, 1000 ms land in buckets 25, 49, 73, 97 (floor(ln(ms/0.1)/ln 1.1) + 1)
    const h = new RollingHistogram({ windowMs: 60_000 });
    for (const ms of [1_000, 1, 100, 10]) h.record(ms, 0);
    expect(h.count(0)).toBe(4);
    expect(h.quantile(0, 0)).toBeCloseTo(edge(25), 9); // target max(1, 0) = 1
    expect(h.quantile(0.25, 0)).toBeCloseTo(edge(25), 9); // target 1
    expect(h.quantile(0.5, 0)).toBeCloseTo(edge(49), 9); // target 2
    expect(h.quantile(0.6, 0)).toBeCloseTo(edge(73), 9); // target ceil(2.4) = 3
    expect(h.quantile(1, 0)).toBeCloseTo(edge(97), 9); // target 4
    // only one sample, of 0.2 ms: q = 0 still finds it
    const g = new RollingHistogram({ windowMs: 60_000 });
    g.record(0.2, 0);
    expect(g.quantile(0, 0)).toBeCloseTo(edge(8), 12);
  });

  it('a reused slice starts empty: counts and total', () => {
    const h = new RollingHistogram({ windowMs: 60_000, slices: 6 });
    h.record(10, 0); // slice 0, epoch 0
    h.record(0, 0); // bucket 0
    h.record(1_000, 60_000); // slice 0 again, epoch 6
    expect(h.count(60_000)).toBe(1);
    expect(h.quantile(0.01, 60_000)).toBeCloseTo(edge(97), 9);
  });

  it('a sample past the last bucket stays in its own slice', () => {
    const h = new RollingHistogram({ windowMs: 60_000, slices: 6 });
    h.record(1, 10_000); // slice 1, bucket 25
    h.record(1e12, 0); // slice 0, bucket 179
    expect(h.count(10_000)).toBe(2);
    expect(h.quantile(0.5, 10_000)).toBeCloseTo(edge(25), 9);
    expect(h.quantile(1, 10_000)).toBeCloseTo(edge(179), 3);
  });

  it('the quantile leaves out a slice exactly one window old, as the count does', () => {
    const h = new RollingHistogram({ windowMs: 60_000, slices: 6 });
    h.record(10, 0); // slice 0, epoch 0, bucket 49
    h.record(1_000, 10_000); // slice 1, epoch 1, bucket 97
    // at 60,000 (epoch 6) slice 0 still holds epoch 0, a whole window old
    expect(h.count(60_000)).toBe(1);
    expect(h.quantile(0.5, 60_000)).toBeCloseTo(edge(97), 9);
  });

  it('6 slices by default, and negative clock times map to a slice', () => {
    const h = new RollingHistogram({ windowMs: 60_000 }); // slices of 10 s
    h.record(5, 0);
    h.record(5, 50_000);
    expect(h.count(59_999)).toBe(2);
    expect(h.count(60_000)).toBe(1);
    const n = new RollingHistogram({ windowMs: 60_000 });
    n.record(5, -5_000);
    expect(n.count(-5_000)).toBe(1);
    expect(n.quantile(0.5, -5_000)).toBeCloseTo(edge(42), 9); // floor(ln 50 / ln 1.1) + 1 = floor(41.04) + 1
  });
});

describe('decisionTree: defaults, validation and the Observable form', () => {
  it('defaults to the seed thresholds, each one separately', () => {
    expect(decisionTree().thresholds).toEqual({ qpsHigh: 5_000, qpsMid: 2_000, cpuHigh: 0.85, cpuCritical: 0.92, healthyMin: 0.9 });
    expect(decisionTree({ qpsMid: 100 }).thresholds).toEqual({ qpsHigh: 5_000, qpsMid: 100, cpuHigh: 0.85, cpuCritical: 0.92, healthyMin: 0.9 });
    expect(decisionTree().decide({ qps: 5_001, cpu: 0.86, healthyRatio: 1 })).toEqual({ degrade: true, action: 'shedNonCore' });
    expect(() => decisionTree().dispose()).not.toThrow();
  });

  it('qpsHigh may equal qpsMid; rates may be 0, not negative; messages name the rule', () => {
    expect(decisionTree({ qpsHigh: 1_000, qpsMid: 1_000 }).thresholds.qpsHigh).toBe(1_000);
    expect(decisionTree({ qpsHigh: 0, qpsMid: 0 }).thresholds.qpsMid).toBe(0);
    expect(() => decisionTree({ qpsHigh: 10, qpsMid: 20 })).toThrow(/qpsHigh must be >= qpsMid/);
    expect(() => decisionTree({ qpsMid: -1 })).toThrow(/expected a finite number >= 0/);
    expect(() => decisionTree({ qpsMid: -1 })).toThrow(ConfigError);
    expect(() => decisionTree({ cpuHigh: 1 })).not.toThrow();
    expect(() => decisionTree({ cpuHigh: 1.01 })).toThrow(/cpuHigh/);
  });

  it('an Observable tree uses the seed thresholds until it first emits', () => {
    const updates = new Subject<{ qpsHigh?: number; qpsMid?: number }>();
    const tree = decisionTree(updates);
    expect(tree.thresholds).toEqual(DEGRADE_THRESHOLDS);
    updates.next({ qpsMid: 10 });
    expect(tree.thresholds.qpsMid).toBe(10);
    expect(tree.decide({ qps: 11, cpu: 0.93, healthyRatio: 1 })).toEqual({ degrade: true, action: 'limitAndSample' });
    tree.dispose();
    expect(updates.observed).toBe(false);
  });
});

describe('degrade: defaults, events and signals', () => {
  it('emits degraded and outcome events with every field, durationMs on the clock', async () => {
    const clock = new TestClock(START);
    const d = degrade({
      when: (s) => s.cpu! > 0.5,
      signals: { cpu: () => 0.75, qps: 42, health: 0.5, depth: 7 },
      to: () => new Promise<string>((resolve) => clock.setTimeout(() => resolve('cached'), 30)),
      clock,
    });
    const events = collect(d);
    const p = d.execute(() => 'real');
    await clock.advance(30);
    expect(await p).toBe('cached');
    expect(events).toEqual([
      { type: 'degraded', policy: 'degrade', action: 'custom', signals: { qps: 42, cpu: 0.75, health: 0.5, depth: 7 } },
      { type: 'outcome', policy: 'degrade', result: 'fallback', durationMs: 30 },
    ]);
  });

  it('a call it lets through emits no degraded event and reaches the operation', async () => {
    const clock = new TestClock(START);
    const d = degrade({ when: decisionTree(), signals: { cpu: 0.99, qps: 6_000 }, to: () => 'cached', clock, name: 'x' });
    const events = collect(d);
    // qps 6000 and cpu 0.99: shed; now cool the same policy down through a tree with higher thresholds
    expect(await d.execute(() => 'real')).toBe('cached');
    expect(events.filter((e) => e.type === 'degraded')).toEqual([
      { type: 'degraded', policy: 'x', action: 'shedNonCore', signals: { qps: 6_000, cpu: 0.99, health: 1 } },
    ]);
    (d.decision as ReturnType<typeof decisionTree>).setThresholds({ qpsHigh: 10_000, qpsMid: 9_000 });
    events.length = 0;
    expect(await d.execute(() => 'real')).toBe('real');
    expect(events.filter((e) => e.type === 'degraded')).toEqual([]);
  });

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

describe('healthOf: successes over counted outcomes', () => {
  it('ignores rejected, fallback and non-outcome events; a timeout counts as a failure; 10 s window by default', async () => {
    const clock = new TestClock(START);
    const events$ = new Subject<PolicyEvent>();
    const health = healthOf({ events$ }, { clock });
    const outcome = (result: 'success' | 'failure' | 'rejected' | 'timeout' | 'fallback'): void =>
      events$.next({ type: 'outcome', policy: 'p', result, durationMs: 1 });
    outcome('rejected');
    outcome('fallback');
    events$.next({ type: 'degraded', policy: 'p', action: 'custom', signals: {} });
    expect(health.value()).toBe(1); // nothing counted yet
    outcome('success');
    outcome('timeout');
    outcome('success');
    outcome('failure');
    expect(health.value()).toBe(0.5); // 2 of 4
    outcome('rejected');
    outcome('fallback');
    expect(health.value()).toBe(0.5);
    await clock.advance(9_999);
    expect(health.value()).toBe(0.5);
    await clock.advance(1);
    expect(health.value()).toBe(1); // the window has passed
    health.dispose();
    expect(events$.observed).toBe(false);
  });
});

describe('processCpu: sampling on the clock', () => {
  /** Spins until this process has used at least `ms` of CPU. */
  function burn(ms: number): void {
    const start = process.cpuUsage();
    for (;;) {
      const u = process.cpuUsage(start);
      if ((u.user + u.system) / 1_000 >= ms) return;
    }
  }

  it('samples at most once per sampleMs (1 s by default), exactly at the boundary', async () => {
    const clock = new TestClock(START);
    const cpu = processCpu({ clock });
    burn(20);
    await clock.advance(999);
    expect(cpu.value()).toBe(0); // not yet sampled
    await clock.advance(1);
    const v = cpu.value();
    expect(v).toBeGreaterThan(0); // ≥ 20 ms of CPU over 1000 ms
    expect(v).toBeLessThanOrEqual(1);
    // between samples the last value is returned, however much CPU is used
    burn(20);
    expect(cpu.value()).toBe(v);
    await clock.advance(999);
    expect(cpu.value()).toBe(v);
  });

  it('without a clock it reads the wall clock: 0 before its first sample', () => {
    expect(processCpu().value()).toBe(0);
    expect(processCpu({ sampleMs: 60_000 }).value()).toBe(0);
  });

  it('caps at 1 when more CPU was used than clock time passed', async () => {
    const clock = new TestClock(START);
    const cpu = processCpu({ clock, sampleMs: 5 });
    burn(15);
    await clock.advance(5);
    expect(cpu.value()).toBe(1);
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

describe('DeadlineTimer: one timer, a min-heap of entries', () => {
  function entry(at: number, log: number[]): DeadlineEntry {
    return { at, heapIndex: -1, expire: () => log.push(at) };
  }

  it('expires entries in time order, each at its own time, with one timer armed', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const fired: number[] = [];
    for (const d of [50, 10, 30, 20, 40, 60, 5]) {
      t.add({ at: START + d, heapIndex: -1, expire: () => (log.push(d), fired.push(clock.now() - START)) });
    }
    expect(t.size).toBe(7);
    expect(clock.armedTimers).toBe(1);
    await clock.advance(4);
    expect(log).toEqual([]);
    await clock.advance(1);
    expect(log).toEqual([5]);
    await clock.advance(100);
    expect(log).toEqual([5, 10, 20, 30, 40, 50, 60]);
    expect(fired).toEqual([5, 10, 20, 30, 40, 50, 60]);
    expect(t.size).toBe(0);
    expect(clock.armedTimers).toBe(0);
  });

  it('removal anywhere in the heap keeps the order; removed entries never expire; removing twice is harmless', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const clock = new TestClock(START);
      const t = new DeadlineTimer(clock);
      const random = seededRandom(seed);
      const log: number[] = [];
      const entries = Array.from({ length: 200 }, () => entry(START + 1 + Math.floor(random() * 10_000), log));
      for (const e of entries) t.add(e);
      const removed = new Set<DeadlineEntry>();
      for (let k = 0; k < 100; k++) {
        const e = entries[Math.floor(random() * entries.length)]!;
        t.remove(e);
        expect(e.heapIndex).toBe(-1);
        removed.add(e);
      }
      expect(t.size).toBe(200 - removed.size);
      const kept = entries.filter((e) => !removed.has(e)).map((e) => e.at);
      await clock.advance(20_000);
      expect(log).toEqual([...kept].sort((a, b) => a - b));
      expect(t.size).toBe(0);
    }
  });

  it('an expired entry is out of the heap; removing it after is harmless', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = entry(START + 10, log);
    const b = entry(START + 20, log);
    t.add(a);
    t.add(b);
    await clock.advance(10);
    expect(a.heapIndex).toBe(-1);
    t.remove(a);
    expect(t.size).toBe(1);
    expect(b.heapIndex).toBe(0);
    await clock.advance(10);
    expect(log).toEqual([START + 10, START + 20]);
  });

  it('an earlier entry re-arms the one timer; a later one does not', () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    t.add(entry(START + 100, log));
    t.add(entry(START + 200, log));
    expect(clock.armedTimers).toBe(1);
    t.add(entry(START + 50, log));
    expect(clock.armedTimers).toBe(1);
    expect(clock.pendingTimers).toBe(1);
  });

  it('an empty heap unrefs the timer instead of clearing it; the next entry refs it again', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = entry(START + 100, log);
    t.add(a);
    t.remove(a);
    expect(clock.pendingTimers).toBe(0);
    expect(clock.armedTimers).toBe(1);
    // a later entry reuses the armed timer and refs it
    const b = entry(START + 150, log);
    t.add(b);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.armedTimers).toBe(1);
    t.remove(b);
    expect(clock.pendingTimers).toBe(0);
    // the idle timer fires with nothing due and disarms
    await clock.advance(100);
    expect(clock.armedTimers).toBe(0);
    expect(log).toEqual([]);
    // then the next entry arms a fresh timer
    const c = entry(START + 130, log);
    t.add(c);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(30);
    expect(log).toEqual([START + 130]);
  });

  it('re-arming from idle for an earlier entry leaves the idle state: emptying again unrefs', () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = entry(START + 100, log);
    t.add(a);
    t.remove(a); // idle, unref'd timer at +100
    const b = entry(START + 50, log); // earlier: a fresh timer
    t.add(b);
    expect(clock.armedTimers).toBe(1);
    expect(clock.pendingTimers).toBe(1);
    t.remove(b);
    expect(clock.pendingTimers).toBe(0);
  });

  it('the timer firing early for a removed root re-arms for the next entry', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = entry(START + 10, log);
    t.add(a);
    t.add(entry(START + 40, log));
    t.remove(a); // the timer stays armed at +10
    await clock.advance(10);
    expect(log).toEqual([]);
    expect(clock.pendingTimers).toBe(1); // re-armed for +40
    await clock.advance(30);
    expect(log).toEqual([START + 40]);
    expect(clock.armedTimers).toBe(0);
  });

  it('an entry already due expires on the next turn of the clock', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    t.add(entry(START - 50, log));
    await clock.advance(0);
    expect(log).toEqual([START - 50]);
  });

  it('deadlineTimerOf gives one timer per clock', () => {
    const c1 = new TestClock(START);
    const c2 = new TestClock(START);
    expect(deadlineTimerOf(c1)).toBe(deadlineTimerOf(c1));
    expect(deadlineTimerOf(c1)).not.toBe(deadlineTimerOf(c2));
    expect(deadlineTimerOf(c1)).toBeInstanceOf(DeadlineTimer);
  });
});
