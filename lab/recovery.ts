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
 * The open period, probes and probe round of a family, in the lab's model:
 * - circuit: `openMs`, then `probes` probes answered by C (at once: one round);
 * - adaptive: open, it lets `probeRatio` of the offered calls through (and one per
 *   `forcePassMs`), so the wait is the gap between probes; the first success starts
 *   a ramp that multiplies the admitted share by `rampFactor` per success, closing
 *   at 1: ⌈log(1/probeRatio) / log(rampFactor)⌉ successes in a row, each admitted
 *   after the gap of its share and answered one after the other.
 * A round's answers are taken at their 90th percentile, the bound's confidence. `model` is the run's
 * ({@link MODEL} by default): its offered load spaces the probes, its service time their answers.
 */
export function familyMechanics(
  family: BreakerFamily,
  model: Pick<Model, 'offeredPerSecond' | 'serviceMeanMs'> = MODEL,
): Pick<RecoveryMechanics, 'openMs' | 'probes' | 'probeRoundMs'> {
  if (family === 'circuit') return { openMs: circuit.openMs as number, // the default: a fixed period
 probes: circuit.probes, probeRoundMs: answersMs(1, 0.9, model.serviceMeanMs) };
  const gapMs = (share: number): number => Math.min(adaptive.forcePassMs, 1_000 / (share * model.offeredPerSecond));
  const probes = Math.ceil(Math.log(1 / adaptive.probeRatio) / Math.log(adaptive.rampFactor));
  let rampGapsMs = 0;
  for (let i = 1, share = adaptive.probeRatio * adaptive.rampFactor; i < probes; i++, share *= adaptive.rampFactor) rampGapsMs += gapMs(Math.min(1, share));
  // one round is the whole ramp (it succeeds when all its probes do): a failure anywhere in it reopens the breaker
  return { openMs: gapMs(adaptive.probeRatio), probes, probeRoundMs: rampGapsMs + answersMs(probes, 0.9, model.serviceMeanMs) };
}

/** C's whole capacity once the fault is over, jobs per second: its drain while a breaker keeps the load away. */
export const CAPACITY_PER_SECOND = (MODEL.workers * 1_000) / MODEL.serviceMeanMs;
/** C's spare capacity once the fault is over: jobs per second beyond A's offered load (its drain with the breaker closed). */
export const DRAIN_PER_SECOND = CAPACITY_PER_SECOND - MODEL.offeredPerSecond;

/**
 * `rtoMax`'s inputs for a breaker row's run: its family's mechanics, and what the run had when the fault ended
 * (the breakers' state, C's held jobs). Once the fault is over C is healthy, so probes sent after its backlog
 * drained succeed (`probeSuccessRate` 1); the jobs in service then may still take their slowed service time
 * (at 90 %: ln 10 means; ×50 in the latency scenario).
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
    busyMs: slowdown * r.model.serviceMeanMs * Math.log(10),
    probeSuccessRate: 1,
  };
}

/** `rtoMax` (s; null = ∞) for a breaker row's run. */
export function rtoMaxS(r: RunRecord, family: BreakerFamily): number | null {
  const ms = rtoMax(rtoInputs(r, family));
  return Number.isFinite(ms) ? Math.round(ms / 10) / 100 : null;
}
