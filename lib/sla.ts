/**
 * Availability, recovery-time, retry-budget and degradation formulas, as pure
 * functions: each states the assumptions it makes, and where the example
 * tables usually published with a formula disagree with it, the formula is
 * implemented and the difference is named.
 * Imported as `breakwater/sla`.
 * @packageDocumentation
 */

/** One part of a combined architecture: its own availability and how much its failure domain overlaps the others'. */
export interface AvailabilityPart {
  /** The part's availability in [0, 1], e.g. 0.999. */
  readonly availability: number;
  /** The failure-domain overlap coefficient α in [0, 1] (e.g. 0.32 for two data centres in one city, 0.08 across clouds). */
  readonly overlap: number;
}

function checkUnit(name: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must lie in [0, 1], got ${value}`);
}

/**
 * Availability of redundant parts combined: `1 − Π_i ((1 − SLA_i) × α_i)`.
 * Assumes the parts fail only together, each with
 * probability `(1 − SLA_i)` scaled by how much its failure domain overlaps the
 * others' (α = 1: fully shared domain, α = 0: independent). With one part of
 * α = 1 it is that part's availability.
 *
 * @example
 * ```ts
 * combinedAvailability([{ availability: 0.999, overlap: 0.32 }, { availability: 0.999, overlap: 0.32 }]); // 0.9999998976
 * ```
 */
export function combinedAvailability(parts: readonly AvailabilityPart[]): number {
  if (parts.length === 0) throw new RangeError('combinedAvailability needs at least one part');
  let unavailable = 1;
  for (const [i, p] of parts.entries()) {
    checkUnit(`parts[${i}].availability`, p.availability);
    checkUnit(`parts[${i}].overlap`, p.overlap);
    unavailable *= (1 - p.availability) * p.overlap;
  }
  return 1 - unavailable;
}

/** A breaker's state, as the RTO formula reads it. */
export type BreakerStateForRto = 'open' | 'half-open' | 'closed';

/** Inputs of {@link rtoMax}. */
export interface RtoInputs {
  /** The breaker's state when recovery starts. */
  readonly state: BreakerStateForRto;
  /** Time from the first failures to the breaker taking effect, ms. */
  readonly errorLatencyMs: number;
  /** Share of probes that succeed (per probe round), in [0, 1]. */
  readonly recoveryRate: number;
  /** Wait before probing starts, by state. @defaultValue `{ open: 6000, 'half-open': 1000, closed: 0 }` */
  readonly baseDelayMs?: Partial<Record<BreakerStateForRto, number>>;
  /** Probe rounds the formula converges over. @defaultValue 3 */
  readonly probes?: number;
}

/** The default waits before recovery can start, by breaker state (ms): 6 s open, 1 s half-open, none closed. */
export const RTO_BASE_DELAY_MS: Readonly<Record<BreakerStateForRto, number>> = Object.freeze({
  open: 6000,
  'half-open': 1000,
  closed: 0,
});

/**
 * The longest recovery time to expect after a breaker trips:
 * `baseDelay(state) + errorLatency / (1 − (1 − recoveryRate)^probes)`.
 * The denominator is the chance that at least one of `probes` probes
 * succeeds; `Infinity` when `recoveryRate <= 0` (nothing ever recovers).
 * Assumes probes succeed independently with the same rate.
 *
 * @example
 * ```ts
 * rtoMax({ state: 'open', errorLatencyMs: 2_000, recoveryRate: 0.5 }); // 6000 + 2000 / 0.875 ≈ 8285.7
 * ```
 */
export function rtoMax(inputs: RtoInputs): number {
  const { state, errorLatencyMs, recoveryRate, probes = 3 } = inputs;
  if (!(errorLatencyMs >= 0)) throw new RangeError(`errorLatencyMs must be >= 0, got ${errorLatencyMs}`);
  if (!(Number.isInteger(probes) && probes >= 1)) throw new RangeError(`probes must be an integer >= 1, got ${probes}`);
  const base = inputs.baseDelayMs?.[state] ?? RTO_BASE_DELAY_MS[state];
  if (!(recoveryRate > 0)) return Infinity;
  const rate = Math.min(1, recoveryRate);
  return base + errorLatencyMs / (1 - (1 - rate) ** probes);
}

/** Inputs of {@link sloRetryBudget}. */
export interface SloRetryBudgetInputs {
  /** The live p99 latency of the call, ms. */
  readonly p99Ms: number;
  /** The SLO window, ms. @defaultValue 60_000 */
  readonly sloWindowMs?: number;
  /** Share of the window retries may spend. @defaultValue 0.1 */
  readonly fraction?: number;
  /** Hard cap. @defaultValue 3 */
  readonly maxRetries?: number;
}

/**
 * Retries one call may make so that retrying spends at most `fraction` of the
 * SLO window:
 * `min(maxRetries, floor(fraction × sloWindowMs / max(100, 2 × p99)))`.
 * Each attempt is assumed to cost twice the p99 (never under 100 ms).
 *
 * The example table often published with this formula (p99 200 ms → 1
 * retry, 600 ms → 0) does not follow from it: with the defaults both give 3. The formula is what
 * is implemented: the budget first drops below 3 at p99 > 1,000 ms and
 * reaches 0 above 3,000 ms.
 *
 * @example
 * ```ts
 * sloRetryBudget({ p99Ms: 1_500 }); // floor(6000 / 3000) = 2
 * ```
 */
export function sloRetryBudget(inputs: SloRetryBudgetInputs): number {
  const { p99Ms, sloWindowMs = 60_000, fraction = 0.1, maxRetries = 3 } = inputs;
  if (!(p99Ms >= 0)) throw new RangeError(`p99Ms must be >= 0, got ${p99Ms}`);
  const costPerAttempt = Math.max(100, 2 * p99Ms);
  return Math.max(0, Math.min(maxRetries, Math.floor((fraction * sloWindowMs) / costPerAttempt)));
}

/** Signals of {@link dynamicThreshold}. */
export interface DynamicThresholdSignals {
  /** Current requests per second. */
  readonly rps: number;
  /** The historical baseline rps. */
  readonly baseRps: number;
  /** Current error rate in [0, 1]. */
  readonly errorRate: number;
  /** Success rate of the recent half-open probes in [0, 1] (1 when there were none). */
  readonly probeSuccessRate: number;
}

/** Weights of {@link dynamicThreshold}. */
export interface DynamicThresholdWeights {
  /** @defaultValue 0.3 */ readonly rps: number;
  /** @defaultValue 0.5 */ readonly error: number;
  /** @defaultValue 0.2 */ readonly probe: number;
}

/** The default weights: load 0.3, errors 0.5, probe distrust 0.2. */
export const DYNAMIC_THRESHOLD_WEIGHTS: DynamicThresholdWeights = Object.freeze({ rps: 0.3, error: 0.5, probe: 0.2 });

/**
 * The dynamic trip threshold, which rises with load, errors and failed probes:
 * `w.rps·min(1, rps/baseRps) + w.error·errorRate + w.probe·(1 − probeSuccessRate)`;
 * the breaker trips when the error rate exceeds it. Note what the
 * formula implies: the error rate itself raises the threshold with weight
 * 0.5, so with the default weights and no load, an error rate `e` trips only
 * when `e > 0.5e + 0.2(1 − p)`, that is when `e > 0.4(1 − p)`: with healthy
 * probes (p = 1) any error rate above 0 trips once `minRequests` is met.
 *
 * @example
 * ```ts
 * dynamicThreshold({ rps: 500, baseRps: 1_000, errorRate: 0.2, probeSuccessRate: 1 }); // 0.15 + 0.1 + 0 = 0.25
 * ```
 */
export function dynamicThreshold(signals: DynamicThresholdSignals, weights: DynamicThresholdWeights = DYNAMIC_THRESHOLD_WEIGHTS): number {
  const { rps, baseRps, errorRate, probeSuccessRate } = signals;
  if (!(baseRps > 0)) throw new RangeError(`baseRps must be > 0, got ${baseRps}`);
  const load = Math.min(1, Math.max(0, rps) / baseRps);
  return weights.rps * load + weights.error * errorRate + weights.probe * (1 - probeSuccessRate);
}

/** Thresholds of the degradation decision tree ({@link degradeDecision}). */
export interface DegradeThresholds {
  /** Requests per second above which traffic is "high". @defaultValue 5000 */
  readonly qpsHigh: number;
  /** Requests per second above which traffic is "medium". @defaultValue 2000 */
  readonly qpsMid: number;
  /** CPU utilisation (0–1) that degrades under high traffic. @defaultValue 0.85 */
  readonly cpuHigh: number;
  /** CPU utilisation (0–1) that degrades under medium traffic. @defaultValue 0.92 */
  readonly cpuCritical: number;
  /** Downstream healthy ratio (0–1) below which high traffic degrades. @defaultValue 0.9 */
  readonly healthyMin: number;
}

/** The default thresholds: high traffic above 5,000 rps, medium above 2,000; CPU 0.85 and 0.92; healthy ratio 0.9. */
export const DEGRADE_THRESHOLDS: DegradeThresholds = Object.freeze({
  qpsHigh: 5000,
  qpsMid: 2000,
  cpuHigh: 0.85,
  cpuCritical: 0.92,
  healthyMin: 0.9,
});

/** Signals the decision tree reads. */
export interface DegradeSignals {
  /** Requests per second. */
  readonly qps: number;
  /** Process or host CPU utilisation, 0–1. */
  readonly cpu: number;
  /** Downstream healthy (2xx / OK) ratio, 0–1. */
  readonly healthyRatio: number;
}

/**
 * What the tree decided, with the action suggested for the branch:
 * `'shedNonCore'` (high QPS and CPU over `cpuHigh`: break non-core APIs),
 * `'serveFromCache'` (high QPS and an unhealthy downstream: local cache
 * fallback), `'limitAndSample'` (medium QPS and CPU over `cpuCritical`:
 * rate-limit and sample logs), or `'none'`.
 */
export interface DegradeDecision {
  readonly degrade: boolean;
  readonly action: 'none' | 'shedNonCore' | 'serveFromCache' | 'limitAndSample';
}

/**
 * The degradation decision tree over request rate, CPU and downstream health, with its actions. High
 * traffic degrades on hot CPU *or* an unhealthy downstream; medium traffic
 * only on critical CPU (so a sick downstream alone does not cut it off); low
 * traffic never. Comparisons are strict: a CPU of exactly `cpuHigh` does not
 * degrade.
 *
 * @example
 * ```ts
 * degradeDecision({ qps: 6_000, cpu: 0.5, healthyRatio: 0.8 }); // { degrade: true, action: 'serveFromCache' }
 * ```
 */
export function degradeDecision(signals: DegradeSignals, thresholds: DegradeThresholds = DEGRADE_THRESHOLDS): DegradeDecision {
  const { qps, cpu, healthyRatio } = signals;
  if (qps > thresholds.qpsHigh) {
    if (cpu > thresholds.cpuHigh) return { degrade: true, action: 'shedNonCore' };
    if (healthyRatio < thresholds.healthyMin) return { degrade: true, action: 'serveFromCache' };
    return { degrade: false, action: 'none' };
  }
  if (qps > thresholds.qpsMid && cpu > thresholds.cpuCritical) return { degrade: true, action: 'limitAndSample' };
  return { degrade: false, action: 'none' };
}

/**
 * The boolean form of {@link degradeDecision}: whether to degrade at all.
 * @example
 * ```ts
 * shouldDegrade({ qps: 3_000, cpu: 0.95, healthyRatio: 1 }); // true
 * ```
 */
export function shouldDegrade(signals: DegradeSignals, thresholds: DegradeThresholds = DEGRADE_THRESHOLDS): boolean {
  return degradeDecision(signals, thresholds).degrade;
}

/**
 * The number of nines of an availability: 0.999 → 3, 0.9995 → 3.30.
 * @example
 * ```ts
 * availabilityNines(0.9999); // 4
 * ```
 */
export function availabilityNines(availability: number): number {
  checkUnit('availability', availability);
  if (availability === 1) return Infinity;
  return -Math.log10(1 - availability);
}

/** Milliseconds in a 365.25-day year. */
export const YEAR_MS = 365.25 * 24 * 3_600_000;

/**
 * How long a service may be down per `periodMs` and still meet
 * `availability`: 99.99 % over a year is 52.6 minutes.
 * @example
 * ```ts
 * allowedDowntime(0.9999, YEAR_MS) / 60_000; // ≈ 52.6
 * ```
 */
export function allowedDowntime(availability: number, periodMs: number = YEAR_MS): number {
  checkUnit('availability', availability);
  if (!(periodMs > 0)) throw new RangeError(`periodMs must be > 0, got ${periodMs}`);
  return (1 - availability) * periodMs;
}
