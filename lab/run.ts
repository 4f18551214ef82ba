import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { figuresOf, type Figures, type Series } from './figures.js';
import { MODEL, SCENARIO_NAMES, SCENARIOS, type ScenarioName } from './model.js';
import { ROW_NAMES, ROWS, type RowName } from './rows.js';
import { simulate } from './simulate.js';

/** What to run. */
export interface LabOptions {
  readonly rows: readonly RowName[];
  readonly scenarios: readonly ScenarioName[];
  readonly seed: number;
  readonly durationMs: number;
}

/** The default seed of the lab (the one docs/strategies.md shows). */
export const DEFAULT_SEED = 1;

/** The default run: every row, every scenario, the default seed and duration. */
export const DEFAULT_OPTIONS: LabOptions = Object.freeze({
  rows: ROW_NAMES,
  scenarios: SCENARIO_NAMES,
  seed: DEFAULT_SEED,
  durationMs: MODEL.durationMs,
});

/** One row in one scenario. */
export interface RunResult {
  readonly row: RowName;
  readonly scenario: ScenarioName;
  readonly figures: Figures;
  readonly series: Series;
}

/** What results.json holds: simulated figures only, so the same seed gives the same bytes. */
export interface LabResults {
  readonly seed: number;
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
}

/** Runs one job in this thread. */
export async function runJob(job: Job): Promise<RunResult> {
  const record = await simulate(job.row, job.scenario, job.seed, job.durationMs);
  return { row: job.row, scenario: job.scenario, ...figuresOf(record) };
}

/** How to run the lab: `workers` threads (0: in this thread, one job after another), `onDone` after each job. */
export interface RunnerOptions {
  readonly workers?: number;
  /** URL of the worker module (the built `worker.js`); required when `workers > 0`. */
  readonly workerUrl?: URL;
  readonly onDone?: (result: RunResult, done: number, total: number) => void;
}

/** The default number of worker threads: one per core, at most 4. */
export function defaultWorkers(): number {
  return Math.min(4, availableParallelism());
}

/** Runs the lab; results come in a fixed order (scenario, then row) whatever the threads. */
export async function runLab(options: LabOptions, runner: RunnerOptions = {}): Promise<LabResults> {
  const jobs: Job[] = [];
  for (const scenario of options.scenarios) for (const row of options.rows) jobs.push({ row, scenario, seed: options.seed, durationMs: options.durationMs });
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
  return {
    seed: options.seed,
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

/** results.json's text: the same seed gives the same bytes. */
export function toJson(results: LabResults): string {
  return `${JSON.stringify(results, null, 1)}\n`;
}
