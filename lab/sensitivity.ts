import { MODEL, type ScenarioName } from './model.js';
import type { RunOverrides } from './override.js';
import { STRATEGY_ROWS, type RowName } from './rows.js';
import type { Job, RunResult } from './run.js';

/** One setting of a sensitivity: its label and what it changes of the default (nothing: the default itself). */
export interface Variant {
  readonly label: string;
  readonly overrides: RunOverrides;
}

/** A targeted comparison: the same rows, scenarios and seeds played under each variant. */
export interface Sensitivity {
  readonly id: string;
  /** What the comparison tests, in words. */
  readonly question: string;
  readonly scenarios: readonly ScenarioName[];
  readonly rows: readonly RowName[];
  readonly seeds: readonly number[];
  readonly durationMs: number;
  readonly variants: readonly Variant[];
}

const SEEDS = [1, 2, 3, 4, 5];

/**
 * The sensitivities docs/lab.md states, each measured on full 180 s runs at seeds 1–5 (the default variant
 * of each is the published runs' setting, so its figures are those of lab/published.json for those seeds).
 */
export const SENSITIVITIES: readonly Sensitivity[] = Object.freeze([
  {
    id: 'patience',
    question: "Does A's patience (500 vs 700 ms) change the order of the rows in the capacity drop?",
    scenarios: ['capacityDrop'],
    rows: STRATEGY_ROWS,
    seeds: SEEDS,
    durationMs: MODEL.durationMs,
    variants: [
      { label: '500 ms', overrides: {} },
      { label: '700 ms', overrides: { model: { callerPatienceMs: 700 } } },
    ],
  },
  {
    id: 'queueLimit',
    question: "Does the metastable failure survive a C queue of 100 instead of 1,000?",
    scenarios: ['capacityDrop', 'errors'],
    rows: ['baseline', 'naiveRetry', 'standard'],
    seeds: SEEDS,
    durationMs: MODEL.durationMs,
    variants: [
      { label: 'queue 1,000', overrides: {} },
      { label: 'queue 100', overrides: { model: { queueLimit: 100 } } },
    ],
  },
  {
    id: 'flapPeriod',
    question: "Does `errorCountTrip` (open 5 s) do as well in the flapping fault when C's flap period is not a multiple of its open period?",
    scenarios: ['flapping'],
    rows: ['baseline', 'errorCountTrip'],
    seeds: SEEDS,
    durationMs: MODEL.durationMs,
    variants: [3_000, 4_000, 5_000, 6_000, 7_500, 10_000].map((ms) => ({
      label: `${ms / 1_000} s`,
      overrides: ms === 5_000 ? {} : { scenario: { flapPeriodMs: ms } },
    })),
  },
  {
    id: 'faultLength',
    question: "Does `errorCountTrip` (open 5 s) do as well when the fault's length is not a multiple of its open period (the published faults last 30 s, 6 open periods)?",
    scenarios: ['hardOutage', 'flapping'],
    rows: ['baseline', 'errorCountTrip', 'standard'],
    seeds: SEEDS,
    durationMs: MODEL.durationMs,
    variants: [27_500, 30_000, 32_500, 35_000, 37_500].map((ms) => ({
      label: `${ms / 1_000} s`,
      overrides: ms === MODEL.faultEndMs - MODEL.faultStartMs ? {} : { scenario: { faultMs: ms } },
    })),
  },
] satisfies Sensitivity[]);

/** The figures kept per run of a sensitivity, in this order (null: ∞). */
export const SENSITIVITY_METRICS = ['realSuccess', 'realSuccessDuringFault', 'recoveryS', 'amplification'] as const;

/** The jobs of the sensitivities: each one's variants, scenarios, rows and seeds, in that order. */
export function sensitivityJobs(list: readonly Sensitivity[] = SENSITIVITIES): Job[] {
  const jobs: Job[] = [];
  for (const s of list)
    for (const v of s.variants)
      for (const scenario of s.scenarios)
        for (const row of s.rows) for (const seed of s.seeds) jobs.push({ row, scenario, seed, durationMs: s.durationMs, series: false, overrides: v.overrides });
  return jobs;
}

/** A sensitivity's results: runs[variant][scenario][row] = each seed's figures, in the order of {@link SENSITIVITY_METRICS}. */
export interface SensitivityResult {
  readonly id: string;
  readonly seeds: readonly number[];
  readonly durationMs: number;
  readonly variants: readonly Variant[];
  readonly runs: Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, readonly (readonly (number | null)[])[]>>>>>>;
}

/** The results of {@link sensitivityJobs}' runs (same list, same order), grouped per sensitivity. */
export function sensitivityResults(results: readonly RunResult[], list: readonly Sensitivity[] = SENSITIVITIES): SensitivityResult[] {
  let k = 0;
  return list.map((s) => {
    const runs: Record<string, Record<string, Record<string, (number | null)[][]>>> = {};
    for (const v of s.variants) {
      const byScenario: Record<string, Record<string, (number | null)[][]>> = (runs[v.label] = {});
      for (const scenario of s.scenarios) {
        const byRow: Record<string, (number | null)[][]> = (byScenario[scenario] = {});
        for (const row of s.rows)
          byRow[row] = s.seeds.map(() => {
            const f = results[k++]!.figures;
            return [f.realSuccess, f.realSuccessDuringFault, f.recoveryS, f.amplification];
          });
      }
    }
    return { id: s.id, seeds: s.seeds, durationMs: s.durationMs, variants: s.variants, runs };
  });
}
