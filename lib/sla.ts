/**
 * Availability, recovery-time, retry-budget and degradation formulas, as pure
 * functions: each states the assumptions it makes, and where the example
 * tables usually published with a formula disagree with it, the formula is
 * implemented and the difference is named.
 * Imported as `breakwater/sla`.
 * @packageDocumentation
 */
import { riskScore } from './risk.js';

/**
 * One part of a combined architecture as the published availability formula
 * reads it ({@link combinedAvailabilityAsPublished}): its own availability and
 * how much its failure domain overlaps the others'.
 */
export interface AvailabilityPart {
  /** The part's availability in [0, 1], e.g. 0.999. */
  readonly availability: number;
  /** The failure-domain overlap coefficient α in [0, 1] (e.g. 0.32 for two data centres in one city, 0.08 across clouds). */
  readonly overlap: number;
}

function checkUnit(name: string, value: number): void {
  if (!(value >= 0 && value <= 1)) throw new RangeError(`${name} must lie in [0, 1], got ${value}`);
}

/** Options of {@link combinedAvailability} and {@link redundantAvailability}. */
export interface CommonCauseOptions {
  /**
   * The β-factor in [0, 1]: the share of each part's failures that have a
   * common cause (a shared region, deploy, dependency or bug) and so strike
   * the parts together. Reliability practice uses 0.01–0.1 for redundant
   * hardware; 0 means fully independent parts, 1 fully common-cause.
   * @defaultValue 0
   */
  readonly beta?: number;
}

function checkParts(fn: string, availabilities: readonly number[], beta: number): void {
  if (availabilities.length === 0) throw new RangeError(`${fn} needs at least one part`);
  for (const [i, a] of availabilities.entries()) checkUnit(`availabilities[${i}]`, a);
  checkUnit('beta', beta);
}

/**
 * Availability of a call chain in series (every part must answer, as A → B →
 * C), with common-cause failures modelled by the β-factor:
 * `β · min_i(A_i) + (1 − β) · Π_i A_i`.
 *
 * The β-factor model of reliability engineering (Fleming, 1975; the default
 * common-cause model of IEC 61508-6 Annex D and NUREG/CR-5485) splits each
 * part's failures into a common-cause share β, which strikes the parts
 * together, and an independent share 1 − β. Here that is a mixture: with
 * weight 1 − β the parts fail independently (the chain is up when all are:
 * the product), with weight β their failures coincide (nested, the weaker
 * part's outages covering the stronger's: the chain is as available as its
 * weakest part). Each part keeps its own availability in both branches, so
 * the figure is exact at both ends (β = 0: the product; β = 1: the weakest
 * part) and, for n equal parts of unavailability q, matches the β-factor's
 * rare-event figure `(1 − β)·n·q + β·q` to first order in q. Common causes
 * help a series chain: shared outages overlap instead of adding up.
 *
 * @example
 * ```ts
 * combinedAvailability([0.999, 0.999]); // 0.998001 (independent)
 * combinedAvailability([0.999, 0.999], { beta: 0.1 }); // 0.1 × 0.999 + 0.9 × 0.998001 = 0.9981009
 * ```
 */
export function combinedAvailability(availabilities: readonly number[], options?: CommonCauseOptions): number;
/**
 * The published formula with per-part overlap coefficients: the same as
 * {@link combinedAvailabilityAsPublished}, kept for callers of the first form.
 *
 * @deprecated Its α is inverted (α = 0 gives 100 % whatever the parts). Use
 * `combinedAvailability(availabilities, { beta })` for a chain in series,
 * {@link redundantAvailability} for redundant parts, or
 * {@link combinedAvailabilityAsPublished} for the published figure itself.
 * @example
 * ```ts
 * combinedAvailability([{ availability: 0.99, overlap: 1 }]); // 0.99
 * ```
 */
export function combinedAvailability(parts: readonly AvailabilityPart[]): number;
export function combinedAvailability(parts: readonly number[] | readonly AvailabilityPart[], options: CommonCauseOptions = {}): number {
  if (parts.length > 0 && typeof parts[0] === 'object') return combinedAvailabilityAsPublished(parts as readonly AvailabilityPart[]);
  const availabilities = parts as readonly number[];
  const beta = options.beta ?? 0;
  checkParts('combinedAvailability', availabilities, beta);
  let product = 1;
  let weakest = 1;
  for (const a of availabilities) {
    product *= a;
    weakest = Math.min(weakest, a);
  }
  return beta * weakest + (1 - beta) * product;
}

