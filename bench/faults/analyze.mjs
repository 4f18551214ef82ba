// From the raw counts of one run to its figures. A's requests are grouped by
// their DUE time (request i is due at i / rate s), so a late answer counts
// against the moment the user asked, not the moment the service got round to it.
import { OUTCOMES } from './outcomes.mjs';

/** Window of the recovery figure and its step, in ms; the share a window needs. */
export const recovery = { windowMs: 1_000, stepMs: 100, realShare: 0.95 };

/** When a run is flagged as starved of CPU: its healthy phase below this real share, or A's send lag p99 above this. */
export const starvedBelow = { healthyReal: 0.99, generatorLagP99Ms: 50 };

/** The q-quantile (nearest rank) of an ascending array; NaN when empty. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

function shares(outcome, from, to) {
  const c = { n: 0, real: 0, fallback: 0, error: 0, timeout: 0 };
  for (let i = from; i < to; i++) {
    const o = OUTCOMES[outcome[i]];
    c.n++;
    if (o === 'real') c.real++;
    else if (o === 'fallback') c.fallback++;
    else {
      // A client timeout is an error to the user; it is also counted on its own.
      c.error++;
      if (o === 'timeout') c.timeout++;
    }
  }
  const r = (x) => (c.n === 0 ? Number.NaN : x / c.n);
  return { ...c, realShare: r(c.real), fallbackShare: r(c.fallback), errorShare: r(c.error), timeoutShare: r(c.timeout) };
}

/** Index of the first request due at or after `ms`. */
const firstDue = (ms, rate, n) => Math.min(n, Math.max(0, Math.ceil((ms * rate) / 1000 - 1e-9)));

function sum(xs, from, to) {
  let s = 0;
  for (let i = Math.max(0, from); i < Math.min(xs.length, to); i++) s += xs[i];
  return s;
}

/** Latency p50/p99 (ms from the due time) of requests [from, to); a client timeout counts as its timeout. */
function latency(latencyMs, outcome, from, to, clientTimeoutMs) {
  const xs = [];
  for (let i = from; i < to; i++) xs.push(OUTCOMES[outcome[i]] === 'timeout' ? clientTimeoutMs : latencyMs[i]);
  xs.sort((a, b) => a - b);
  return { p50: quantile(xs, 0.5), p99: quantile(xs, 0.99) };
}

/**
 * The figures of one run: shares per phase, recovery, C's load, A's latency,
 * the event-loop delays, the per-second timelines, and the counts of each
 * process (so a reader can check that they add up).
 */
