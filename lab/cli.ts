import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SingleBar } from 'cli-progress';
import { Command, InvalidArgumentError, Option } from 'commander';
import { MODEL, SCENARIO_NAMES, type ScenarioName } from './model.js';
import { htmlReport } from './report.js';
import { ROW_NAMES, type RowName } from './rows.js';
import { DEFAULT_SEED, defaultWorkers, runLab, toJson } from './run.js';
import { terminalTables } from './table.js';

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
  .description('Plays the avalanche (seed 000) and the faults of seed 002 in virtual time, once without protection and once per strategy, and reports what each one bought.')
  .addOption(
    new Option('--scenario <names>', `comma-separated scenarios: ${SCENARIO_NAMES.join(', ')}`).argParser(listOf(SCENARIO_NAMES, 'scenario')).default([...SCENARIO_NAMES], 'all'),
  )
  .addOption(new Option('--strategy <names>', `comma-separated rows: ${ROW_NAMES.join(', ')}`).argParser(listOf(ROW_NAMES, 'strategy')).default([...ROW_NAMES], 'all'))
  .option('--seed <n>', 'seed of every random source', int(0), DEFAULT_SEED)
  .option('--duration <s>', 'simulated seconds per run', int(1), MODEL.durationMs / 1_000)
  .option('--out <dir>', 'where to write index.html and results.json', 'lab-report')
  .option('--workers <n>', 'worker threads (0: run in this thread)', int(0), defaultWorkers())
  .showHelpAfterError();

program.parse();
const o = program.opts<{ scenario: ScenarioName[]; strategy: RowName[]; seed: number; duration: number; out: string; workers: number }>();

const started = performance.now();
const cpuStart = process.cpuUsage();
const bar = new SingleBar({
  format: 'lab [{bar}] {value}/{total} runs | {last}',
  noTTYOutput: true,
  notTTYSchedule: 2_000,
  hideCursor: true,
});
const total = o.scenario.length * o.strategy.length;
bar.start(total, 0, { last: '' });
const results = await runLab(
  { rows: o.strategy, scenarios: o.scenario, seed: o.seed, durationMs: o.duration * 1_000 },
  {
    workers: o.workers,
    workerUrl: new URL('./worker.js', import.meta.url),
    onDone: (r, done) => bar.update(done, { last: `${r.scenario} / ${r.row}` }),
  },
);
bar.stop();
process.stdout.write(terminalTables(results));
mkdirSync(o.out, { recursive: true });
writeFileSync(join(o.out, 'results.json'), toJson(results));
writeFileSync(join(o.out, 'index.html'), await htmlReport(results));
const wall = (performance.now() - started) / 1_000;
const cpu = process.cpuUsage(cpuStart);
const cpuS = (cpu.user + cpu.system) / 1e6;
process.stdout.write(
  `\nwrote ${join(o.out, 'index.html')} and ${join(o.out, 'results.json')}: ${total} runs in ${wall.toFixed(1)} s wall, ${cpuS.toFixed(1)} s CPU, ${o.workers} workers\n`,
);