/**
 * Availability of redundant parts (the service is up while any part is: a
 * replica, a second region, a fallback source), with common-cause failures
 * modelled by the β-factor: `1 − (β · min_i(1 − A_i) + (1 − β) · Π_i (1 − A_i))`.
 *
 * The same mixture as {@link combinedAvailability} (the β-factor model of
 * Fleming, 1975, IEC 61508-6 Annex D): with weight 1 − β the parts fail
 * independently (all down: the product of unavailabilities), with weight β
 * together (the group is down when its strongest part is). β = 0 gives the
 * textbook parallel figure, β = 1 the strongest part alone: redundancy buys
 * nothing against a common cause. For two equal parts of unavailability q it
 * is `β·q + (1 − β)·q²`, the β-factor's figure for a 1-out-of-2 group.
 *
 * @example
 * ```ts
 * redundantAvailability([0.999, 0.999], { beta: 0.1 }); // 1 − (0.1 × 0.001 + 0.9 × 0.001²) = 0.9998991
 * ```
 */
export function redundantAvailability(availabilities: readonly number[], options: CommonCauseOptions = {}): number {
  const beta = options.beta ?? 0;
  checkParts('redundantAvailability', availabilities, beta);
  let product = 1;
  let strongest = 1;
  for (const a of availabilities) {
    product *= 1 - a;
    strongest = Math.min(strongest, 1 - a);
  }
  return 1 - (beta * strongest + (1 - beta) * product);
}

/**
 * The combined availability exactly as the source article of the design's
 * SLA chapter publishes it (docs/strategies.md, "SLA formulas"):
 * `1 − Π_i ((1 − SLA_i) × α_i)`, α_i the failure-domain overlap of part i.
 *
 * Kept so its figures can be reproduced, not to be relied on: α works
 * backwards (α = 0, "independent", gives 100 % whatever the parts; one 99 %
 * part with α 0.5 gives 99.5 %, better than the part), and the product of
 * unavailabilities makes a chain of parts more available than any of them.
 * Two parts of 99.9 % with α 0.32 give 1 − 1.024e-7, where the β-factor
 * model gives 0.9998991 for that pair as replicas with β = 0.1
 * ({@link redundantAvailability}): about 1,000× less downtime than it claims.
 *
 * @example
 * ```ts
 * combinedAvailabilityAsPublished([{ availability: 0.999, overlap: 0.32 }, { availability: 0.999, overlap: 0.32 }]); // 0.9999998976
 * ```
 */
export function combinedAvailabilityAsPublished(parts: readonly AvailabilityPart[]): number {
  if (parts.length === 0) throw new RangeError('combinedAvailability needs at least one part');
  let unavailable = 1;
  for (const [i, p] of parts.entries()) {
    checkUnit(`parts[${i}].availability`, p.availability);
    checkUnit(`parts[${i}].overlap`, p.overlap);
    unavailable *= (1 - p.availability) * p.overlap;
  }
  return 1 - unavailable;
}

/** A breaker's state, as the recovery-time formulas read it. */
export type BreakerStateForRto = 'open' | 'half-open' | 'closed';

/** Inputs of the published recovery-time formula ({@link rtoMaxAsPublished}). */
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

/** The published formula's waits before recovery can start, by breaker state (ms): 6 s open, 1 s half-open, none closed. */
export const RTO_BASE_DELAY_MS: Readonly<Record<BreakerStateForRto, number>> = /* @__PURE__ */ Object.freeze({
  open: 6000,
  'half-open': 1000,
  closed: 0,
});

