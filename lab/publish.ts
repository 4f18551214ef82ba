import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { MODEL, SCENARIO_NAMES } from './model.js';
import { publishPlan, runsOf } from './plan.js';
import { ROW_NAMES } from './rows.js';
import { PUBLISH_COMMAND, PUBLISHED_FILE, PUBLISHED_SEEDS } from './published.js';
import { defaultWorkers, progressLines, runLab } from './run.js';
import { seedFileJson, seedFileOf } from './seeds.js';


function int(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer >= ${min}`);
    return n;
  };
}

// `node lab-dist/publish.js`: every row in the five faults, and in each focused scenario the rows its claims
// need and the baseline (lab/plan.ts, publishPlan), at seeds 1..20, 180 s runs, figures only
const program = new Command('breakwater-lab-publish')
  .description(
    `Runs every row in the five faults, and in each focused scenario the rows its claims need and the baseline, at ${PUBLISHED_SEEDS} seeds, ` +
      `and writes their figures, per seed, to ${PUBLISHED_FILE}.`,
  )
  .option('--seeds <n>', 'how many seeds, from 1', int(1), PUBLISHED_SEEDS)
  .option('--out <file>', 'where to write the per-seed figures', PUBLISHED_FILE)
  .option('--workers <n>', 'worker threads', int(1), defaultWorkers())
  .showHelpAfterError();
program.parse();
const o = program.opts<{ seeds: number; out: string; workers: number }>();

const started = performance.now();
const cpuStart = process.cpuUsage();
const seeds = Array.from({ length: o.seeds }, (_, i) => i + 1);
const plan = publishPlan();
const total = seeds.length * runsOf(plan);
const results = await runLab(
  { rows: ROW_NAMES, scenarios: SCENARIO_NAMES, seeds, durationMs: MODEL.durationMs, only: (row, scenario) => plan.get(row)!.has(scenario) },
  {
    workers: o.workers,
    workerUrl: new URL('./worker.js', import.meta.url),
    onDone: progressLines('publish', started),
  },
);
writeFileSync(o.out, seedFileJson(seedFileOf(results, PUBLISH_COMMAND)));
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(
  `publish: wrote ${o.out}: ${total} runs (${seeds.length} seeds) in ${((performance.now() - started) / 1_000).toFixed(0)} s wall, ` +
    `${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU, ${o.workers} workers\n`,
);
