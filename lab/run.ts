import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { figuresOf, type Figures, type Series } from './figures.js';
import { MODEL, SCENARIO_NAMES, SCENARIOS, type ScenarioName } from './model.js';
import { ROW_NAMES, ROWS, type RowName } from './rows.js';
import type { ClaimResult } from './predicates.js';
import type { RunOverrides } from './override.js';
import { seedFileOf, type SeedFile } from './seeds.js';
import { simulate } from './simulate.js';
import { slaSentences } from './sla-text.js';
import { estimateOf } from './summary.js';
import { ruleText } from './table.js';

/** What to run: every row in every scenario at every seed. */
export interface LabOptions {
  readonly rows: readonly RowName[];
  readonly scenarios: readonly ScenarioName[];
  /** The seeds; the charts show the first one's runs (the others keep their figures only). */
  readonly seeds: readonly number[];
  readonly durationMs: number;
  /** A scenario's own run length, where it differs from `durationMs` (`npm start`'s focused scenarios). */
  readonly durationOf?: (scenario: ScenarioName) => number;
  /** Which (row, scenario) pairs to run: all of them by default. */
  readonly only?: (row: RowName, scenario: ScenarioName) => boolean;
}

/** The default seed of the lab (the one docs/strategies.md shows). */
export const DEFAULT_SEED = 1;

/** One seed's full run: every row, every scenario, the default seed and duration. */
export const DEFAULT_OPTIONS: LabOptions = Object.freeze({
  rows: ROW_NAMES,
  scenarios: SCENARIO_NAMES,
  seeds: [DEFAULT_SEED],
  durationMs: MODEL.durationMs,
});

/** One row in one scenario at one seed. */
export interface RunResult {
  readonly row: RowName;
  readonly scenario: ScenarioName;
  readonly seed: number;
  readonly figures: Figures;
  /** The charts' series: kept for the first seed of a run only. */
  readonly series?: Series;
}

/** What results.json holds: simulated figures only, so the same seed gives the same bytes. */
export interface LabResults {
  readonly seeds: readonly number[];
  readonly durationMs: number;
  readonly model: typeof MODEL;
  readonly scenarios: readonly { name: ScenarioName; title: string; faultStartMs: number; faultEndMs: number }[];
  readonly rows: readonly { name: RowName; breaker: boolean }[];
  readonly results: readonly RunResult[];
}

/** A job of the lab: one row in one scenario. */
export interface Job {
  readonly row: RowName;
  readonly scenario: ScenarioName;
  readonly seed: number;
  readonly durationMs: number;
  /** Whether to keep the run's series (for the charts). */
  readonly series: boolean;
  /** What the run changes of the default model and of its scenario's fault (none by default). */
  readonly overrides?: RunOverrides;
}

/** Runs one job in this thread. */
export async function runJob(job: Job): Promise<RunResult> {
  const record = await simulate(job.row, job.scenario, job.seed, job.durationMs, undefined, job.overrides);
  const { figures, series } = figuresOf(record);
  return { row: job.row, scenario: job.scenario, seed: job.seed, figures, ...(job.series ? { series } : {}) };
}

/** How to run the lab: `workers` threads (0: in this thread, one job after another), `onDone` after each job. */
export interface RunnerOptions {
  readonly workers?: number;
  /** URL of the worker module (the built `worker.js`); required when `workers > 0`. */
  readonly workerUrl?: URL;
  readonly onDone?: (result: RunResult, done: number, total: number) => void;
}

/**
 * An `onDone` that writes `label: done/total runs (...), s` to stderr at most every 10 s and at the end, the
 * seconds counted from `startedMs` (`performance.now()`).
 */
export function progressLines(label: string, startedMs: number): NonNullable<RunnerOptions['onDone']> {
  let last = 0;
  return (r, done, total) => {
    const now = performance.now();
    if (now - last > 10_000 || done === total) {
      last = now;
      process.stderr.write(`${label}: ${done}/${total} runs (seed ${r.seed}, ${r.scenario} / ${r.row}), ${((now - startedMs) / 1_000).toFixed(0)} s\n`);
    }
  };
}

/** The default number of worker threads: one per core, at most 4. */
export function defaultWorkers(): number {
  return Math.min(4, availableParallelism());
}

/** Runs the lab; results come in a fixed order (seed, then scenario, then row) whatever the threads. */
export async function runLab(options: LabOptions, runner: RunnerOptions = {}): Promise<LabResults> {
  const jobs: Job[] = [];
  for (const [k, seed] of options.seeds.entries())
    for (const scenario of options.scenarios)
      for (const row of options.rows) if (options.only?.(row, scenario) ?? true) jobs.push({ row, scenario, seed, durationMs: options.durationOf?.(scenario) ?? options.durationMs, series: k === 0 });
  return labResults(options, await runJobs(jobs, runner));
}

