// A virtual-time model of the fault benchmark (bench/faults/), for trying a
// breaker's rules in seconds instead of minutes: the same upstream C (32 slots,
// 20 ± 5 ms service on a timer, an unbounded FIFO queue that also serves
// requests whose client has gone), the same fault schedule and the same
// open-loop generator at 300 req/s with a 2 s client timeout, all on one
// TestClock, with no network, no event loop and no other process. Its figures
// are a model's, not measurements: bench:faults is the judge.
//   node bench/breaker-sim.mjs                       every scenario, sre and default breaker
//   node bench/breaker-sim.mjs --scenario outage --chain breaker --seed 3
//   BREAKWATER=/tmp/bw.mjs node bench/breaker-sim.mjs   against another build
import { Command } from 'commander';
import { faults, scenarios, scheduleOf, behaviourAt, upstream } from './faults/scenarios.mjs';
import { recovery } from './faults/analyze.mjs';

const lib = await import(process.env.BREAKWATER ?? '../dist/index.js');
const { TestClock, seededRandom } = await import(process.env.BREAKWATER_TESTING ?? '../dist/testing.js');
const { policy, strategies } = lib;

const REAL = 'real';
/** Options of the default breaker, for trying settings: BREAKER_OPTIONS='{"tripMs":500}'. */
const breakerOptions = JSON.parse(process.env.BREAKER_OPTIONS ?? '{}');
const FALLBACK = 'fallback';

/** The chains compared: the canonical chain with each breaker. */
const chains = {
  breaker: (env) => policy(env).timeout(300).retry({ maxAttempts: 3 }).breaker(breakerOptions).fallback(() => FALLBACK),
  sre: (env) => policy(env).timeout(300).retry({ maxAttempts: 3 }).sreBreaker().fallback(() => FALLBACK),
  standard: (env) => strategies.standard({ ...env, timeoutMs: 300, maxAttempts: 3, fallback: () => FALLBACK }),
  'std+limit': (env) => strategies.standard({ ...env, timeoutMs: 300, maxAttempts: 3, concurrency: true, fallback: () => FALLBACK }),
  bare: () => ({ execute: (op) => op({ signal: undefined }) }),
};

/** The upstream C on the virtual clock. */
function makeUpstream(clock, schedule, seed, t0) {
  const serviceRandom = seededRandom(seed);
  const errorRandom = seededRandom((seed ^ 0x9e3779b9) >>> 0);
  const queue = [];
  let busy = 0;
  const received = [];
  const slotsAt = (t) => (behaviourAt(schedule.spans, t - t0) === 'capacity' ? faults.degradedSlots : upstream.slots);
  const pump = () => {
    while (busy < slotsAt(clock.now()) && queue.length > 0) {
      const job = queue.shift();
      busy++;
      const ms = upstream.serviceMinMs + (upstream.serviceMaxMs - upstream.serviceMinMs) * serviceRandom();
      clock.setTimeout(() => {
        busy--;
        if (job.kind === 'errors' && job.fails) job.answer(500);
        else if (job.kind === 'latency') clock.setTimeout(() => job.answer(200), Math.max(0, job.arrived + faults.latencyMs - clock.now()));
        else job.answer(200);
        pump();
      }, ms);
    }
  };
  for (const s of schedule.spans) clock.setTimeout(pump, t0 + s.to - clock.now());
  return {
    received,
    get queued() { return queue.length; },
    /** One call: resolves on a 200, rejects on another status or on `signal`'s abort (the job stays queued). */
    call(signal) {
      return new Promise((resolve, reject) => {
        const t = clock.now();
        received.push(t - t0);
        const kind = behaviourAt(schedule.spans, t - t0);
        let done = false;
        const answer = (status) => {
          if (done) return;
          done = true;
          signal?.removeEventListener('abort', onAbort);
          if (status === 200) resolve(REAL);
          else reject(Object.assign(new Error(`upstream answered ${status}`), { status }));
        };
        const onAbort = () => {
          if (done) return;
          done = true;
          reject(signal.reason);
        };
        signal?.addEventListener('abort', onAbort);
        if (kind === 'outage') return answer(503);
        if (kind === 'hang') return;
        queue.push({ answer, arrived: t, kind, fails: kind === 'errors' ? errorRandom() < faults.errorRate : false });
        pump();
      });
    },
  };
}

