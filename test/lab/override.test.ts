import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import { figuresOf } from '../../lab/figures.js';
import { MODEL, SCENARIOS } from '../../lab/model.js';
import { modelWith, scenarioWith } from '../../lab/override.js';
import { Outcome, simulate } from '../../lab/simulate.js';

const SEED = 3;
/** Six seconds of the capacity drop (it starts at 30 s): short runs, still in the fault. */
const DURATION_MS = 36_000;
const times = Array.from({ length: 1_000 }, (_, i) => i * 100); // 0 to 99.9 s

function configIssues(fn: () => unknown): { path: string; message: string }[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return [...(e as ConfigError).issues];
  }
  throw new Error('expected a ConfigError');
}

describe('modelWith', () => {
  it('is the default model itself when nothing is overridden', () => {
    expect(modelWith()).toBe(MODEL);
    expect(modelWith({})).toBe(MODEL);
  });

  it('changes the numbers given and keeps every other one', () => {
    const m = modelWith({ queueLimit: 100, callerPatienceMs: 700 });
    const changed = (Object.keys(MODEL) as (keyof typeof MODEL)[]).filter((k) => m[k] !== MODEL[k]);
    expect(changed.sort()).toEqual(['callerPatienceMs', 'queueLimit']);
    expect([m.queueLimit, m.callerPatienceMs]).toEqual([100, 700]);
    expect(MODEL.queueLimit).toBe(1_000); // the default is untouched
  });

  it('refuses a bad number or a number the scenarios or the rows own, naming it', () => {
    expect(configIssues(() => modelWith({ queueLimit: -1 }))).toEqual([{ path: 'queueLimit', message: expect.stringContaining('>= 0') }]);
    expect(configIssues(() => modelWith({ offeredPerSecond: 0 }))).toEqual([{ path: 'offeredPerSecond', message: 'expected a number greater than 0' }]);
    expect(configIssues(() => modelWith({ workers: 3 } as never))).toEqual([{ path: 'workers', message: 'unknown option' }]);
  });
});

describe('scenarioWith', () => {
  it('is the scenario itself when nothing is overridden', () => {
    expect(scenarioWith(SCENARIOS.errors)).toBe(SCENARIOS.errors);
  });

  it('sets the error rate during the fault only, and nothing else of the scenario', () => {
    const base = SCENARIOS.errors;
    const s = scenarioWith(base, { errorRate: 0.6 });
    expect(times.map((t) => s.errorRate(t))).toEqual(times.map((t) => (t >= 30_000 && t < 90_000 ? 0.6 : 0)));
    for (const f of ['down', 'slowdown', 'workers'] as const) expect(times.map((t) => s[f](t))).toEqual(times.map((t) => base[f](t)));
    expect([s.name, s.title, s.faultStartMs, s.faultEndMs, s.changesAt]).toEqual([base.name, base.title, base.faultStartMs, base.faultEndMs, base.changesAt]);
  });

  it('plays the flapping scenario itself at its own 5 s period, and another period when asked', () => {
    const base = SCENARIOS.flapping;
    const same = scenarioWith(base, { flapPeriodMs: 5_000 });
    expect(times.map((t) => same.down(t))).toEqual(times.map((t) => base.down(t)));
    expect(same.changesAt).toEqual(base.changesAt);
    const s = scenarioWith(base, { flapPeriodMs: 4_000 });
    // down [30, 34), up [34, 38), down [38, 42) … down [54, 58), up [58, 60)
    expect([29_900, 30_000, 33_900, 34_000, 37_900, 38_000, 54_000, 58_000, 59_900, 60_000].map((t) => s.down(t))).toEqual([
      false, true, true, false, false, true, true, false, false, false,
    ]);
    expect(s.changesAt).toEqual([30_000, 34_000, 38_000, 42_000, 46_000, 50_000, 54_000, 58_000, 60_000]);
    expect(times.map((t) => s.workers(t))).toEqual(times.map((t) => base.workers(t)));
  });

  it('shortens a fault: C as in the scenario until the new end, then as after it', () => {
    const base = SCENARIOS.hardOutage;
    const s = scenarioWith(base, { faultMs: 27_500 });
    expect([s.faultStartMs, s.faultEndMs]).toEqual([30_000, 57_500]);
    expect([29_900, 30_000, 57_400, 57_500, 59_900, 60_000].map((t) => s.down(t))).toEqual([false, true, true, false, false, false]);
    expect(s.changesAt).toEqual([30_000, 57_500]);
  });

  it('lengthens a fault by repeating its course from its start, so a flapping fault keeps flapping', () => {
    const base = SCENARIOS.flapping; // down [30, 35), [40, 45), [50, 55)
    const s = scenarioWith(base, { faultMs: 42_500 });
    expect(s.faultEndMs).toBe(72_500);
    // the course again from 60 s: down [60, 65), [70, 72.5), then healthy
    expect([59_900, 60_000, 64_900, 65_000, 69_900, 70_000, 72_400, 72_500, 80_000].map((t) => s.down(t))).toEqual([
      false, true, true, false, false, true, true, false, false,
    ]);
    expect(s.changesAt).toEqual([30_000, 35_000, 40_000, 45_000, 50_000, 55_000, 60_000, 65_000, 70_000, 72_500]);
    // and with another override on top, it applies over the new window
    const errors = scenarioWith(SCENARIOS.errors, { faultMs: 10_000, errorRate: 0.5 });
    expect([29_900, 30_000, 39_900, 40_000, 89_000].map((t) => errors.errorRate(t))).toEqual([0, 0.5, 0.5, 0, 0]);
  });

  it('refuses an error rate outside [0, 1], naming it', () => {
    expect(configIssues(() => scenarioWith(SCENARIOS.errors, { errorRate: 1.5 })).map((i) => i.path)).toEqual(['errorRate']);
    expect(configIssues(() => scenarioWith(SCENARIOS.errors, { faultMs: 0 })).map((i) => i.path)).toEqual(['faultMs']);
  });
});

