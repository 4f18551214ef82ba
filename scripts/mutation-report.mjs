// The mutation score of `npm run mutate`, per file and in all.
//
//   node scripts/mutation-report.mjs run [stryker options]   what `npm run mutate` runs: builds, runs Stryker with
//       stryker.config.json, then with stryker.redis.config.json (both passed the options given, e.g. --force), times
//       the whole, records the run in reports/mutation/run.json and prints the report
//   node scripts/mutation-report.mjs [report.json ...] [--markdown] [--survivors] [--file <substring>] [--check]
//       the report of the last run (default reports/mutation/mutation.json and redis.json)
//
// Each file's figures come from the report of the run that had it in its `mutate` patterns: Stryker's incremental
// mode also copies into each report the old results of files outside its patterns, and those were not checked by
// that run. A file whose source changed since the run is left out and named (run again). --markdown prints the
// table docs/reliability.md shows (commit, date, wall time, incremental or not, per-area and per-file scores);
// --survivors lists each surviving or uncovered mutant with its line; --check exits 1 unless the score is at least
// 85 % in all and 80 % in every file of lib/ and policies/.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const CONFIGS = ['stryker.config.json', 'stryker.redis.config.json'];
const RUN_RECORD = 'reports/mutation/run.json';
const MIN_OVERALL = 85;
const MIN_FILE = 80;
const GATED = /^(lib|policies)\//;
const DETECTED = new Set(['Killed', 'Timeout']);
const VALID = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage']);

const args = process.argv.slice(2);
if (args[0] === 'run') await run(args.slice(1));
else report(args);

/** Builds, runs both Stryker configurations in turn (stdout passed through), records the run, prints the report. */
async function run(strykerArgs) {
  const started = new Date();
  const t0 = Date.now();
  execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
  const runs = [];
  for (const config of CONFIGS) {
    const output = await stryker(config, strykerArgs);
    // Stryker's incremental summary: "Result: 4812 of 5273 mutant result(s) are reused."
    const m = /(\d+) of (\d+) mutant result\(s\) are reused/.exec(output.replace(/\x1b\[[0-9;]*m/g, ''));
    runs.push({ config, reused: m ? Number(m[1]) : 0, mutants: m ? Number(m[2]) : undefined });
  }
  const record = {
    commit: git(['rev-parse', 'HEAD']),
    dirty: git(['status', '--porcelain', '--untracked-files=no']).split('\n').some((l) => l.trim() !== '' && !l.includes('reports/')),
    date: started.toISOString(),
    wallMs: Date.now() - t0,
    // incremental when some result of an earlier run was reused (mutants whose code and covering tests did not change)
    incremental: runs.some((r) => r.reused > 0),
    runs,
  };
  mkdirSync(dirname(RUN_RECORD), { recursive: true });
  writeFileSync(RUN_RECORD, `${JSON.stringify(record, null, 2)}\n`);
  report([]);
}

function stryker(config, strykerArgs) {
  return new Promise((resolve, reject) => {
    const child = spawn(join('node_modules', '.bin', 'stryker'), ['run', config, ...strykerArgs], { stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      output += chunk;
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`stryker run ${config} exited with ${code}`))));
  });
}

