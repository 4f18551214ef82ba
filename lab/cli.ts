import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { CLAIMS } from './claims.js';
import { leftOut, publishPlan, START_DURATION_MS, START_SEEDS, startPlan } from './plan.js';
import { judgeAll } from './predicates.js';
import { MODEL, SCENARIO_NAMES, type ScenarioName } from './model.js';
import { htmlReport } from './report.js';
import { ROW_NAMES, type RowName } from './rows.js';
import { chartsInWorker, DEFAULT_SEED, defaultWorkers, firstSeedRuns, labResults, runLab, toJson, type LabOptions } from './run.js';
import { seedFileOf } from './seeds.js';
import { terminalClaims, terminalTables } from './table.js';

function listOf<T extends string>(all: readonly T[], what: string) {
  return (value: string): T[] => {
    const names = value.split(',').map((s) => s.trim()).filter(Boolean);
    for (const n of names) if (!all.includes(n as T)) throw new InvalidArgumentError(`unknown ${what} '${n}'; one of: ${all.join(', ')}`);
    return names as T[];
  };
}

function int(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer >= ${min}`);
    return n;
  };
}

const program = new Command('breakwater-lab')
  .description(
    'Plays the avalanche (seed 000) and the faults of seed 002 in virtual time, once without protection and once per strategy, ' +
      "at several seeds, and judges each strategy's claims. By default a subset: each row in the scenarios its claims name, " +
      `${START_SEEDS} seeds, ${START_DURATION_MS / 1_000} s runs; --all runs what the published figures run (every row in the five faults, ` +
      'and in each focused scenario the rows its claims need and the baseline).',
  )
  .addOption(new Option('--scenario <names>', `comma-separated scenarios: ${SCENARIO_NAMES.join(', ')}`).argParser(listOf(SCENARIO_NAMES, 'scenario')))
  .addOption(new Option('--strategy <names>', `comma-separated rows: ${ROW_NAMES.join(', ')}`).argParser(listOf(ROW_NAMES, 'strategy')))
  .option('--all', "the published runs: every row in the five faults, and the focused scenarios' rows (instead of the scenarios each claim needs)", false)
  .option('--seed <n>', 'the first seed', int(0), DEFAULT_SEED)
  .option('--seeds <n>', 'how many seeds, from --seed on', int(1), START_SEEDS)
  .option('--duration <s>', 'simulated seconds per run', int(1), START_DURATION_MS / 1_000)
  .option('--out <dir>', 'where to write index.html and results.json', 'lab-report')
  .option('--workers <n>', 'worker threads (0: run in this thread)', int(0), defaultWorkers())
  .showHelpAfterError();

program.parse();
const o = program.opts<{
  scenario?: ScenarioName[];
  strategy?: RowName[];
  all: boolean;
  seed: number;
  seeds: number;
  duration: number;
  out: string;
  workers: number;
}>();

const started = performance.now();
const cpuStart = process.cpuUsage();
const seeds = Array.from({ length: o.seeds }, (_, i) => o.seed + i);
const chosen = o.scenario !== undefined || o.strategy !== undefined;
const plan = chosen ? undefined : o.all ? publishPlan() : startPlan();
const rows = o.strategy ?? ROW_NAMES;
const scenarios = o.scenario ?? SCENARIO_NAMES;
const only = plan === undefined ? undefined : (row: RowName, scenario: ScenarioName): boolean => plan.get(row)!.has(scenario);
let total = 0;
for (const s of scenarios) for (const r of rows) if (only?.(r, s) ?? true) total++;
total *= seeds.length;

const bar = new SingleBar({ format: 'lab [{bar}] {value}/{total} runs | {last}', noTTYOutput: true, notTTYSchedule: 2_000, hideCursor: true });
bar.start(total, 0, { last: '' });
const options: LabOptions = { rows, scenarios, seeds, durationMs: o.duration * 1_000, ...(only === undefined ? {} : { only }) };
const workerUrl = new URL('./worker.js', import.meta.url);
// with threads, the charts (the first seed's runs only) are drawn in a thread of their own while the later seeds run
let charts: Promise<Map<string, string>> | undefined;
const firstSeed = o.workers > 0 ? firstSeedRuns(options, (runs) => (charts = chartsInWorker(workerUrl, labResults(options, runs)))) : undefined;
const runsStarted = performance.now();
const results = await runLab(options, {
  workers: o.workers,
  workerUrl,
  onDone: (r, done) => {
    bar.update(done, { last: `seed ${r.seed} ${r.scenario} / ${r.row}` });
    firstSeed?.(r);
  },
});
bar.stop();
const runsEnded = performance.now();
const perSeed = seedFileOf(results, 'npm start');
const claims = judgeAll(perSeed, CLAIMS);
process.stdout.write(terminalTables(perSeed));
process.stdout.write(terminalClaims(claims));
const omitted: string[] = [];
const missing = plan === undefined ? [] : leftOut(plan);
if (missing.length > 0) omitted.push(`scenarios no claim of the row needs (--all runs them): ${missing.join('; ')}`);
if (seeds.length < 20) omitted.push(`seeds ${seeds[seeds.length - 1]! + 1}–${seeds[0]! + 19} (the published figures take 20 seeds: npm run lab:publish)`);
if (o.duration * 1_000 < MODEL.durationMs) omitted.push(`${MODEL.durationMs / 1_000 - o.duration} s of each run (runs of ${o.duration} s, published ones ${MODEL.durationMs / 1_000} s)`);
if (omitted.length > 0) process.stdout.write(`\nleft out of this run:\n${omitted.map((x) => `- ${x}`).join('\n')}\n`);
mkdirSync(o.out, { recursive: true });
writeFileSync(join(o.out, 'results.json'), toJson(results, claims, perSeed));
writeFileSync(join(o.out, 'index.html'), await htmlReport(results, perSeed, claims, await charts));
const ended = performance.now();
const wall = (ended - started) / 1_000;
const cpu = process.cpuUsage(cpuStart);
const cpuS = (cpu.user + cpu.system) / 1e6;
process.stdout.write(
  `\nwrote ${join(o.out, 'index.html')} and ${join(o.out, 'results.json')}: ${total} runs in ${wall.toFixed(1)} s wall (the runs ${((runsEnded - runsStarted) / 1_000).toFixed(1)} s, ` +
    `then the report ${((ended - runsEnded) / 1_000).toFixed(1)} s), ${cpuS.toFixed(1)} s CPU, ${o.workers} workers\n`,
);
