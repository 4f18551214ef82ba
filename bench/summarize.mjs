// Medians over several `npm run bench` result files, as a markdown table:
//   BENCH_OUT=/tmp/run1.json npm run bench   (several times)
//   node bench/summarize.mjs /tmp/run*.json
import { readFileSync } from 'node:fs';
import { median } from './lib/measure.mjs';

const runs = process.argv.slice(2).map((f) => JSON.parse(readFileSync(f, 'utf8')));
if (runs.length === 0) throw new Error('usage: node bench/summarize.mjs results.json...');
const fmt = (x, unit) => `${x.toLocaleString('en', { maximumFractionDigits: unit === 'MB' || Math.abs(x) < 10 ? 1 : 0 })} ${unit}`;
const m = runs[0].machine;
console.log(`Medians of ${runs.length} run(s); node ${m.node}, ${m.cpus} cores (${m.cpu}).\n`);
console.log('| figure | ours | theirs | vs | ratio | target | met? | ratio per run |');
console.log('|---|---:|---:|---|---:|---|---|---|');
for (const [i, first] of runs[0].figures.entries()) {
  const rows = runs.map((r) => r.figures[i]);
  const ours = median(rows.map((r) => r.ours));
  const theirs = median(rows.map((r) => r.theirs));
  const ratio = median(rows.map((r) => r.ratio));
  const met = first.target === 'info' ? '' : ratio <= (first.maxRatio ?? Infinity) && (first.absMax == null || ours <= first.absMax) ? 'yes' : '**no**';
  const per = rows.map((r) => (r.ratio >= 0.1 ? r.ratio.toFixed(2) : r.ratio.toFixed(4))).join(', ');
  console.log(`| ${first.figure} | ${fmt(ours, first.unit)} | ${fmt(theirs, first.unit)} | ${first.theirsLabel} | ${ratio >= 0.1 ? ratio.toFixed(2) : ratio.toFixed(4)} | ${first.target} | ${met} | ${per} |`);
}
