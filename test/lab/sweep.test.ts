import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../lib/errors.js';
import type { Figures } from '../../lab/figures.js';
import type { RunResult } from '../../lab/run.js';
import {
  cellPhases,
  gridPoints,
  overridesOf,
  phaseMark,
  phaseOf,
  preFaultReal,
  sweepFileOf,
  sweepJobs,
  SWEEP_DURATION_MS,
  type SweepGrid,
} from '../../lab/sweep.js';

const GRID: SweepGrid = { offeredPerSecond: [100, 250], errorRate: [0, 0.5, 1], callerPatienceMs: [400] };

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('expected a ConfigError');
}

describe('gridPoints', () => {
  it('lists every point, load first, then error rate, then patience', () => {
    expect(gridPoints(GRID)).toEqual([
      { offeredPerSecond: 100, errorRate: 0, callerPatienceMs: 400 },
      { offeredPerSecond: 100, errorRate: 0.5, callerPatienceMs: 400 },
      { offeredPerSecond: 100, errorRate: 1, callerPatienceMs: 400 },
      { offeredPerSecond: 250, errorRate: 0, callerPatienceMs: 400 },
      { offeredPerSecond: 250, errorRate: 0.5, callerPatienceMs: 400 },
      { offeredPerSecond: 250, errorRate: 1, callerPatienceMs: 400 },
    ]);
    expect(gridPoints({ offeredPerSecond: [1, 2], errorRate: [0.1, 0.2, 0.3], callerPatienceMs: [5, 6, 7, 8] })).toHaveLength(24);
  });

  it('refuses an empty axis or a value out of its range, naming it', () => {
    expect(issuesOf(() => gridPoints({ ...GRID, callerPatienceMs: [] }))).toEqual(['callerPatienceMs: expected at least one value']);
    expect(issuesOf(() => gridPoints({ ...GRID, errorRate: [0.2, 1.5] }))).toEqual([expect.stringMatching(/^errorRate\[1\]: /)]);
    expect(issuesOf(() => gridPoints({ ...GRID, offeredPerSecond: [-5] }))).toEqual(['offeredPerSecond[0]: expected a number greater than 0']);
  });
});

describe('sweepJobs', () => {
  it('plays every row at every point at every seed in the errors scenario, the point in its overrides', () => {
    const jobs = sweepJobs(GRID, ['baseline', 'naiveRetry'], [1, 2]);
    expect(jobs).toHaveLength(2 * 6 * 2);
    expect(jobs[0]).toEqual({ row: 'baseline', scenario: 'errors', seed: 1, durationMs: SWEEP_DURATION_MS, series: true, overrides: overridesOf(gridPoints(GRID)[0]!) });
    expect(jobs[1]!.seed).toBe(2);
    expect(jobs[12]!.row).toBe('naiveRetry');
    expect(jobs[23]!.overrides).toEqual({ model: { offeredPerSecond: 250, callerPatienceMs: 400 }, scenario: { errorRate: 1 } });
  });

  it('runs long enough to see a recovery up to 30 s after the errors end at 90 s', () => {
    expect(SWEEP_DURATION_MS).toBe(125_000);
  });
});

describe('phaseOf', () => {
  it('is overloaded when under 99 % of requests got a real answer before the fault, whatever came after', () => {
    expect(phaseOf({ recoveryS: 0, preFaultReal: 0.985 })).toBe('overloaded');
    expect(phaseOf({ recoveryS: null, preFaultReal: 0.2 })).toBe('overloaded');
  });

  it('is recovered when the recovery starts within the limit of the fault end, else metastable', () => {
    expect(phaseOf({ recoveryS: 0, preFaultReal: 0.99 })).toBe('recovered');
    expect(phaseOf({ recoveryS: 30, preFaultReal: 1 })).toBe('recovered');
    expect(phaseOf({ recoveryS: 30.1, preFaultReal: 1 })).toBe('metastable');
    expect(phaseOf({ recoveryS: null, preFaultReal: 1 })).toBe('metastable');
    expect(phaseOf({ recoveryS: 12, preFaultReal: 1 }, 10)).toBe('metastable');
  });
});

describe('phaseMark', () => {
  it('marks a cell by its seeds: none, some or all metastable, or overloaded in most', () => {
    expect(phaseMark(['recovered', 'recovered', 'recovered'])).toBe('·');
    expect(phaseMark(['recovered', 'metastable', 'recovered'])).toBe('◐');
    expect(phaseMark(['metastable', 'metastable', 'metastable'])).toBe('●');
    expect(phaseMark(['metastable', 'overloaded', 'metastable'])).toBe('●');
    expect(phaseMark(['overloaded', 'overloaded', 'recovered'])).toBe('×');
  });
});

describe('preFaultReal', () => {
  it('averages the ten seconds before the fault', () => {
    const perSecond = Array.from({ length: 60 }, (_, s) => (s < 20 ? 0 : s < 30 ? (s % 2 === 0 ? 1 : 0.9) : 0));
    expect(preFaultReal(perSecond, 30_000)).toBe(0.95);
    expect(preFaultReal([], 30_000)).toBe(1);
  });
});

describe('sweepFileOf and cellPhases', () => {
  const result = (recoveryS: number | null, before: number): RunResult => ({
    row: 'baseline',
    scenario: 'errors',
    seed: 1,
    figures: { recoveryS, realSuccess: 0.5, realSuccessDuringFault: 0.25, amplification: 1.5 } as Figures,
    series: { realSuccess: Array.from({ length: 40 }, () => before), p99Ms: [], p99RealMs: [], cLoad: [], held: [], wasted: [], breakerOpen: [] },
  });

  it('puts each seed of each point in its cell, in the jobs’ order, and classifies them', () => {
    const grid: SweepGrid = { offeredPerSecond: [100, 200], errorRate: [0.3], callerPatienceMs: [500] };
    const results = [result(0, 1), result(null, 1), result(40, 1), result(2, 0.5)];
    const file = sweepFileOf(grid, ['baseline'], [1, 2], results, 'test');
    expect(file.cells).toEqual([
      { row: 'baseline', offeredPerSecond: 100, errorRate: 0.3, callerPatienceMs: 500, runs: [[0, 1, 0.5, 0.25, 1.5], [null, 1, 0.5, 0.25, 1.5]] },
      { row: 'baseline', offeredPerSecond: 200, errorRate: 0.3, callerPatienceMs: 500, runs: [[40, 1, 0.5, 0.25, 1.5], [2, 0.5, 0.5, 0.25, 1.5]] },
    ]);
    expect(file.cells.map((c) => cellPhases(c))).toEqual([
      ['recovered', 'metastable'],
      ['metastable', 'overloaded'],
    ]);
  });
});