/** What {@link rtoMax} reads: the breaker's mechanics and the dependency's drain when the fault ends. */
export interface RecoveryMechanics {
  /** The breaker's state when the fault ends (`'open'`: it refuses calls; a throttle such as `sreBreaker` is open while it sheds). */
  readonly state: BreakerStateForRto;
  /** How long the breaker stays open before it admits a probe, ms (for a throttle: how long it waits between forced passes). */
  readonly openMs: number;
  /** Time already spent open when the fault ends, ms (0: the whole open period is still ahead). @defaultValue 0 */
  readonly openElapsedMs?: number;
  /** Successful probes in a row the breaker needs to close. @defaultValue 1 */
  readonly probes?: number;
  /** How long one probe round takes, from the breaker admitting probes to their answers, ms. */
  readonly probeRoundMs: number;
  /** The chance that a probe succeeds once the fault is over, in [0, 1]. @defaultValue 1 */
  readonly probeSuccessRate?: number;
  /** Jobs the dependency still holds (queued or running) when the fault ends. @defaultValue 0 */
  readonly backlog?: number;
  /** The dependency's spare capacity: jobs per second it serves beyond the offered load (its drain while the breaker is closed). Needed when `backlog > 0`. */
  readonly drainPerSecond?: number;
  /** The dependency's whole capacity, jobs per second: its drain while an open breaker keeps the load away. @defaultValue `drainPerSecond` */
  readonly capacityPerSecond?: number;
  /** How long the jobs already in service may still take when the fault ends (a slowed dependency's last slow jobs), ms. @defaultValue 0 */
  readonly busyMs?: number;
  /**
   * How long a call may wait behind the dependency's backlog and still be answered in time (the caller's deadline
   * less the call's own service time), ms. With the breaker closed, calls are admitted and queue: a backlog that
   * drains within this costs no failed call, so only what is left of the drain beyond it delays recovery.
   * @defaultValue 0
   */
  readonly waitBudgetMs?: number;
  /** The probability with which the bound holds over the probes' luck, in (0, 1). @defaultValue 0.9 */
  readonly confidence?: number;
}

/**
 * The longest recovery to expect after a fault ends, from the mechanics that
 * delay it, in ms. With `drain(rate) = busyMs + backlog / rate`, the time the
 * dependency needs to finish the work it holds:
 * - closed: `max(0, drain(drainPerSecond) − waitBudgetMs)`: the load keeps
 *   coming, so only the spare capacity works the backlog off, and calls that
 *   can wait out the rest of it are answered in time;
 * - open or half-open:
 *   `max(wait, drain(capacityPerSecond)) + n · probeRound + (n − 1) · openMs`, where
 *   `wait = openMs − openElapsedMs` if open (0 when half-open): the breaker
 *   refuses everything until its open period ends while the dependency, spared
 *   the load, drains at full capacity; then
 *   `n = ⌈ln(1 − confidence) / ln(1 − p^probes)⌉` probe rounds: with probes
 *   that each succeed with chance p, a round closes the breaker with chance
 *   `p^probes`, and a failed round reopens it for another `openMs`. With p = 1, n = 1.
 *
 * `Infinity` when nothing can recover (p = 0, or a backlog with no capacity).
 * The bound covers one breaker and the dependency; a caller that retries,
 * breakers in series, or a windowed trip rule that reopens on old failures
 * can take longer.
 *
 * @example
 * ```ts
 * // open for 5 s, 2 s of it gone; one probe of ~20 ms that always succeeds; 600 queued jobs, 300/s capacity
 * rtoMax({ state: 'open', openMs: 5_000, openElapsedMs: 2_000, probeRoundMs: 20, backlog: 600, drainPerSecond: 100, capacityPerSecond: 300 }); // max(3000, 2000) + 20 = 3020
 * ```
 */
export function rtoMax(mechanics: RecoveryMechanics): number;
/**
 * The published formula: the same as {@link rtoMaxAsPublished}, kept for callers of the first form.
 *
 * @deprecated It neither bounds nor tracks the recovery the lab measures (docs/lab.md). Use
 * `rtoMax({ state, openMs, probeRoundMs, ... })`, or {@link rtoMaxAsPublished} for the published figure.
 * @example
 * ```ts
 * rtoMax({ state: 'open', errorLatencyMs: 2_000, recoveryRate: 0.5 }); // 6000 + 2000 / 0.875 ≈ 8285.7
 * ```
 */