describe('simulate with overrides', () => {
  it('plays the default run byte for byte when the override repeats the defaults', async () => {
    const plain = await simulate('baseline', 'capacityDrop', SEED, DURATION_MS);
    const same = await simulate('baseline', 'capacityDrop', SEED, DURATION_MS, undefined, {
      model: { queueLimit: MODEL.queueLimit, callerPatienceMs: MODEL.callerPatienceMs },
      scenario: {},
    });
    expect(same.model).toEqual(MODEL);
    expect([Array.from(same.outcome), Array.from(same.latency), same.timers]).toEqual([Array.from(plain.outcome), Array.from(plain.latency), plain.timers]);
  }, 60_000);

  it("changes the run through the numbers given: A's load and patience, C's queue", async () => {
    const plain = await simulate('baseline', 'capacityDrop', SEED, DURATION_MS);
    const half = await simulate('baseline', 'capacityDrop', SEED, DURATION_MS, undefined, { model: { offeredPerSecond: 100, callerPatienceMs: 300 } });
    expect(half.model).toEqual({ ...MODEL, offeredPerSecond: 100, callerPatienceMs: 300 });
    // about half the arrivals (Poisson: 3,600 expected), and nobody waits past 300 ms
    expect(half.arrival.length).toBeGreaterThan(3_300);
    expect(half.arrival.length).toBeLessThan(3_900);
    expect(plain.arrival.length).toBeGreaterThan(6_600);
    expect(Math.max(...half.latency)).toBeLessThanOrEqual(301);
    expect(Math.max(...plain.latency)).toBeGreaterThan(300);
    // no queue at C: a call that finds every worker busy is refused, so some fail even before the fault
    const noQueue = await simulate('baseline', 'capacityDrop', SEED, DURATION_MS, undefined, { model: { queueLimit: 0 } });
    const failedBefore = (r: typeof plain): number => r.outcome.filter((o, i) => o === Outcome.Failed && r.arrival[i]! < 30_000).length;
    expect(failedBefore(plain)).toBe(0);
    expect(failedBefore(noQueue)).toBeGreaterThan(0);
  }, 60_000);

  it("measures a run's figures over its own fault when its length changes", async () => {
    const short = await simulate('baseline', 'hardOutage', SEED, DURATION_MS, undefined, { scenario: { faultMs: 3_000 } });
    expect(short.faultEndMs).toBe(33_000);
    const f = figuresOf(short).figures;
    // down for 3 s of the 6 s measured: nothing real during the fault, every request after it answered
    expect(f.realSuccessDuringFault).toBe(0);
    expect(f.realSuccessAfterFault).toBe(1);
  }, 60_000);

  it("changes C's error rate during the fault and nothing before it", async () => {
    const plain = await simulate('baseline', 'errors', SEED, DURATION_MS);
    const worse = await simulate('baseline', 'errors', SEED, DURATION_MS, undefined, { scenario: { errorRate: 0.9 } });
    const before = (r: typeof plain) => Array.from(r.outcome).filter((_, i) => r.arrival[i]! < 30_000);
    expect(before(worse)).toEqual(before(plain));
    expect(figuresOf(plain).figures.realSuccessDuringFault).toBeGreaterThan(0.6); // 30 % errors
    expect(figuresOf(worse).figures.realSuccessDuringFault).toBeLessThan(0.2); // 90 %
  }, 60_000);
});
