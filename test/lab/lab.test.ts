import { describe, expect, it } from 'vitest';
import { LabClock } from '../../lab/clock.js';
import { MODEL } from '../../lab/model.js';
import { BOUNDED_TOTAL_MS } from '../../lab/rows.js';
import { runLab, toJson, type LabResults, type RunResult } from '../../lab/run.js';

const find = (r: LabResults, row: string, scenario: string): RunResult => r.results.find((x) => x.row === row && x.scenario === scenario)!;

describe('lab clock', () => {
  it('fires timers in order of time, then of creation, and skips cleared ones', async () => {
    const clock = new LabClock(1_000);
    const seen: string[] = [];
    clock.setTimeout(() => seen.push('b'), 20);
    clock.setTimeout(() => seen.push('a'), 10);
    const c = clock.setTimeout(() => seen.push('c'), 15);
    clock.setTimeout(() => seen.push('b2'), 20);
    clock.clearTimeout(c);
    await clock.run(1_030);
    expect(seen).toEqual(['a', 'b', 'b2']);
    expect(clock.now()).toBe(1_030);
  });

  it('settles promise callbacks before time moves to a later millisecond', async () => {
    const clock = new LabClock(0);
    let at: number | undefined;
    clock.setTimeout(() => void Promise.resolve().then(() => Promise.resolve()).then(() => (at = clock.now())), 5);
    clock.setTimeout(() => {}, 50);
    await clock.run(100);
    expect(at).toBe(5);
  });
});

describe('the lab at the default seed', async () => {
  const hard = await runLab({ rows: ['baseline', 'naiveRetry', 'budgetedRetry', 'standard'], scenarios: ['hardOutage'], seeds: [1], durationMs: 180_000 });
  const drop = await runLab({ rows: ['baseline', 'naiveRetry', 'boundedRetry', 'standard'], scenarios: ['capacityDrop', 'latency'], seeds: [1], durationMs: 180_000 });

  it('gives byte-identical results.json for the same seed', async () => {
    const again = await runLab({ rows: ['baseline', 'naiveRetry', 'budgetedRetry', 'standard'], scenarios: ['hardOutage'], seeds: [1], durationMs: 180_000 });
    expect(toJson(again)).toBe(toJson(hard));
  }, 120_000);

  it('hard outage: baseline fails during the fault while standard answers', () => {
    expect(find(hard, 'baseline', 'hardOutage').figures.realSuccessDuringFault).toBeLessThan(0.1);
    expect(find(hard, 'standard', 'hardOutage').figures.answered).toBeGreaterThan(0.99);
  });

  it('hard outage: naiveRetry amplifies C’s load at least 2× while budgetedRetry stays at most 1.2×', () => {
    expect(find(hard, 'naiveRetry', 'hardOutage').figures.amplification).toBeGreaterThanOrEqual(2);
    expect(find(hard, 'budgetedRetry', 'hardOutage').figures.amplification).toBeLessThanOrEqual(1.2);
  });

  it('capacity drop: naiveRetry never recovers (metastable) while standard recovers within 30 s', () => {
    expect(find(drop, 'naiveRetry', 'capacityDrop').figures.recoveryS).toBeNull();
    const standard = find(drop, 'standard', 'capacityDrop').figures.recoveryS;
    expect(standard).not.toBeNull();
    expect(standard!).toBeLessThanOrEqual(30);
  });

  it('boundedRetry differs from naiveRetry where its claim lives: the caller never waits past its total timeout', () => {
    for (const scenario of ['capacityDrop', 'latency']) {
      const naive = find(drop, 'naiveRetry', scenario).figures;
      const bounded = find(drop, 'boundedRetry', scenario).figures;
      // the naive client keeps A waiting until A gives up; boundedRetry answers within its 400 ms (+ the lab clock's 1 ms slot)
      expect(naive.p99Ms).toBeGreaterThanOrEqual(MODEL.callerPatienceMs);
      expect(bounded.p99Ms).toBeLessThanOrEqual(BOUNDED_TOTAL_MS + 1);
    }
  });

  it('latency and capacity faults: baseline saturates B and its real success collapses during the fault (seed 000)', () => {
    for (const scenario of ['latency', 'capacityDrop']) {
      const f = find(drop, 'baseline', scenario).figures;
      expect(f.peakInFlight).toBe(100);
      expect(f.realSuccessDuringFault).toBeLessThan(0.1);
    }
    // and the baseline, without retries, recovers once the trigger is gone
    expect(find(drop, 'baseline', 'capacityDrop').figures.recoveryS).not.toBeNull();
  });
});