export function rtoMax(inputs: RtoInputs): number;
export function rtoMax(inputs: RecoveryMechanics | RtoInputs): number {
  if ('errorLatencyMs' in inputs) return rtoMaxAsPublished(inputs);
  const { state, openMs, openElapsedMs = 0, probes = 1, probeRoundMs, probeSuccessRate = 1, backlog = 0, drainPerSecond = 0, busyMs = 0, waitBudgetMs = 0, confidence = 0.9 } = inputs;
  const capacityPerSecond = inputs.capacityPerSecond ?? drainPerSecond;
  if (!(openMs >= 0)) throw new RangeError(`openMs must be >= 0, got ${openMs}`);
  if (!(openElapsedMs >= 0)) throw new RangeError(`openElapsedMs must be >= 0, got ${openElapsedMs}`);
  if (!(probeRoundMs >= 0)) throw new RangeError(`probeRoundMs must be >= 0, got ${probeRoundMs}`);
  if (!(Number.isInteger(probes) && probes >= 1)) throw new RangeError(`probes must be an integer >= 1, got ${probes}`);
  checkUnit('probeSuccessRate', probeSuccessRate);
  if (!(backlog >= 0)) throw new RangeError(`backlog must be >= 0, got ${backlog}`);
  if (!(busyMs >= 0)) throw new RangeError(`busyMs must be >= 0, got ${busyMs}`);
  if (!(waitBudgetMs >= 0)) throw new RangeError(`waitBudgetMs must be >= 0, got ${waitBudgetMs}`);
  if (!(confidence > 0 && confidence < 1)) throw new RangeError(`confidence must lie in (0, 1), got ${confidence}`);
  const drain = (perSecond: number): number => busyMs + (backlog === 0 ? 0 : perSecond > 0 ? (backlog / perSecond) * 1_000 : Infinity);
  if (state === 'closed') return Math.max(0, drain(drainPerSecond) - waitBudgetMs);
  const roundSucceeds = probeSuccessRate ** probes;
  if (roundSucceeds === 0) return Infinity;
  const rounds = roundSucceeds === 1 ? 1 : Math.max(1, Math.ceil(Math.log(1 - confidence) / Math.log(1 - roundSucceeds)));
  const wait = state === 'open' ? Math.max(0, openMs - openElapsedMs) : 0;
  return Math.max(wait, drain(capacityPerSecond)) + rounds * probeRoundMs + (rounds - 1) * openMs;
}

/**
 * The recovery-time formula exactly as the source article of the design's
 * SLA chapter publishes it (docs/strategies.md, "SLA formulas"):
 * `baseDelay(state) + errorLatency / (1 − (1 − recoveryRate)^probes)`.
 * The denominator is the chance that at least one of `probes` probes
 * succeeds; `Infinity` when `recoveryRate <= 0` (nothing ever recovers).
 * Kept so its figures can be reproduced: its terms are not the breaker's
 * (a fixed 6 s whatever the open period; the time the breaker took to
 * trip, which does not delay recovery), so it neither bounds nor tracks the
 * recovery the lab measures; {@link rtoMax} is derived from the mechanics.
 *
 * @example
 * ```ts
 * rtoMaxAsPublished({ state: 'open', errorLatencyMs: 2_000, recoveryRate: 0.5 }); // 6000 + 2000 / 0.875 ≈ 8285.7
 * ```
 */
export function rtoMaxAsPublished(inputs: RtoInputs): number {
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
  /** Share of the window retries may spend: per call, of its time; over all calls, of their first attempts. @defaultValue 0.1 */
  readonly fraction?: number;
  /** Hard cap per call. @defaultValue 3 */
  readonly maxRetries?: number;
  /** Retries the asking call has made so far. @defaultValue 0 */
  readonly retriesOfCall?: number;
  /**
   * Calls (first attempts) started over the last `sloWindowMs`, the asking one included. Given with
   * `retriesInWindow`, the budget also bounds the retries of all calls together. @defaultValue no aggregate bound
   */
  readonly callsInWindow?: number;
  /** Retries made by all calls over the last `sloWindowMs`. @defaultValue 0 */
  readonly retriesInWindow?: number;
}