function git(gitArgs) {
  try {
    return execFileSync('git', gitArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

/** A Stryker `mutate` pattern (`lib/**\/*.ts`, `!lib/index.ts`, a line range dropped) as a regular expression. */
function globToRegExp(glob) {
  let re = '';
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      const dir = glob[i + 2] === '/';
      re += dir ? '(?:.*/)?' : '.*';
      i += dir ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '{') {
      braces++;
      re += '(?:';
    } else if (c === '}' && braces > 0) {
      braces--;
      re += ')';
    } else if (c === ',' && braces > 0) re += '|';
    else re += c.replace(/[.+^$()|[\]\\{}]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Whether `file` is mutated under Stryker's `mutate` patterns: the last pattern that matches decides. */
function inScope(file, patterns) {
  let mutated = false;
  for (const raw of patterns) {
    const negated = raw.startsWith('!');
    const pattern = (negated ? raw.slice(1) : raw).replace(/:\d+(:\d+)?-\d+(:\d+)?$/, '');
    if (globToRegExp(pattern).test(file)) mutated = !negated;
  }
  return mutated;
}

function countsOf(mutants) {
  const c = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
  for (const m of mutants) {
    if (m.status === 'Killed') c.killed++;
    else if (m.status === 'Timeout') c.timeout++;
    else if (m.status === 'Survived') c.survived++;
    else if (m.status === 'NoCoverage') c.noCoverage++;
  }
  const valid = c.killed + c.timeout + c.survived + c.noCoverage;
  return { ...c, valid, detected: c.killed + c.timeout, score: valid === 0 ? 100 : (100 * (c.killed + c.timeout)) / valid };
}

function add(a, b) {
  const s = { killed: a.killed + b.killed, timeout: a.timeout + b.timeout, survived: a.survived + b.survived, noCoverage: a.noCoverage + b.noCoverage };
  const valid = s.killed + s.timeout + s.survived + s.noCoverage;
  return { ...s, valid, detected: s.killed + s.timeout, score: valid === 0 ? 100 : (100 * (s.killed + s.timeout)) / valid };
}

function report(reportArgs) {
  const markdown = reportArgs.includes('--markdown');
  const survivors = reportArgs.includes('--survivors');
  const check = reportArgs.includes('--check');
  const only = reportArgs.includes('--file') ? reportArgs[reportArgs.indexOf('--file') + 1] : undefined;
  const given = reportArgs.filter((a, i) => !a.startsWith('--') && reportArgs[i - 1] !== '--file');
  const paths = given.length > 0 ? given : ['reports/mutation/mutation.json', 'reports/mutation/redis.json'].filter((p) => existsSync(p));
  if (paths.length === 0) {
    console.error('no Stryker report: run `npm run mutate`');
    process.exit(1);
  }
  const files = new Map();
  const carried = new Set();
  for (const p of paths) {
    const r = JSON.parse(readFileSync(p, 'utf8'));
    const patterns = r.config?.mutate;
    for (const [file, result] of Object.entries(r.files)) {
      if (Array.isArray(patterns) && !inScope(file, patterns)) {
        if (!files.has(file)) carried.add(file);
        continue;
      }
      files.set(file, result);
      carried.delete(file);
    }
  }
  const stale = [];
  const rows = [];
  for (const [file, { source, mutants }] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    if (only !== undefined && !file.includes(only)) continue;
    if (!existsSync(file) || readFileSync(file, 'utf8') !== source) {
      stale.push(file);
      continue;
    }
    rows.push({ file, ...countsOf(mutants) });
    if (!survivors) continue;
    const lines = source.split('\n');
    for (const m of mutants.filter((x) => VALID.has(x.status) && !DETECTED.has(x.status)).sort((a, b) => a.location.start.line - b.location.start.line)) {
      const line = m.location.start.line;
      console.log(`${file}:${line} ${m.status} ${m.mutatorName} -> ${JSON.stringify(m.replacement ?? '').slice(0, 70)}  | ${lines[line - 1].trim().slice(0, 100)}`);
    }
  }
  const total = rows.reduce((s, r) => add(s, r), countsOf([]));
  const areas = new Map();
  for (const r of rows) {
    const parts = r.file.split('/');
    const area = parts[0] === 'lib' && parts.length === 2 ? 'lib/ (core)' : `${parts.slice(0, 2).join('/')}/`;
    areas.set(area, add(areas.get(area) ?? countsOf([]), r));
  }
  const pct = (n) => `${n.toFixed(2)} %`;
  if (markdown) {
    const run = existsSync(RUN_RECORD) ? JSON.parse(readFileSync(RUN_RECORD, 'utf8')) : undefined;
    const when = run ? run.date : new Date(Math.max(...paths.map((p) => statSync(p).mtimeMs))).toISOString();
    const wall = run ? `${Math.round(run.wallMs / 60_000)} minutes` : 'not recorded';
    const mode = run === undefined ? 'not recorded' : run.incremental ? `incremental (${run.runs.map((x) => `${x.config}: ${x.mutants === undefined ? 'no results' : `${x.reused} of ${x.mutants} results`} reused`).join('; ')})` : 'full (no results reused)';
    console.log(`Run of commit \`${run ? run.commit.slice(0, 12) : 'not recorded'}\`${run?.dirty ? ' (with uncommitted changes)' : ''}, ${when.slice(0, 10)}: ${wall}, ${mode}.`);
    console.log('');
    const head = '| %s | mutants | killed | timed out | survived | no coverage | score |\n| --- | --- | --- | --- | --- | --- | --- |';
    const line = (name, c) => `| ${name} | ${c.valid} | ${c.killed} | ${c.timeout} | ${c.survived} | ${c.noCoverage} | ${pct(c.score)} |`;
    console.log(head.replace('%s', 'area'));
    for (const [area, c] of [...areas].sort(([a], [b]) => a.localeCompare(b))) console.log(line(`\`${area}\``, c));
    console.log(line('**all**', total));
    console.log('');
    console.log(head.replace('%s', 'file'));
    for (const r of rows) console.log(line(`\`${r.file}\``, r));
  } else {
    for (const r of [...rows].sort((a, b) => a.score - b.score)) console.log(`${r.score.toFixed(2).padStart(6)} %  ${String(r.detected).padStart(4)}/${String(r.valid).padEnd(4)} ${r.file}`);
    for (const [area, c] of [...areas].sort(([a], [b]) => a.localeCompare(b))) console.log(`${c.score.toFixed(2).padStart(6)} %  ${String(c.detected).padStart(4)}/${String(c.valid).padEnd(4)} ${area}`);
    console.log(`${total.score.toFixed(2).padStart(6)} %  ${total.detected}/${total.valid} in all`);
  }
  if (carried.size > 0) console.error(`left out, in no run's mutate patterns (old results Stryker carried over): ${[...carried].join(', ')}`);
  if (stale.length > 0) console.error(`left out, changed since the run (run npm run mutate again): ${stale.join(', ')}`);
  if (check) {
    const low = rows.filter((r) => GATED.test(r.file) && r.score < MIN_FILE);
    for (const r of low) console.error(`below ${MIN_FILE} %: ${r.file} (${pct(r.score)})`);
    if (total.score < MIN_OVERALL) console.error(`below ${MIN_OVERALL} % in all (${pct(total.score)})`);
    if (low.length > 0 || total.score < MIN_OVERALL || stale.length > 0) process.exit(1);
  }
}
