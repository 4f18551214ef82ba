// node bench/weight.mjs: only the weight figures of `npm run bench` (import
// CPU time, browser bundle sizes, install size), in about a minute. Needs the
// build (npm run build). Prints the table; BENCH_OUT=path also writes them.
import { cpus, loadavg } from 'node:os';
import { writeFileSync } from 'node:fs';
import { weight } from './lib/weight.mjs';
import { importRuns } from './lib/config.mjs';
import { printTable } from './lib/table.mjs';

const t0 = Date.now();
const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', platform: `${process.platform} ${process.arch}`, loadavgBefore: loadavg() };
console.log(`breakwater weight: node ${machine.node}, ${machine.cpus} cores (${machine.cpu}), load ${machine.loadavgBefore.map((x) => x.toFixed(2)).join(' ')}, ${importRuns} fresh processes per import\n`);
const { rows, raw } = await weight();
machine.loadavgAfter = loadavg();
printTable(rows);
const failed = rows.filter((r) => !r.met && r.target !== 'info');
console.log(`\n${rows.length - failed.length} of ${rows.length} met, in ${((Date.now() - t0) / 1000).toFixed(0)} s, load after ${machine.loadavgAfter.map((x) => x.toFixed(2)).join(' ')}`);
if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, `${JSON.stringify({ date: new Date().toISOString(), machine, figures: rows, raw }, null, 2)}\n`);
