// npm run bench: every figure of quality.md "Performance" (but lab speed)
// and the package's weight (import CPU, bundle sizes, install size)
// against cockatiel and opossum, in one process run (memory and concurrency
// figures in a fresh child process per subject). Prints a table and writes
// bench/results.json. BENCH_QUICK=1 runs it with tiny counts (smoke test);
// BENCH_ROUNDS=n sets the rounds per figure; BENCH_OUT=path moves the results.
import { cpus } from 'node:os';
import { writeFileSync } from 'node:fs';
import * as figures from './figures.mjs';
import { outFile, quick, rounds } from './lib/config.mjs';
import { printTable } from './lib/table.mjs';

const t0 = Date.now();
const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', platform: `${process.platform} ${process.arch}` };
console.log(`breakwater bench: node ${machine.node}, ${machine.cpus} cores (${machine.cpu}), ${rounds} round(s) per figure${quick ? ', QUICK (numbers meaningless)' : ''}\n`);

const rows = [];
const raw = {};
for (const name of ['chain', 'breakers', 'timeoutAlone', 'events', 'concurrent', 'memory', 'weight']) {
  const t = Date.now();
  const f = await figures[name]();
  rows.push(...f.rows);
  raw[name] = f.raw;
  console.error(`  ${name}: ${((Date.now() - t) / 1000).toFixed(1)} s`);
}
console.log();
printTable(rows);
const durationS = (Date.now() - t0) / 1000;
const failed = rows.filter((r) => !r.met && r.target !== 'info');
console.log(`\n${rows.length - failed.length} of ${rows.length} met, in ${durationS.toFixed(0)} s`);
writeFileSync(outFile, `${JSON.stringify({ date: new Date().toISOString(), machine, quick, rounds, durationS, figures: rows, raw }, null, 2)}\n`);
console.log(`results: ${outFile}`);