export function analyze(run, settings) {
  const { schedule, generator: a, service: b, upstream: c } = run;
  const { rate } = settings;
  const n = a.outcome.length;
  const idx = (ms) => firstDue(ms, rate, n);
  const [healthyStart, healthyEnd, faultEnd, end] = [idx(schedule.warmupMs), idx(schedule.faultStart), idx(schedule.faultEnd), n];

  // Recovery: the first 1 s window (stepped by 100 ms from the fault's end, inside the after phase) with >= 95 % real.
  let recoveryS = null;
  for (let start = schedule.faultEnd; start + recovery.windowMs <= schedule.totalMs; start += recovery.stepMs) {
    const w = shares(a.outcome, idx(start), idx(start + recovery.windowMs));
    if (w.n > 0 && w.real >= recovery.realShare * w.n) {
      recoveryS = (start - schedule.faultEnd) / 1000;
      break;
    }
  }
  const recoveryLimitS = Math.max(0, (schedule.afterMs - recovery.windowMs) / 1000);

  const perBucket = c.bucketMs;
  const cPerS = (fromMs, toMs) => (sum(c.counts.received, Math.floor(fromMs / perBucket), Math.floor(toMs / perBucket)) * 1000) / (toMs - fromMs);
  const load = {
    healthyPerS: cPerS(schedule.warmupMs, schedule.faultStart),
    faultPerS: cPerS(schedule.faultStart, schedule.faultEnd),
    afterPerS: cPerS(schedule.faultEnd, schedule.totalMs),
  };
  load.ratio = load.faultPerS / load.healthyPerS;
  // The same against what A offered: steadier than the measured healthy rate on a busy machine.
  load.ratioToOffered = load.faultPerS / rate;

  const lag = Array.from(a.sendLagMs).sort((x, y) => x - y);
  const counted = shares(a.outcome, 0, n);
  const pending = a.outcome.reduce((k, o) => k + (o === 0 ? 1 : 0), 0);
  const bReceived = b.counts.received.reduce((x, y) => x + y, 0);
  const bAnswered = ['real', 'fallback', 'error'].reduce((k, key) => k + b.counts[key].reduce((x, y) => x + y, 0), 0);
  const cReceived = c.counts.received.reduce((x, y) => x + y, 0);

  const seconds = Math.ceil(schedule.totalMs / 1000);
  const timeline = [];
  for (let s = 0; s < seconds; s++) {
    const from = idx(s * 1000);
    const to = idx((s + 1) * 1000);
    const w = shares(a.outcome, from, to);
    const l = latency(a.latencyMs, a.outcome, from, to, settings.clientTimeoutMs);
    const bucket = (key) => sum(c.counts[key], (s * 1000) / perBucket, ((s + 1) * 1000) / perBucket);
    const phase = s * 1000 < schedule.warmupMs ? 'warmup' : s * 1000 < schedule.faultStart ? 'healthy' : s * 1000 < schedule.faultEnd ? 'fault' : 'after';
    timeline.push({
      s,
      phase,
      a: { real: w.real, fallback: w.fallback, error: w.error - w.timeout, timeout: w.timeout, p50: l.p50, p99: l.p99, loopDelayP99: a.loopDelay.perSecond[s]?.p99 ?? null, cpuMs: a.loopDelay.perSecond[s]?.cpuMs ?? null },
      b: {
        received: b.counts.received[s],
        real: b.counts.real[s],
        fallback: b.counts.fallback[s],
        error: b.counts.error[s],
        inFlightMax: b.counts.inFlightMax[s],
        loopDelayP99: b.loopDelay.perSecond[s]?.p99 ?? null,
        loopDelayMax: b.loopDelay.perSecond[s]?.max ?? null,
        cpuMs: b.loopDelay.perSecond[s]?.cpuMs ?? null,
      },
      c: {
        received: bucket('received'),
        ok: bucket('ok'),
        failed: bucket('failed'),
        servedGone: bucket('servedGone'),
        queueMax: Math.max(...c.counts.queueMax.slice((s * 1000) / perBucket, ((s + 1) * 1000) / perBucket)),
        loopDelayP99: c.loopDelay.perSecond[s]?.p99 ?? null,
        cpuMs: c.loopDelay.perSecond[s]?.cpuMs ?? null,
      },
    });
  }

  const healthy = shares(a.outcome, healthyStart, healthyEnd);
  const generatorLag = { p50: quantile(lag, 0.5), p99: quantile(lag, 0.99), max: lag.at(-1) ?? Number.NaN };
  // A run whose healthy phase is not healthy measured the machine, not the
  // variant: say so next to its figures rather than drop it.
  const starved = [];
  if (healthy.realShare < starvedBelow.healthyReal) starved.push(`healthy phase ${(healthy.realShare * 100).toFixed(1)} % real`);
  if (generatorLag.p99 > starvedBelow.generatorLagP99Ms) starved.push(`A sent late (p99 ${generatorLag.p99.toFixed(0)} ms)`);

  // B's CPU during the fault, in cores: near 1 means B itself was the bottleneck.
  const faultSeconds = b.loopDelay.perSecond.slice(Math.floor(schedule.faultStart / 1000), Math.ceil(schedule.faultEnd / 1000));
  const serviceCpuDuringCores = faultSeconds.length === 0 ? Number.NaN : faultSeconds.reduce((k, x) => k + x.cpuMs, 0) / (faultSeconds.length * 1000);

  return {
    starved,
    serviceCpuDuringCores,
    healthy,
    during: shares(a.outcome, healthyEnd, faultEnd),
    after: shares(a.outcome, faultEnd, end),
    recoveryS,
    recoveryLimitS,
    upstreamLoad: load,
    latency: { all: latency(a.latencyMs, a.outcome, healthyStart, n, settings.clientTimeoutMs), during: latency(a.latencyMs, a.outcome, healthyEnd, faultEnd, settings.clientTimeoutMs) },
    loopDelay: { service: b.loopDelay, generator: omitSeconds(a.loopDelay), upstream: omitSeconds(c.loopDelay) },
    generatorLag,
    counts: {
      due: n,
      real: counted.real,
      fallback: counted.fallback,
      error: counted.error - counted.timeout,
      timeout: counted.timeout,
      pending,
      serviceReceived: bReceived,
      serviceAnswered: bAnswered,
      serviceInFlightAtStop: b.inFlightAtStop,
      serviceErrors: b.errors,
      upstreamReceived: cReceived,
      upstreamHung: c.hung,
      upstreamServedGone: c.counts.servedGone.reduce((x, y) => x + y, 0),
      upstreamQueuedAtStop: c.queuedAtStop,
    },
    timeline,
  };
}

function omitSeconds({ perSecond, ...rest }) {
  return { ...rest, perSecondP99: perSecond.map((x) => x.p99) };
}
