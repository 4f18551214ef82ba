import { readFileSync, writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { ROW_NAMES, type RowName } from './rows.js';
import { defaultWorkers, progressLines, runJobs } from './run.js';
import { SENSITIVITIES, sensitivityJobs, sensitivityResults } from './sensitivity.js';
import { SWEEP_COMMAND, SWEEP_FILE, sweepJson, type SweepAndSensitivities } from './phase.js';
import { SWEEP_GRID, SWEEP_ROWS, SWEEP_SEEDS, sweepFileOf, sweepJobs, type SweepGrid } from './sweep.js';

function int(min: number) {
  return (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected an integer >= ${min}`);
    return n;
  };
}
const numbers = (value: string): number[] => {
  const out = value.split(',').map(Number);
  if (out.some((n) => !Number.isFinite(n))) throw new InvalidArgumentError('expected numbers separated by commas');
  return out;
};
const ids = (value: string): string[] => {
  const out = value.split(',');
  const known = SENSITIVITIES.map((x) => x.id);
  const bad = out.filter((id) => !known.includes(id));
  if (bad.length > 0) throw new InvalidArgumentError(`unknown sensitivities: ${bad.join(', ')} (sensitivities: ${known.join(', ')})`);
  return out;
};
const rows = (value: string): RowName[] => {
  const out = value.split(',');
  const bad = out.filter((r) => !(ROW_NAMES as string[]).includes(r));
  if (bad.length > 0) throw new InvalidArgumentError(`unknown rows: ${bad.join(', ')} (rows: ${ROW_NAMES.join(', ')})`);
  return out as RowName[];
};

// `node lab-dist/sweep.js`: the sweep's grid and the sensitivities' runs → lab/sweep.json (then `node lab-dist/phase.js` writes the docs)
const program = new Command('breakwater-lab-sweep')
  .description(`Plays the errors scenario over offered load × error rate × patience, and the sensitivities' runs, and writes their figures to ${SWEEP_FILE}.`)
  .option('--seeds <n>', 'seeds per cell, from 1', int(1), SWEEP_SEEDS)
  .option('--loads <list>', "A's offered loads, per second", numbers, [...SWEEP_GRID.offeredPerSecond])
  .option('--errors <list>', "C's error rates during the fault", numbers, [...SWEEP_GRID.errorRate])
  .option('--patience <list>', "A's patience, ms", numbers, [...SWEEP_GRID.callerPatienceMs])
  .option('--rows <list>', 'the rows swept', rows, [...SWEEP_ROWS])
  .option('--no-sensitivities', "leave the sensitivities' runs out")
  .option('--only <ids>', `play only these sensitivities (${SENSITIVITIES.map((x) => x.id).join(', ')}) and put their figures in place of theirs in --out, keeping the rest of the file`, ids)
  .option('--out <file>', 'where to write the figures', SWEEP_FILE)
  .option('--workers <n>', 'worker threads', int(1), defaultWorkers())
  .showHelpAfterError();
program.parse();
const o = program.opts<{ seeds: number; loads: number[]; errors: number[]; patience: number[]; rows: RowName[]; sensitivities: boolean; only?: string[]; out: string; workers: number }>();

const started = performance.now();
const cpuStart = process.cpuUsage();
const grid: SweepGrid = { offeredPerSecond: o.loads, errorRate: o.errors, callerPatienceMs: o.patience };
const seeds = Array.from({ length: o.seeds }, (_, i) => i + 1);
const only = o.only === undefined ? undefined : SENSITIVITIES.filter((x) => o.only!.includes(x.id));
const sweep = only === undefined ? sweepJobs(grid, o.rows, seeds) : [];
const targeted = only !== undefined ? sensitivityJobs(only) : o.sensitivities ? sensitivityJobs() : [];
const total = sweep.length + targeted.length;
const results = await runJobs([...sweep, ...targeted], {
  workers: o.workers,
  workerUrl: new URL('./worker.js', import.meta.url),
  onDone: progressLines('sweep', started),
});
let file: SweepAndSensitivities;
if (only === undefined)
  file = {
    ...sweepFileOf(grid, o.rows, seeds, results.slice(0, sweep.length), SWEEP_COMMAND),
    sensitivities: o.sensitivities ? sensitivityResults(results.slice(sweep.length), SENSITIVITIES) : [],
  };
else {
  // the file as it was, each sensitivity played now in its place (in SENSITIVITIES' order)
  const old = JSON.parse(readFileSync(o.out, 'utf8')) as SweepAndSensitivities;
  const played = new Map(sensitivityResults(results, only).map((r) => [r.id, r]));
  const kept = new Map(old.sensitivities.map((r) => [r.id, r]));
  const sensitivities = SENSITIVITIES.map((x) => played.get(x.id) ?? kept.get(x.id)).filter((r) => r !== undefined);
  file = { ...old, sensitivities };
}
writeFileSync(o.out, sweepJson(file));
const cpu = process.cpuUsage(cpuStart);
process.stdout.write(
  `sweep: wrote ${o.out}: ${total} runs (${sweep.length} of the grid) in ${((performance.now() - started) / 1_000).toFixed(0)} s wall, ` +
    `${((cpu.user + cpu.system) / 1e6).toFixed(0)} s CPU, ${o.workers} workers\n`,
);
