// The two tables of the fault benchmark: every figure per scenario and
// variant, then the targets with met? for the two breakwater variants.
import Table from 'cli-table3';
import { judged } from './targets.mjs';

const pct = (x) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)} %` : '-');
const ms = (x) => (Number.isFinite(x) ? `${x.toFixed(x < 10 ? 1 : 0)}` : '-');
const times = (x) => (Number.isFinite(x) ? `${x.toFixed(2)}x` : '-');
const seconds = (x, limit) => (x === null ? `> ${limit} s` : x === undefined ? '-' : `${x.toFixed(1)} s`);
const style = { head: [], border: [] };

function share3(s) {
  return `${pct(s.realShare)} / ${pct(s.fallbackShare)} / ${pct(s.errorShare)}`;
}

/** Prints every figure: one row per scenario x variant. */
export function printFigures(results, variants) {
  const t = new Table({
    head: ['scenario', 'variant', 'healthy real', 'during: real / fallback / error', 'after: real / fallback / error', 'recovery', "C's load", 'A p50 / p99 ms', 'B loop p99 ms', 'B CPU in fault', 'timeouts'],
    style,
  });
  for (const [scenario, perVariant] of Object.entries(results)) {
    for (const variant of variants) {
      const f = perVariant[variant];
      if (f === undefined) continue;
      t.push([
        scenario,
        variant,
        `${pct(f.healthy.realShare)}${f.starved.length > 0 ? ' *' : ''}`,
        share3(f.during),
        share3(f.after),
        seconds(f.recoveryS, f.recoveryLimitS),
        times(f.upstreamLoad.ratio),
        `${ms(f.latency.all.p50)} / ${ms(f.latency.all.p99)}`,
        ms(f.loopDelay.service.p99),
        Number.isFinite(f.serviceCpuDuringCores) ? `${f.serviceCpuDuringCores.toFixed(2)} cores` : '-',
        String(f.counts.timeout),
      ]);
    }
  }
  console.log(t.toString());
  const starved = Object.entries(results).flatMap(([scenario, pv]) => Object.entries(pv).filter(([, f]) => f.starved.length > 0).map(([variant, f]) => `${scenario} x ${variant}: ${f.starved.join(', ')}`));
  if (starved.length > 0) console.log(`* starved of CPU (the machine, not the variant; rerun on a quiet machine):\n  ${starved.join('\n  ')}`);
}

function format(row, variant) {
  const v = row.values[variant];
  if (v === undefined) return '-';
  if (row.unit === '%') return pct(v);
  if (row.unit === 'x') return times(v);
  if (row.unit === 's') return seconds(v, row.limits[variant]);
  return String(v);
}

/** Prints the targets: the figure for every variant run, and met? for the judged ones. */
export function printTargets(rows, variants) {
  const t = new Table({ head: ['scenario', 'figure', 'target', ...variants, ...judged.map((v) => `met? ${v}`)], style, wordWrap: true, colWidths: [12, 24, 28] });
  for (const r of rows) t.push([r.scenario, r.figure, r.target, ...variants.map((v) => format(r, v)), ...judged.map((v) => r.met[v])]);
  console.log(t.toString());
}

/**
 * The results as JSON text: indented, but one line per second of a timeline
 * (a run has 30 of them), and three decimals (µs for times in ms: more than
 * the clocks resolve).
 */
export function formatResults(out) {
  const rounded = (_, v) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v * 1000) / 1000 : v);
  const copy = JSON.parse(JSON.stringify(out, rounded));
  const rows = [];
  for (const run of copy.runs) {
    run.figures.timeline = run.figures.timeline.map((second) => `@@row${rows.push(JSON.stringify(second)) - 1}@@`);
  }
  return `${JSON.stringify(copy, null, 1).replace(/"@@row(\d+)@@"/g, (_, i) => rows[Number(i)])}\n`;
}
