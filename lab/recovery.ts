import { checkOptions } from '../lib/options.js';
import { rtoMax, type RecoveryMechanics } from '../lib/sla.js';
import { adaptiveBreakerOptions } from '../policies/adaptive-breaker/options.js';
import { circuitBreakerOptions } from '../policies/circuit-breaker/options.js';
import { MODEL, SCENARIOS } from './model.js';
import type { Model } from './override.js';
import type { RowName } from './rows.js';
import type { RunRecord } from './simulate.js';

/** The breaker family a row's breakers belong to (the lab's rows use the families' defaults for these figures). */
export type BreakerFamily = 'adaptive' | 'circuit';

/** Which family each breaker row uses: the adaptive breaker (the default) or a circuitBreaker strategy. */
export const BREAKER_FAMILY: Partial<Record<RowName, BreakerFamily>> = {
  failFast: 'adaptive',
  standard: 'adaptive',
  guardedRetry: 'circuit',
  slowCallShield: 'circuit',
  errorCountTrip: 'circuit',
  writeBehind: 'adaptive',
  fallbackChain: 'adaptive',
  layeredBreakers: 'adaptive',
};

const adaptive = checkOptions(adaptiveBreakerOptions, {}, 'adaptiveBreaker');
const circuit = checkOptions(circuitBreakerOptions, { strategy: 'errorRatio' }, 'circuitBreaker');

/**
 * The q-quantile of a sum of independent exponential times with the given means (ms): a chain of exponential
 * stages (a phase-type distribution), whose chance of being through by time t is integrated in small steps.
 */
export function sumQuantileMs(meansMs: readonly number[], q = 0.9): number {
  if (meansMs.length === 0) return 0;
  const rates = meansMs.map((m) => 1 / m);
  const dt = Math.min(...meansMs) / 400;
  // p[i]: the chance of being in stage i; done: through every stage
  const n = meansMs.length;
  const p = new Float64Array(n);
  p[0] = 1;
  // classic fourth-order Runge–Kutta on p' = flow in − flow out, in buffers made once
  const k = [1, 2, 3, 4].map(() => new Float64Array(n));
  const x = new Float64Array(n);
  const slope = (from: Float64Array, into: Float64Array): void => {
    for (let i = 0; i < n; i++) into[i] = (i > 0 ? rates[i - 1]! * from[i - 1]! : 0) - rates[i]! * from[i]!;
  };
  const step = (d: Float64Array, h: number): Float64Array => {
    for (let i = 0; i < n; i++) x[i] = p[i]! + h * d[i]!;
    return x;
  };
  let done = 0;
  let t = 0;
  while (done < q) {
    const [k1, k2, k3, k4] = k as [Float64Array, Float64Array, Float64Array, Float64Array];
    slope(p, k1);
    slope(step(k1, dt / 2), k2);
    slope(step(k2, dt / 2), k3);
    slope(step(k3, dt), k4);
    let left = 0;
    for (let i = 0; i < n; i++) left += p[i]! += (dt / 6) * (k1[i]! + 2 * k2[i]! + 2 * k3[i]! + k4[i]!);
    done = 1 - left;
    t += dt;
  }
  return t;
}

/**
 * The time within which `k` answers of C in a row come back with probability `q`, outside a backlog: the
 * q-quantile of the sum of `k` exponential service times (an Erlang distribution), found by bisection.
 */
export function answersMs(k: number, q = 0.9, serviceMeanMs: number = MODEL.serviceMeanMs): number {
  const cdf = (x: number): number => {
    let term = 1;
    let sum = 1;
    for (let n = 1; n < k; n++) {
      term *= x / n;
      sum += term;
    }
    return 1 - Math.exp(-x) * sum;
  };
  let lo = 0;
  let hi = 10 * k + 50;
  for (let i = 0; i < 60; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < q) lo = mid;
    else hi = mid;
  }
  return hi * serviceMeanMs;
}

/**
 * How long the last of `workers` jobs in service may still take, with probability `q`, when each has an
 * exponential service time of mean `meanMs` (memoryless: what is left of each is exponential too): the q-quantile
 * of their maximum, `−meanMs · ln(1 − q^(1/workers))`.
 */
export function lastJobMs(workers: number, meanMs: number, q = 0.9): number {
  return -meanMs * Math.log(1 - q ** (1 / Math.max(1, workers)));
}

/**
 * The open period, probes and probe round of a family, in the lab's model:
 * - circuit: `openMs`, then `probes` probes answered by C (at once: one round);
 * - adaptive: open, it lets `probeRatio` of the offered calls through (and one per `forcePassMs`); the first
 *   success starts a ramp that multiplies the admitted share by `rampFactor` per success, closing at 1:
 *   ⌈log(1/probeRatio) / log(rampFactor)⌉ successes in a row, each admitted after a random gap (Poisson arrivals
 *   thinned to the share) and answered after a random service time. Its open period is no fixed wait: the first
 *   probe's gap is memoryless, whatever time the breaker has already spent open, so it belongs to the round, and
 *   `openMs` is 0. A round is the whole sequence of gaps and answers (it succeeds when all its probes do; a failure
 *   anywhere reopens the breaker).
 * A round is taken at the 90th percentile of its random duration, the bound's confidence. `model` is the run's
 * ({@link MODEL} by default): its offered load spaces the probes, its service time their answers.
 */