/** One scenario x chain run; returns its figures. */
export async function simulate(scenario, chainName, { seed = 1, rate = 300, clientTimeoutMs = 2_000, warmupMs = 1_000, healthyMs = 10_000, afterMs = 10_000, events = false } = {}) {
  const schedule = scheduleOf(scenario, { warmupMs, healthyMs, afterMs });
  const t0 = 1_700_000_000_000;
  const clock = new TestClock(t0);
  const c = makeUpstream(clock, schedule, seed, t0);
  const chain = chains[chainName]({ clock, random: seededRandom(seed + 17) });
  const transitions = [];
  if (events) chain.events$?.subscribe((e) => e.type === 'stateChange' && transitions.push(`${((clock.now() - t0 - schedule.faultStart) / 1000).toFixed(3)} ${e.from}->${e.to} ${e.reason} ${e.figure?.toFixed?.(2) ?? ''}`));
  const n = Math.floor((schedule.totalMs * rate) / 1000);
  const outcome = new Array(n);
  const due = (i) => t0 + (i * 1000) / rate;
  for (let i = 0; i < n; i++) {
    clock.setTimeout(() => {
      const timer = clock.setTimeout(() => (outcome[i] ??= 'timeout'), clientTimeoutMs);
      Promise.resolve()
        .then(() => chain.execute((ctx) => c.call(ctx.signal)))
        .then(
          (v) => (outcome[i] ??= v === REAL ? 'real' : 'fallback'),
          () => (outcome[i] ??= 'error'),
        )
        .finally(() => clock.clearTimeout(timer));
    }, due(i) - t0);
  }
  const trace = [];
  if (process.env.TRACE) {
    const b = chain.policies?.find((p) => 'stats' in p);
    for (let t = schedule.faultStart - 500; t < schedule.faultEnd + 2_000; t += 100) {
      clock.setTimeout(() => trace.push(`${((t - schedule.faultStart) / 1000).toFixed(1)} q=${c.queued} ${b?.state} ${JSON.stringify(b?.stats())}`), t);
    }
  }
  await clock.advance(schedule.totalMs + clientTimeoutMs);
  if (process.env.TRACE) console.log(trace.join('\n'));

  const idx = (ms) => Math.min(n, Math.ceil((ms * rate) / 1000 - 1e-9));
  const share = (from, to) => {
    let real = 0;
    let fb = 0;
    for (let i = from; i < to; i++) {
      if (outcome[i] === 'real') real++;
      else if (outcome[i] === 'fallback') fb++;
    }
    const m = Math.max(1, to - from);
    return { real: real / m, fallback: fb / m, error: (to - from - real - fb) / m };
  };
  let recoveryS = null;
  for (let start = schedule.faultEnd; start + recovery.windowMs <= schedule.totalMs; start += recovery.stepMs) {
    if (share(idx(start), idx(start + recovery.windowMs)).real >= recovery.realShare) {
      recoveryS = (start - schedule.faultEnd) / 1000;
      break;
    }
  }
  const countIn = (from, to) => c.received.filter((t) => t >= from && t < to).length;
  const healthyPerS = countIn(schedule.warmupMs, schedule.faultStart) / (schedule.healthyMs / 1000);
  const faultPerS = countIn(schedule.faultStart, schedule.faultEnd) / (schedule.faultMs / 1000);
  const during = share(idx(schedule.faultStart), idx(schedule.faultEnd));
  const after = share(idx(schedule.faultEnd), n);
  const healthy = share(idx(schedule.warmupMs), idx(schedule.faultStart));
  // Real share per 500 ms from 1 s before the fault to 3 s after it, for reading the dynamics.
  const timeline = [];
  for (let t = schedule.faultStart - 1_000; t < schedule.faultEnd + 3_000; t += 500) timeline.push(Math.round(share(idx(t), idx(t + 500)).real * 100));
  return { transitions, scenario, chain: chainName, healthy: healthy.real, during: during.real, duringError: during.error, after: after.real, afterError: after.error, recoveryS, load: faultPerS / healthyPerS, timeline };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const o = new Command('breaker-sim')
    .option('--scenario <names>', 'comma-separated scenarios', Object.keys(scenarios).join(','))
    .option('--chain <names>', `comma-separated, of: ${Object.keys(chains).join(', ')}`, 'sre,breaker')
    .option('--seed <n>', 'seed', '1')
    .option('--timeline', 'print the real share per 500 ms around the fault')
    .option('--events', "print the breaker's state changes (seconds from the fault's start)")
    .parse()
    .opts();
  const pct = (x) => `${(x * 100).toFixed(1).padStart(5)} %`;
  console.log('scenario     chain     healthy   during    after     recovery  C load  errors during/after');
  for (const scenario of o.scenario.split(',')) {
    for (const chain of o.chain.split(',')) {
      const r = await simulate(scenario, chain, { seed: Number(o.seed), events: o.events });
      const rec = r.recoveryS === null ? '> 9 s' : `${r.recoveryS.toFixed(1)} s`;
      console.log(
        `${scenario.padEnd(12)} ${chain.padEnd(9)} ${pct(r.healthy)}  ${pct(r.during)}  ${pct(r.after)}  ${rec.padStart(7)}  ${r.load.toFixed(2).padStart(5)}x  ${pct(r.duringError)} / ${pct(r.afterError)}`,
      );
      if (o.timeline) console.log(`  ${r.timeline.join(' ')}`);
      if (o.events) console.log(r.transitions.map((t) => `    ${t}`).join('\n'));
    }
  }
}
