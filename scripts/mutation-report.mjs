// Prints the per-file mutation score of Stryker JSON reports (default: the two runs of `npm run mutate`,
// reports/mutation/mutation.json and reports/mutation/redis.json; a file in a later report replaces the
// same file in an earlier one) and, with --survivors, each surviving or uncovered mutant with its line.
// Usage: node scripts/mutation-report.mjs [report.json ...] [--survivors] [--file <substring>]
import { existsSync, readFileSync } from 'node:fs';

const args = process.argv.slice(2);
const survivors = args.includes('--survivors');
const only = args.includes('--file') ? args[args.indexOf('--file') + 1] : undefined;
const given = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--file');
const paths = given.length > 0 ? given : ['reports/mutation/mutation.json', 'reports/mutation/redis.json'].filter((p) => existsSync(p));
const report = { files: {} };
for (const p of paths) Object.assign(report.files, JSON.parse(readFileSync(p, 'utf8')).files);

const DETECTED = new Set(['Killed', 'Timeout']);
const VALID = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage']);
const total = { detected: 0, valid: 0 };
const rows = [];
for (const [file, { source, mutants }] of Object.entries(report.files)) {
  if (only !== undefined && !file.includes(only)) continue;
  const valid = mutants.filter((m) => VALID.has(m.status));
  const detected = valid.filter((m) => DETECTED.has(m.status)).length;
  total.detected += detected;
  total.valid += valid.length;
  rows.push({ file, detected, valid: valid.length, score: valid.length ? (100 * detected) / valid.length : 100 });
  if (!survivors) continue;
  const lines = source.split('\n');
  for (const m of valid.filter((x) => !DETECTED.has(x.status)).sort((a, b) => a.location.start.line - b.location.start.line)) {
    const line = m.location.start.line;
    console.log(`${file}:${line} ${m.status} ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? '').slice(0, 70)}  | ${lines[line - 1].trim().slice(0, 100)}`);
  }
}
rows.sort((a, b) => a.score - b.score);
for (const r of rows) console.log(`${r.score.toFixed(2).padStart(6)} %  ${String(r.detected).padStart(4)}/${String(r.valid).padEnd(4)} ${r.file}`);
console.log(`${((100 * total.detected) / Math.max(1, total.valid)).toFixed(2).padStart(6)} %  ${total.detected}/${total.valid} in all`);
