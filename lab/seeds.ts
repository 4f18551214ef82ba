import type { Figures } from './figures.js';
import { MODEL, SCENARIOS, type ExtraMetric, type ScenarioName } from './model.js';
import { ROWS, type RowName } from './rows.js';
import type { LabResults, RunResult } from './run.js';

/**
 * The figures some scenarios and rows record beyond the common ones, in this order (lab/model.ts `measures`,
 * lab/rows.ts `measures`): the second class's real answers during the fault, the share of keys whose side
 * effect C applied twice, a writer's largest backlog, its drain time and rate after the fault, and where a fallback
 * chain's answers came from (the replica, the default) with the median age of those carrying data.
 */
export const EXTRA_METRICS = [
  'healthyRealInFault',
  'duplicates',
  'backlogPeak',
  'drainS',
  'drainPerS',
  'replicaShare',
  'defaultShare',
  'staleAgeP50S',
  'peakLoadPerS',
  'clientAmplification',
] as const satisfies readonly ExtraMetric[];

/**
 * The figures of the availability check (lab/sla-figures.ts), after the others so the earlier figures keep their
 * places: B's, C's and the end-to-end availability (means over 1 s buckets), and with a second class at B, its
 * availability and both classes' at once; for the trip rules' check rows, when the breaker first opened and when
 * the rule says it should, and the window's error rate when it did (lab/trip-rules.ts).
 */
export const SLA_METRICS = ['hopB', 'hopC', 'realBuckets', 'otherReal', 'bothReal', 'tripS', 'tripFormulaS', 'tripErrorRate'] as const;

/**
 * The figures kept per seed, in this order: what the docs' tables, the claims and the `rtoMax` check read.
 * `rtoMaxS` comes for breaker rows only (their vectors are one longer), then the {@link EXTRA_METRICS} a run
 * records, then the {@link SLA_METRICS}; a figure a run does not record is written `"-"` when a later one follows,
 * and left out at the end.
 */
export const METRICS = [
  'answered',
  'realSuccess',
  'realSuccessDuringFault',
  'realSuccessAfterFault',
  'p50Ms',
  'p99Ms',
  'p99RealMs',
  'amplification',
  'peakInFlight',
  'recoveryS',
  'breakerOpenInFault',
  'rtoMaxS',
  ...EXTRA_METRICS,
  ...SLA_METRICS,
] as const;
/** One of {@link METRICS}. */
export type Metric = (typeof METRICS)[number];

/** A figure of one run: a number, null for ∞ (a recovery not within the run, an unbounded `rtoMax`), `"-"` for none. */
export type Value = number | null | '-';

/**
 * The per-seed figures of a set of runs (`lab/published.json` for the published ones): for each seed, scenario
 * and row, the vector of {@link METRICS}. Small on purpose: the docs are generated from it, and CI reruns one
 * of its seeds and compares.
 */
export interface SeedFile {
  /** The command that wrote it. */
  readonly command: string;
  readonly durationMs: number;
  readonly seeds: readonly number[];
  readonly scenarios: readonly ScenarioName[];
  readonly rows: readonly RowName[];
  readonly metrics: readonly Metric[];
  /** runs[seed][scenario][row] = the figures, in the order of `metrics`. */
  readonly runs: Readonly<Record<string, Readonly<Partial<Record<ScenarioName, Readonly<Partial<Record<RowName, readonly Value[]>>>>>>>>;
}

/** The vector of {@link METRICS} of one run's figures. */
export function vectorOf(row: RowName, f: Figures): Value[] {
  const v: Value[] = [
    f.answered,
    f.realSuccess,
    f.realSuccessDuringFault,
    f.realSuccessAfterFault,
    f.p50Ms,
    f.p99Ms,
    f.p99RealMs,
    f.amplification,
    f.peakInFlight,
    f.recoveryS,
    f.breakerOpenInFault,
  ];
  v.push(ROWS[row].breaker && f.rto !== undefined ? f.rto.rtoMaxS : '-');
  for (const m of EXTRA_METRICS) v.push(f.extra?.[m] === undefined ? '-' : f.extra[m]!);
  for (const m of SLA_METRICS) {
    const x = f.sla?.[m];
    v.push(x === undefined ? '-' : x);
  }
  while (v[v.length - 1] === '-') v.pop();
  return v;
}

/** The seed file of a lab run (every seed of it). */
export function seedFileOf(results: LabResults, command: string): SeedFile {
  const runs: Record<string, Partial<Record<ScenarioName, Partial<Record<RowName, Value[]>>>>> = {};
  for (const r of results.results) {
    const bySeed = (runs[String(r.seed)] ??= {});
    const byScenario = (bySeed[r.scenario] ??= {});
    byScenario[r.row] = vectorOf(r.row, r.figures);
  }
  return {
    command,
    durationMs: results.durationMs,
    seeds: results.seeds,
    scenarios: results.scenarios.map((s) => s.name),
    rows: results.rows.map((r) => r.name),
    metrics: METRICS,
    runs,
  };
}

/** The values of a metric for one cell across the file's seeds (null → ∞); empty when the cell or the metric is absent. */
export function valuesOf(file: SeedFile, scenario: ScenarioName, row: RowName, metric: Metric): number[] {
  const i = file.metrics.indexOf(metric);
  const out: number[] = [];
  for (const seed of file.seeds) {
    const v = file.runs[String(seed)]?.[scenario]?.[row];
    if (v === undefined || i < 0 || i >= v.length) continue;
    const x = v[i];
    if (x === '-') continue;
    out.push(x === null || x === undefined ? Infinity : x);
  }
  return out;
}

/** The file's text: one run's vector per line, so it stays small and diffs well; the same runs give the same bytes. */
export function seedFileJson(file: SeedFile): string {
  const text = JSON.stringify(file, null, 1);
  // a vector of numbers (and nulls) on one line
  return `${text.replace(/\[\n\s*((?:-?[\d.e+-]+|null|"-")(?:,\n\s*(?:-?[\d.e+-]+|null|"-"))*)\n\s*\]/g, (_m, body: string) => `[${body.replace(/,\n\s*/g, ',')}]`)}\n`;
}

/** The window the figures cover for a scenario, as text (for the tables). */
export function windowOf(scenario: ScenarioName): string {
  const s = SCENARIOS[scenario];
  return `fault ${s.faultStartMs / 1_000}–${s.faultEndMs / 1_000} s, figures to ${(s.faultEndMs + MODEL.afterFaultMs) / 1_000} s`;
}

/** Every run of one seed, as text: what CI compares after rerunning that seed. */
export function seedJson(file: SeedFile, seed: number): string {
  return JSON.stringify(file.runs[String(seed)] ?? null);
}

/** The results of a run set, filtered to one seed (for comparing a rerun). */
export function resultsOfSeed(results: readonly RunResult[], seed: number): RunResult[] {
  return results.filter((r) => r.seed === seed);
}
