import { checkOptions } from '../lib/options.js';
import { rtoMax, type RecoveryMechanics } from '../lib/sla.js';
import { adaptiveBreakerOptions } from '../policies/adaptive-breaker/options.js';
import { circuitBreakerOptions } from '../policies/circuit-breaker/options.js';
import { MODEL } from './model.js';
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

/** An answer of C takes at most about this long outside a backlog: the p99 of its exponential service time. */
const ANSWER_MS = MODEL.serviceMeanMs * Math.log(100);

/**
 * The open period, probes and probe round of a family, in the lab's model:
 * - circuit: `openMs`, then `probes` probes answered by C;
 * - adaptive: open, it lets `probeRatio` of the offered calls through (and one per
 *   `forcePassMs`), so the wait is the gap between probes; the first success starts
 *   a ramp that multiplies the admitted share by `rampFactor` per success, closing
 *   at 1: ⌈log(1/probeRatio) / log(rampFactor)⌉ successes in a row.
 */
export function familyMechanics(family: BreakerFamily): Pick<RecoveryMechanics, 'openMs' | 'probes' | 'probeRoundMs'> {
  if (family === 'circuit') return { openMs: circuit.openMs, probes: circuit.probes, probeRoundMs: ANSWER_MS };
  const gapMs = Math.min(adaptive.forcePassMs, 1_000 / (adaptive.probeRatio * MODEL.offeredPerSecond));
  const probes = Math.ceil(Math.log(1 / adaptive.probeRatio) / Math.log(adaptive.rampFactor));
  return { openMs: gapMs, probes, probeRoundMs: ANSWER_MS };
}

/** C's spare capacity once the fault is over: jobs per second beyond A's offered load. */
export const DRAIN_PER_SECOND = (MODEL.workers * 1_000) / MODEL.serviceMeanMs - MODEL.offeredPerSecond;

/** `rtoMax`'s inputs for a breaker row's run: its family's mechanics and what the run measured when the fault ended. */
export function rtoInputs(r: RunRecord, family: BreakerFamily, probeSuccessRate: number): RecoveryMechanics {
  return {
    ...familyMechanics(family),
    state: r.atFaultEnd.state,
    openElapsedMs: r.atFaultEnd.openElapsedMs,
    backlog: r.atFaultEnd.backlog,
    drainPerSecond: DRAIN_PER_SECOND,
    probeSuccessRate,
  };
}

/** `rtoMax` (s; null = ∞) for a breaker row's run. */
export function rtoMaxS(r: RunRecord, family: BreakerFamily, probeSuccessRate: number): number | null {
  const ms = rtoMax(rtoInputs(r, family, probeSuccessRate));
  return Number.isFinite(ms) ? Math.round(ms / 10) / 100 : null;
}
