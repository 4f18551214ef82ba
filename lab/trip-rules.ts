import { dynamicTrips } from '../lib/sla.js';
import { MODEL, type ScenarioName } from './model.js';

/** A trip rule of the check rows, as given to `circuitBreaker` and as the formula reads it. */
export interface TripRule {
  readonly trip: 'dynamicThreshold' | 'errorRatio';
  /** The risk score (dynamicThreshold) or the error ratio (errorRatio) that trips. */
  readonly threshold: number;
  /** Calls per second at which the load term saturates (dynamicThreshold). */
  readonly baseRps: number;
  readonly windowMs: number;
  readonly buckets: number;
  readonly minRequests: number;
}

const common = { windowMs: 10_000, buckets: 10, minRequests: 20, baseRps: MODEL.offeredPerSecond } as const;

/**
 * The check rows of the dynamic threshold (lab/rows.ts builds them from these): a `circuitBreaker` whose risk
 * score of load, errors and failed probes is compared with a fixed threshold (the seed's intent: at full load,
 * `baseRps` set to A's offered load, it trips at 40 % errors), and the same breaker with a fixed error ratio of
 * 50 % beside it. Both behind the lab's 300 ms attempt timeout, on the breakers' default window (10 s in 1 s
 * buckets, 20 calls at least).
 */
export const TRIP_RULES = Object.freeze({
  dynamicBreaker: { trip: 'dynamicThreshold', threshold: 0.5, ...common },
  ratioBreaker: { trip: 'errorRatio', threshold: 0.5, ...common },
} as const satisfies Record<string, TripRule>);

/** The trip rule of a row, if it is a check row of {@link TRIP_RULES}. */
export function tripRuleOf(row: string): TripRule | undefined {
  return Object.hasOwn(TRIP_RULES, row) ? TRIP_RULES[row as keyof typeof TRIP_RULES] : undefined;
}

/** Where the check rows run: errors at full load (30 %: under both rules' bar) and the capacity drop (timeouts that climb past both). */
export const TRIP_SCENARIOS: readonly ScenarioName[] = Object.freeze(['errors', 'capacityDrop'] as const);

/**
 * When the rule says the breaker should first trip at or after `fromMs`, fed the calls the breaker saw per
 * bucket (`total`: attempts settled at C; `failed`: of them not answered): at the end of each bucket, the
 * window's last `buckets` buckets give the load (`total / windowMs` per second), the error rate and, before any
 * opening, probes all successful (1). Returns the start of the first bucket where it trips, ms, or undefined.
 */
export function formulaTripMs(total: ArrayLike<number>, failed: ArrayLike<number>, rule: TripRule, fromMs: number, toMs: number, bucketMs: number = MODEL.bucketMs): number | undefined {
  for (let k = Math.floor(fromMs / bucketMs); k * bucketMs < toMs && k < total.length; k++) {
    const { calls, failures } = windowAt(total, failed, rule, k, bucketMs);
    if (calls < rule.minRequests || calls === 0) continue;
    const errorRate = failures / calls;
    const trips =
      rule.trip === 'dynamicThreshold'
        ? dynamicTrips({ rps: (calls * 1_000) / rule.windowMs, baseRps: rule.baseRps, errorRate, probeSuccessRate: 1 }, { threshold: rule.threshold })
        : errorRate > rule.threshold || Math.abs(errorRate - rule.threshold) < 1e-8;
    if (trips) return k * bucketMs;
  }
  return undefined;
}

/** The calls and failures of the rule's window at the end of bucket `k`: its last `buckets` buckets. */
function windowAt(total: ArrayLike<number>, failed: ArrayLike<number>, rule: TripRule, k: number, bucketMs: number): { calls: number; failures: number } {
  const span = rule.buckets * Math.round(rule.windowMs / rule.buckets / bucketMs);
  let calls = 0;
  let failures = 0;
  for (let j = Math.max(0, k - span + 1); j <= Math.min(k, total.length - 1); j++) {
    calls += total[j]!;
    failures += failed[j]!;
  }
  return { calls, failures };
}

/** The error rate of the rule's window at the end of the bucket holding `atMs` (0 with no call). */
export function windowErrorRate(total: ArrayLike<number>, failed: ArrayLike<number>, rule: TripRule, atMs: number, bucketMs: number = MODEL.bucketMs): number {
  const { calls, failures } = windowAt(total, failed, rule, Math.floor(atMs / bucketMs), bucketMs);
  return calls === 0 ? 0 : failures / calls;
}
