import { above, array, checkOptions, number, object, positiveMs, ratio } from '../lib/options.js';
import { SCENARIOS, type ScenarioName } from './model.js';
import type { RunOverrides } from './override.js';
import type { RowName } from './rows.js';
import type { Job, RunResult } from './run.js';

/**
 * The sweep (`npm run lab:sweep`): the errors scenario played over a grid of A's offered load, C's error rate
 * during the fault and A's patience, for a few rows at a few seeds, each run classified as recovered,
 * metastable or overloaded: the metastable region as a phase diagram.
 */
export interface SweepGrid {
  /** A's offered loads, requests per second. */
  readonly offeredPerSecond: readonly number[];
  /** C's error rates during the fault, shares in [0, 1]. */
  readonly errorRate: readonly number[];
  /** A's patience, ms. */
  readonly callerPatienceMs: readonly number[];
}

/** The published sweep's grid: 5 loads × 6 error rates × 4 patiences. */
export const SWEEP_GRID: SweepGrid = Object.freeze({
  offeredPerSecond: [100, 150, 200, 250, 300],
  errorRate: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6],
  callerPatienceMs: [300, 500, 700, 900],
});

/** The rows the sweep plays: no protection, the anti-pattern, a retry budget and the standard chain. */
export const SWEEP_ROWS: readonly RowName[] = Object.freeze(['baseline', 'naiveRetry', 'budgetedRetry', 'standard']);
/** The scenario whose fault the sweep varies (its error rate; its window stays 30–90 s). */
export const SWEEP_SCENARIO: ScenarioName = 'errors';
/** How many seeds per cell (seeds 1 to 3). */
export const SWEEP_SEEDS = 3;
/** A run is metastable when it has not recovered (the lab's recovery figure) this long after the fault ended. */
export const RECOVERY_LIMIT_S = 30;
/** The sweep's run length: the fault's end, the recovery limit, and the 5 s window of the recovery figure. */
export const SWEEP_DURATION_MS = SCENARIOS[SWEEP_SCENARIO].faultEndMs + RECOVERY_LIMIT_S * 1_000 + 5_000;
/** The seconds before the fault whose real success tells whether the system held before the trigger. */
export const PRE_FAULT_S = 10;

/** One point of the grid. */
export interface SweepPoint {
  readonly offeredPerSecond: number;
  readonly errorRate: number;
  readonly callerPatienceMs: number;
}

const AXES = ['offeredPerSecond', 'errorRate', 'callerPatienceMs'] as const;
const gridRule = object(
  {
    offeredPerSecond: array(number('expected a finite number per second', above(0, 'expected a number greater than 0'))),
    errorRate: array(ratio),
    callerPatienceMs: array(positiveMs),
  },
  (g, add) => {
    for (const axis of AXES) if (g[axis].length === 0) add('expected at least one value', [axis]);
  },
);

/** Every point of `grid`, load first, then error rate, then patience; a bad or empty axis throws a ConfigError naming it. */
export function gridPoints(grid: SweepGrid = SWEEP_GRID): SweepPoint[] {
  const g = checkOptions(gridRule, grid, 'lab sweep');
  const out: SweepPoint[] = [];
  for (const offeredPerSecond of g.offeredPerSecond)
    for (const errorRate of g.errorRate) for (const callerPatienceMs of g.callerPatienceMs) out.push({ offeredPerSecond, errorRate, callerPatienceMs });
  return out;
}

/** The overrides that play `point`: its load and patience in the model, its error rate in the fault. */
export function overridesOf(point: SweepPoint): RunOverrides {
  return { model: { offeredPerSecond: point.offeredPerSecond, callerPatienceMs: point.callerPatienceMs }, scenario: { errorRate: point.errorRate } };
}

/** The sweep's jobs: every row at every point at every seed, in that order (the series kept: the classification reads them). */
export function sweepJobs(grid: SweepGrid, rows: readonly RowName[], seeds: readonly number[], durationMs = SWEEP_DURATION_MS): Job[] {
  const jobs: Job[] = [];
  for (const row of rows)
    for (const point of gridPoints(grid))
      for (const seed of seeds) jobs.push({ row, scenario: SWEEP_SCENARIO, seed, durationMs, series: true, overrides: overridesOf(point) });
  return jobs;
}

/** How a run ended: recovered in time, not recovered (metastable), or not holding even before the fault. */
export type Phase = 'recovered' | 'metastable' | 'overloaded';

