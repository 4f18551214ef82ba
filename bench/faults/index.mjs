// npm run bench:faults: the real-network fault benchmark. For every scenario
// x variant, a fresh upstream C, service B and open-loop generator A (three
// processes on loopback) run healthy, fault, after; the figures of each run
// are printed as two tables (every figure; the targets with met?) and written,
// with per-second timelines, to bench/faults-results.json.
//   npm run bench:faults -- --quick                 outage and capacity, every variant
//   npm run bench:faults -- --scenario outage --variant canonical,bare
//   npm run bench:faults -- --seed 7 --out /tmp/faults.json
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { Command, InvalidArgumentError } from 'commander';
import { analyze, recovery } from './analyze.mjs';
import { guardExits, liveCount, started } from './processes.mjs';
import { formatResults, printFigures, printTargets } from './report.mjs';
import { runOne } from './run.mjs';
import { faults, quickScenarios, scenarios, scheduleOf, upstream } from './scenarios.mjs';
import { targetRows } from './targets.mjs';
import { about, variantNames } from './variants.mjs';

const number = (min) => (s) => {
  const x = Number(s);
  if (!Number.isFinite(x) || x < min) throw new InvalidArgumentError(`a number >= ${min}`);
  return x;
};
const list = (known, what) => (s) => {
  const xs = s.split(',').map((x) => x.trim()).filter(Boolean);
  for (const x of xs) if (!known.includes(x)) throw new InvalidArgumentError(`unknown ${what} ${x}; known: ${known.join(', ')}`);
  return xs;
};

const options = new Command('bench:faults')
  .description('real-network fault benchmark: breakwater against bare calls, cockatiel and opossum')
  .option('--quick', `only ${quickScenarios.join(' and ')}, every variant`)
  .option('--scenario <names>', `comma-separated, of: ${Object.keys(scenarios).join(', ')}`, list(Object.keys(scenarios), 'scenario'))
  .option('--variant <names>', `comma-separated, of: ${variantNames.join(', ')}`, list(variantNames, 'variant'))
  .option('--seed <n>', "seed of C's service times and error draws", number(0), 1)
  .option('--rate <n>', "A's requests per second", number(1), 300)
  .option('--client-timeout <ms>', "A's timeout per request, from its due time", number(1), 2_000)
  .option('--warmup <s>', 'seconds at the rate before the healthy phase, not measured', number(0), 1)
  .option('--healthy <s>', 'seconds before the fault', number(0), 10)
  .option('--fault <s>', "seconds of every fault (default: the scenario's, 10 s; outage-12s keeps 1.2x)", number(0.1))
  .option('--after <s>', 'seconds after the fault', number(1), 10)
  .option('--out <path>', 'where the results go', new URL('../faults-results.json', import.meta.url).pathname)
  .parse()
  .opts();

const chosen = options.scenario ?? (options.quick ? quickScenarios : Object.keys(scenarios));
const variants = options.variant ?? variantNames;
const settings = {
  rate: options.rate,
  clientTimeoutMs: options.clientTimeout,
  warmupMs: Math.round(options.warmup * 1000),
  healthyMs: Math.round(options.healthy * 1000),
  afterMs: Math.round(options.after * 1000),
  faultMs: options.fault === undefined ? undefined : Math.round(options.fault * 1000),
  seed: options.seed,
};

guardExits();
const t0 = Date.now();
const runs = chosen.flatMap((scenario) => variants.map((variant) => ({ scenario, variant })));
const plannedS = runs.reduce((s, r) => s + scheduleOf(r.scenario, settings).totalMs / 1000 + 3, 0);
// The whole bench is bounded too: twice its plan, then every process is killed.
setTimeout(() => {
  process.stderr.write(`bench:faults: over twice the planned ${plannedS.toFixed(0)} s, stopping\n`);
  process.exit(1);
}, plannedS * 2_000 + 60_000).unref();

const machine = { node: process.version, cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', platform: `${process.platform} ${process.arch}`, totalMemGB: +(totalmem() / 2 ** 30).toFixed(1) };
const commit = (() => {
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'lib', 'policies', 'bench/faults'], { encoding: 'utf8' }).trim() !== '';
    return { head, dirty };
  } catch {
    return null;
  }
})();
console.log(
  `bench:faults: node ${machine.node}, ${machine.cpus} cores (${machine.cpu}), load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}; ` +
    `${runs.length} runs (${chosen.join(', ')} x ${variants.join(', ')}), about ${(plannedS / 60).toFixed(1)} min`,
);

const results = {};
const raw = [];
for (const [i, { scenario, variant }] of runs.entries()) {
  const t = Date.now();
  const run = await runOne(variant, scenario, settings, (pids) =>
    console.error(`  [${i + 1}/${runs.length}] ${scenario} x ${variant}: started (pids ${Object.entries(pids).map(([role, pid]) => `${role} ${pid}`).join(', ')})`),
  );
  const f = analyze(run, settings);
  (results[scenario] ??= {})[variant] = f;
  raw.push({ scenario, variant, startedAt: run.startedAt, loadavg: run.loadavg, pids: run.pids, schedule: run.schedule, figures: f });
  const rec = f.recoveryS === null ? `> ${f.recoveryLimitS} s` : `${f.recoveryS.toFixed(1)} s`;
  console.error(
    `  [${i + 1}/${runs.length}] ${scenario} x ${variant}: ${((Date.now() - t) / 1000).toFixed(1)} s; real during ${(f.during.realShare * 100).toFixed(1)} %, ` +
      `after ${(f.after.realShare * 100).toFixed(1)} %, recovery ${rec}, C load ${f.upstreamLoad.ratio.toFixed(2)}x; load average ${run.loadavg.at(-1)[0].toFixed(2)}`,
  );
}

console.log();
printFigures(results, variants);
const rows = targetRows(results);
console.log();
printTargets(rows, variants);
const durationS = (Date.now() - t0) / 1000;
const judgedRows = rows.flatMap((r) => Object.values(r.met));
console.log(
  `\n${judgedRows.filter((m) => m === 'yes').length} of ${judgedRows.filter((m) => m !== 'n/a').length} targets met (${judgedRows.filter((m) => m === 'n/a').length} n/a), in ${(durationS / 60).toFixed(1)} min; load average ${loadavg().map((x) => x.toFixed(2)).join(' ')}`,
);

const out = {
  date: new Date().toISOString(),
  machine,
  commit,
  durationS,
  loadavg: { start: raw[0]?.loadavg[0], end: loadavg() },
  settings: {
    ...settings,
    faultMs: settings.faultMs ?? 'per scenario',
    quick: options.quick === true,
    scenarios: Object.fromEntries(chosen.map((s) => [s, scenarios[s].about])),
    variants: Object.fromEntries(variants.map((v) => [v, about[v]])),
    upstream,
    faults,
    recovery,
    transport: 'node:http on 127.0.0.1; B -> C and A -> B over http.Agent({ keepAlive: true })',
  },
  targets: rows,
  runs: raw,
  processes: started,
};
writeFileSync(options.out, formatResults(out));
console.log(`results: ${options.out}`);
if (liveCount() !== 0) throw new Error(`${liveCount()} process(es) still running`);
process.exit(0);