/**
 * Retries a call may still make now so that retrying spends at most
 * `fraction` of the SLO: `min(perCall − retriesOfCall, aggregate)`, at least 0, where
 * - `perCall = min(maxRetries, floor(fraction × sloWindowMs / max(100, 2 × p99)))`:
 *   one call's retries, each assumed to cost twice the p99 (never under
 *   100 ms), fit in `fraction` of the window;
 * - `aggregate = floor(fraction × callsInWindow) − retriesInWindow` (when
 *   `callsInWindow` is given): all calls' retries over the window stay within
 *   `fraction` of the calls.
 *
 * **The bound.** If every retry is made only when this returns ≥ 1, with the
 * counts taken over the sliding window `(t − sloWindowMs, t]`, then over any
 * run the retries number at most `fraction` × the calls, so the dependency
 * sees at most `1 + fraction` attempts per call whatever fails. Proof: each
 * window ending at a retry holds at most `fraction` × its calls in retries
 * (the retry was allowed there); going back from the last retry, the window
 * ending at it, then the window ending at the last retry before that window,
 * and so on, are disjoint and hold every retry, so the retries add up to at
 * most `fraction` × the calls of disjoint windows. The per-call part alone
 * bounds nothing in aggregate: a call whose attempts are cut by a timeout
 * has a small p99, so every call gets its `maxRetries` (3× the load in an
 * outage).
 *
 * The example table often published with the per-call formula (p99 200 ms → 1
 * retry, 600 ms → 0) does not follow from it: with the defaults both give 3. The formula is what
 * is implemented: the per-call budget first drops below 3 at p99 > 1,000 ms and
 * reaches 0 above 3,000 ms.
 *
 * @example
 * ```ts
 * sloRetryBudget({ p99Ms: 1_500 }); // floor(6000 / 3000) = 2
 * sloRetryBudget({ p99Ms: 200, callsInWindow: 1_000, retriesInWindow: 95 }); // min(3, 100 − 95) = 3
 * sloRetryBudget({ p99Ms: 200, callsInWindow: 1_000, retriesInWindow: 100 }); // 0: the window's budget is spent
 * ```
 */
export function sloRetryBudget(inputs: SloRetryBudgetInputs): number {
  const { p99Ms, sloWindowMs = 60_000, fraction = 0.1, maxRetries = 3, retriesOfCall = 0, callsInWindow, retriesInWindow = 0 } = inputs;
  if (!(p99Ms >= 0)) throw new RangeError(`p99Ms must be >= 0, got ${p99Ms}`);
  if (!(retriesOfCall >= 0)) throw new RangeError(`retriesOfCall must be >= 0, got ${retriesOfCall}`);
  const costPerAttempt = Math.max(100, 2 * p99Ms);
  const perCall = Math.min(maxRetries, Math.floor((fraction * sloWindowMs) / costPerAttempt)) - retriesOfCall;
  if (callsInWindow === undefined) return Math.max(0, perCall);
  if (!(callsInWindow >= 0)) throw new RangeError(`callsInWindow must be >= 0, got ${callsInWindow}`);
  if (!(retriesInWindow >= 0)) throw new RangeError(`retriesInWindow must be >= 0, got ${retriesInWindow}`);
  const aggregate = Math.floor(fraction * callsInWindow) - retriesInWindow;
  return Math.max(0, Math.min(perCall, aggregate));
}

/** Signals of {@link dynamicRiskScore}. */
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

/** Weights of {@link dynamicRiskScore}. */
export interface DynamicThresholdWeights {
  /** @defaultValue 0.3 */ readonly rps: number;
  /** @defaultValue 0.5 */ readonly error: number;
  /** @defaultValue 0.2 */ readonly probe: number;
}

/** Weights of {@link dynamicRiskScore} keyed as `circuitBreaker`'s `weights` option (`errorRate` for `error`). */
export interface CircuitBreakerThresholdWeights {
  /** Weight of the load, `min(1, rps / baseRps)`. */
  readonly rps: number;
  /** Weight of the error rate. */
  readonly errorRate: number;
  /** Weight of the probes' distrust, `1 − probeSuccessRate`. */
  readonly probe: number;
}

/** The default weights: load 0.3, errors 0.5, probe distrust 0.2. */
export const DYNAMIC_THRESHOLD_WEIGHTS: DynamicThresholdWeights = /* @__PURE__ */ Object.freeze({ rps: 0.3, error: 0.5, probe: 0.2 });

/**
 * The fixed threshold the risk score is compared with: 0.5. With the default
 * weights a breaker then trips at an error rate of 40 % at full load and
 * healthy probes, 100 % with no load, and at any error once recent probes
 * have all failed at full load.
 */
export const DYNAMIC_RISK_THRESHOLD = 0.5;

/**
 * The risk score of the dynamic trip rule, which rises with load, errors and
 * failed probes:
 * `w.rps·min(1, rps/baseRps) + w.error·errorRate + w.probe·(1 − probeSuccessRate)`,
 * in [0, 1] for weights that add up to 1. It is compared with a fixed
 * threshold ({@link dynamicTrips}): the higher the load and the more recent
 * probes failed, the fewer errors it takes to trip, as the source article of
 * the formula intends ("the lower the probe success, the more easily the
 * breaker trips"). A negative `rps` counts as no load.
 *
 * @example
 * ```ts
 * dynamicRiskScore({ rps: 500, baseRps: 1_000, errorRate: 0.2, probeSuccessRate: 1 }); // 0.15 + 0.1 + 0 = 0.25
 * ```
 */