export function familyMechanics(
  family: BreakerFamily,
  model: Pick<Model, 'offeredPerSecond' | 'serviceMeanMs'> = MODEL,
): Pick<RecoveryMechanics, 'openMs' | 'probes' | 'probeRoundMs'> {
  // the same for every run of a model: worked out once (the adaptive round's integration takes milliseconds)
  const key = `${family} ${model.offeredPerSecond} ${model.serviceMeanMs}`;
  let m = mechanics.get(key);
  if (m === undefined) mechanics.set(key, (m = mechanicsOf(family, model)));
  return m;
}

const mechanics = new Map<string, Pick<RecoveryMechanics, 'openMs' | 'probes' | 'probeRoundMs'>>();

function mechanicsOf(family: BreakerFamily, model: Pick<Model, 'offeredPerSecond' | 'serviceMeanMs'>): Pick<RecoveryMechanics, 'openMs' | 'probes' | 'probeRoundMs'> {
  if (family === 'circuit') return { openMs: circuit.openMs as number, // the default: a fixed period
 probes: circuit.probes, probeRoundMs: answersMs(1, 0.9, model.serviceMeanMs) };
  // the mean gap between admitted calls at a share of the offered load (a forced pass caps it, which only shortens it)
  const gapMs = (share: number): number => 1_000 / (Math.min(1, share) * model.offeredPerSecond);
  const probes = Math.ceil(Math.log(1 / adaptive.probeRatio) / Math.log(adaptive.rampFactor));
  const stages: number[] = [];
  for (let i = 0, share = adaptive.probeRatio; i < probes; i++, share *= adaptive.rampFactor) stages.push(gapMs(share), model.serviceMeanMs);
  return { openMs: 0, probes, probeRoundMs: sumQuantileMs(stages) };
}

/** C's whole capacity once the fault is over, jobs per second: its drain while a breaker keeps the load away. */
export const CAPACITY_PER_SECOND = (MODEL.workers * 1_000) / MODEL.serviceMeanMs;
/** C's spare capacity once the fault is over: jobs per second beyond A's offered load (its drain with the breaker closed). */
export const DRAIN_PER_SECOND = CAPACITY_PER_SECOND - MODEL.offeredPerSecond;

/** How long a request of A may wait in C's queue and still be answered within its patience: the patience less one service time at 90 %. */
export function waitBudgetMs(model: Pick<Model, 'callerPatienceMs' | 'serviceMeanMs'> = MODEL): number {
  return model.callerPatienceMs - answersMs(1, 0.9, model.serviceMeanMs);
}

/**
 * `rtoMax`'s inputs for a breaker row's run: its family's mechanics, and what the run had when the fault ended
 * (the breakers' state, C's held jobs). Once the fault is over C is healthy, so probes sent after its backlog
 * drained succeed (`probeSuccessRate` 1); the jobs in service then may still take their slowed service time
 * (×50 in the latency scenario): the last of the jobs in C's workers then, at 90 %. With the breakers closed,
 * requests that can wait out the rest of the backlog within A's patience are answered ({@link waitBudgetMs}).
 */
export function rtoInputs(r: RunRecord, family: BreakerFamily): RecoveryMechanics {
  const slowdown = SCENARIOS[r.scenario].slowdown(SCENARIOS[r.scenario].faultEndMs - 1);
  // the run's model: the constants above are the default model's
  const capacityPerSecond = (r.model.workers * 1_000) / r.model.serviceMeanMs;
  return {
    ...familyMechanics(family, r.model),
    state: r.atFaultEnd.state,
    openElapsedMs: r.atFaultEnd.openElapsedMs,
    backlog: r.atFaultEnd.backlog,
    drainPerSecond: capacityPerSecond - r.model.offeredPerSecond,
    capacityPerSecond,
    // the jobs in service: as many as C holds, at most one per worker
    busyMs: r.atFaultEnd.backlog === 0 ? 0 : lastJobMs(Math.min(r.atFaultEnd.backlog, SCENARIOS[r.scenario].workers(SCENARIOS[r.scenario].faultEndMs - 1)), slowdown * r.model.serviceMeanMs),
    waitBudgetMs: waitBudgetMs(r.model),
    probeSuccessRate: 1,
  };
}

/** `rtoMax` (s; null = ∞) for a breaker row's run. */
export function rtoMaxS(r: RunRecord, family: BreakerFamily): number | null {
  const ms = rtoMax(rtoInputs(r, family));
  return Number.isFinite(ms) ? Math.round(ms / 10) / 100 : null;
}