/** What the classification reads of a run: the lab's recovery figure and the real success before the fault. */
export interface PhaseInputs {
  /** Seconds from the fault's end to recovery; null: not within the run. */
  readonly recoveryS: number | null;
  /** Share of requests answered by C over the {@link PRE_FAULT_S} seconds before the fault. */
  readonly preFaultReal: number;
}

/**
 * A run's phase: `overloaded` when under 99 % of requests got a real answer before the fault (the load alone
 * breaks it: no trigger needed), else `recovered` when the lab's recovery figure (the first 5 s window with 99 %
 * real answers) starts within `limitS` of the fault's end, else `metastable`: the trigger is gone and the
 * system stays down.
 */
export function phaseOf(run: PhaseInputs, limitS: number = RECOVERY_LIMIT_S): Phase {
  if (run.preFaultReal < 0.99) return 'overloaded';
  return run.recoveryS !== null && run.recoveryS <= limitS ? 'recovered' : 'metastable';
}

/** The real success over the {@link PRE_FAULT_S} seconds before `faultStartMs`, from a run's per-second series. */
export function preFaultReal(perSecond: readonly number[], faultStartMs: number = SCENARIOS[SWEEP_SCENARIO].faultStartMs): number {
  const end = Math.floor(faultStartMs / 1_000);
  const window = perSecond.slice(Math.max(0, end - PRE_FAULT_S), end);
  return window.length === 0 ? 1 : Math.round((window.reduce((a, b) => a + b, 0) / window.length) * 1e4) / 1e4;
}

/** The figures kept per run of the sweep, in this order. */
export const SWEEP_METRICS = ['recoveryS', 'preFaultReal', 'realSuccess', 'realSuccessDuringFault', 'amplification'] as const;

/** One row at one point: the figures of each seed, in the order of {@link SWEEP_METRICS} (null: ∞). */
export interface SweepCell extends SweepPoint {
  readonly row: RowName;
  readonly runs: readonly (readonly (number | null)[])[];
}

/** What `npm run lab:sweep` writes to lab/sweep.json (with the sensitivities' runs beside it). */
export interface SweepFile {
  readonly command: string;
  readonly scenario: ScenarioName;
  readonly durationMs: number;
  readonly recoveryLimitS: number;
  readonly seeds: readonly number[];
  readonly rows: readonly RowName[];
  readonly grid: SweepGrid;
  readonly metrics: readonly string[];
  readonly cells: readonly SweepCell[];
}

/** The sweep's vector of one run's result. */
export function sweepVector(r: RunResult): (number | null)[] {
  const f = r.figures;
  return [f.recoveryS, preFaultReal(r.series?.realSuccess ?? []), f.realSuccess, f.realSuccessDuringFault, f.amplification];
}

/** The sweep file of `results` (in {@link sweepJobs}' order for the same arguments). */
export function sweepFileOf(grid: SweepGrid, rows: readonly RowName[], seeds: readonly number[], results: readonly RunResult[], command: string, durationMs = SWEEP_DURATION_MS): SweepFile {
  const cells: SweepCell[] = [];
  let k = 0;
  for (const row of rows)
    for (const point of gridPoints(grid)) {
      const runs = seeds.map(() => sweepVector(results[k++]!));
      cells.push({ row, ...point, runs });
    }
  return { command, scenario: SWEEP_SCENARIO, durationMs, recoveryLimitS: RECOVERY_LIMIT_S, seeds, rows, grid, metrics: SWEEP_METRICS, cells };
}

/** The phases of a cell's seeds. */
export function cellPhases(cell: SweepCell, limitS: number = RECOVERY_LIMIT_S): Phase[] {
  return cell.runs.map((v) => phaseOf({ recoveryS: v[0] ?? null, preFaultReal: v[1] ?? 0 }, limitS));
}

/**
 * A cell's mark in the phase diagram: `×` when most seeds were overloaded before the fault; otherwise, over the
 * other seeds, `·` none metastable, `●` all metastable, `◐` some (the boundary, where the seed decides).
 */
export function phaseMark(phases: readonly Phase[]): string {
  const overloaded = phases.filter((p) => p === 'overloaded').length;
  if (overloaded * 2 > phases.length) return '×';
  const rest = phases.filter((p) => p !== 'overloaded');
  const metastable = rest.filter((p) => p === 'metastable').length;
  return metastable === 0 ? '·' : metastable === rest.length ? '●' : '◐';
}