export function dynamicRiskScore(signals: DynamicThresholdSignals, weights: DynamicThresholdWeights | CircuitBreakerThresholdWeights = DYNAMIC_THRESHOLD_WEIGHTS): number {
  if (!(signals.baseRps > 0)) throw new RangeError(`baseRps must be > 0, got ${signals.baseRps}`);
  const wError = 'error' in weights ? weights.error : weights.errorRate;
  return riskScore(weights.rps, wError, weights.probe, signals.rps, signals.baseRps, signals.errorRate, signals.probeSuccessRate);
}

/** Options of {@link dynamicTrips}. */
export interface DynamicTripOptions {
  /** The fixed threshold the risk score must reach. @defaultValue {@link DYNAMIC_RISK_THRESHOLD} (0.5) */
  readonly threshold?: number;
  /** The score's weights. @defaultValue {@link DYNAMIC_THRESHOLD_WEIGHTS} */
  readonly weights?: DynamicThresholdWeights | CircuitBreakerThresholdWeights;
}

/**
 * Whether the dynamic rule trips: the window has errors and its
 * {@link dynamicRiskScore} reaches the fixed `threshold` (within 1e-8, as
 * ratio thresholds are compared). A window without errors never trips, however
 * high the load and however distrusted the probes.
 *
 * @example
 * ```ts
 * dynamicTrips({ rps: 100, baseRps: 100, errorRate: 0.4, probeSuccessRate: 1 }); // 0.3 + 0.2 = 0.5: true
 * dynamicTrips({ rps: 10, baseRps: 100, errorRate: 0.4, probeSuccessRate: 1 }); // 0.03 + 0.2 = 0.23: false
 * ```
 */
export function dynamicTrips(signals: DynamicThresholdSignals, options: DynamicTripOptions = {}): boolean {
  const { threshold = DYNAMIC_RISK_THRESHOLD, weights = DYNAMIC_THRESHOLD_WEIGHTS } = options;
  checkUnit('threshold', threshold);
  if (!(signals.errorRate > 0)) return false;
  const score = dynamicRiskScore(signals, weights);
  return score > threshold || Math.abs(score - threshold) < 1e-8;
}

/**
 * The risk score under its first name: the same figure as {@link dynamicRiskScore}.
 *
 * @deprecated The figure is a risk score, to be compared with a fixed
 * threshold ({@link dynamicTrips}); comparing the error rate against it, as
 * its name suggests, works backwards (more tolerant under load and after
 * failed probes). Use {@link dynamicRiskScore}.
 * @example
 * ```ts
 * dynamicThreshold({ rps: 500, baseRps: 1_000, errorRate: 0.2, probeSuccessRate: 1 }); // 0.25
 * ```
 */
export function dynamicThreshold(signals: DynamicThresholdSignals, weights?: DynamicThresholdWeights): number;
/**
 * The same score with positional signals and the `circuitBreaker`
 * option's weight keys (`errorRate` for `error`); `baseRps` is not checked.
 *
 * @deprecated Use `dynamicRiskScore({ rps, baseRps, errorRate, probeSuccessRate }, weights)`.
 * @example
 * ```ts
 * dynamicThreshold({ rps: 0.3, errorRate: 0.5, probe: 0.2 }, 500, 1_000, 0.2, 1); // 0.25
 * ```
 */
export function dynamicThreshold(weights: CircuitBreakerThresholdWeights, rps: number, baseRps: number, errorRate: number, probeSuccessRate: number): number;
export function dynamicThreshold(
  first: DynamicThresholdSignals | CircuitBreakerThresholdWeights,
  second?: DynamicThresholdWeights | number,
  baseRps?: number,
  errorRate?: number,
  probeSuccessRate?: number,
): number {
  if (typeof second === 'number') {
    const w = first as CircuitBreakerThresholdWeights;
    return riskScore(w.rps, w.errorRate, w.probe, second, baseRps!, errorRate!, probeSuccessRate!);
  }
  return dynamicRiskScore(first as DynamicThresholdSignals, second);
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
export const DEGRADE_THRESHOLDS: DegradeThresholds = /* @__PURE__ */ Object.freeze({
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