/** The lab's results of `options`'s runs: `results` (in the order {@link runLab} puts them) with what they played. */
export function labResults(options: LabOptions, results: readonly RunResult[]): LabResults {
  return {
    seeds: options.seeds,
    durationMs: options.durationMs,
    model: MODEL,
    scenarios: options.scenarios.map((name) => {
      const s = SCENARIOS[name];
      return { name, title: s.title, faultStartMs: s.faultStartMs, faultEndMs: s.faultEndMs };
    }),
    rows: options.rows.map((name) => ({ name, breaker: ROWS[name].breaker })),
    results,
  };
}

/**
 * The first seed's runs of `options`, as they come in (`onDone`), in {@link runLab}'s order once all are in: then
 * `onAll` gets them (the charts need those runs only, and can be drawn while the later seeds run).
 */
export function firstSeedRuns(options: LabOptions, onAll: (runs: RunResult[]) => void): (result: RunResult) => void {
  const seed = options.seeds[0];
  const rank = (r: RunResult): number => options.scenarios.indexOf(r.scenario) * options.rows.length + options.rows.indexOf(r.row);
  let expected = 0;
  for (const scenario of options.scenarios) for (const row of options.rows) if (options.only?.(row, scenario) ?? true) expected++;
  const runs: RunResult[] = [];
  return (r) => {
    if (r.seed !== seed) return;
    runs.push(r);
    if (runs.length === expected) onAll(runs.sort((a, b) => rank(a) - rank(b)));
  };
}

/**
 * Renders every chart of the report (lab/report.ts `chartsOf`) in a worker thread of its own, the worker module
 * at `workerUrl`: the same SVG as in this thread, while this one goes on.
 */
export async function chartsInWorker(workerUrl: URL, results: LabResults): Promise<Map<string, string>> {
  const worker = new Worker(workerUrl);
  try {
    return await new Promise<Map<string, string>>((resolve, reject) => {
      worker.once('message', (m: { charts?: [string, string][]; error?: string }) => (m.charts !== undefined ? resolve(new Map(m.charts)) : reject(new Error(m.error))));
      worker.once('error', reject);
      worker.postMessage({ charts: results } satisfies ChartsJob);
    });
  } finally {
    await worker.terminate();
  }
}

/** A worker's message asking for every chart of `charts` (see {@link chartsInWorker}). */
export interface ChartsJob {
  readonly charts: LabResults;
}

/** Runs `jobs` on `runner`'s threads; the results come in the jobs' order whatever the threads. */
export async function runJobs(jobs: readonly Job[], runner: RunnerOptions = {}): Promise<RunResult[]> {
  const results: RunResult[] = new Array(jobs.length);
  let done = 0;
  const finish = (i: number, r: RunResult): void => {
    results[i] = r;
    runner.onDone?.(r, ++done, jobs.length);
  };
  const threads = Math.min(runner.workers ?? 0, jobs.length);
  if (threads <= 0 || runner.workerUrl === undefined) {
    for (const [i, job] of jobs.entries()) finish(i, await runJob(job));
  } else {
    let next = 0;
    const url = runner.workerUrl;
    await Promise.all(
      Array.from({ length: threads }, async () => {
        const worker = new Worker(url);
        try {
          while (next < jobs.length) {
            const i = next++;
            finish(i, await ask(worker, jobs[i]!));
          }
        } finally {
          await worker.terminate();
        }
      }),
    );
  }
  return results;
}

function ask(worker: Worker, job: Job): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const onMessage = (m: { result?: RunResult; error?: string }): void => {
      worker.off('error', onError);
      if (m.result !== undefined) resolve(m.result);
      else reject(new Error(m.error));
    };
    const onError = (e: unknown): void => {
      worker.off('message', onMessage);
      reject(e);
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
    worker.postMessage(job);
  });
}

/**
 * results.json's text: the run's claims with their verdicts and intervals, one sentence per SLA formula checked
 * against the figures (lab/sla-text.ts), each figure's median and interval per row and scenario, then every run's figures (and the first seed's series). ∞ is written as null. The same
 * seeds give the same bytes.
 */
export function toJson(results: LabResults, claims: readonly ClaimResult[] = [], perSeed: SeedFile = seedFileOf(results, 'npm start')): string {
  const estimates: Record<string, unknown>[] = [];
  for (const scenario of perSeed.scenarios)
    for (const row of perSeed.rows) {
      const cell: Record<string, unknown> = { scenario, row };
      for (const metric of perSeed.metrics) {
        const e = estimateOf(perSeed, scenario, row, metric);
        if (e !== undefined) cell[metric] = e;
      }
      if (Object.keys(cell).length > 2) estimates.push(cell);
    }
  const { results: runs, ...head } = results;
  const out = {
    ...head,
    claims: claims.map((r) => ({
      id: r.claim.id,
      strategy: r.claim.strategy,
      text: r.claim.text,
      rule: ruleText(r),
      verdict: r.verdict,
      scenarios: r.scenarios.map(({ estimate, ...s }) => ({ ...s, ...(estimate === undefined ? {} : estimate) })),
    })),
    slaChecks: slaSentences(perSeed),
    estimates,
    results: runs,
  };
  return `${JSON.stringify(out, null, 1)}\n`;
}
