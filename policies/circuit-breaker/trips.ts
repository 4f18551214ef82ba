import { judge } from '../../lib/judge.js';
import { riskScore } from '../../lib/risk.js';
import { dynamicThreshold } from '../../lib/sla.js';
import type { CircuitBreakerStats, ResolvedCircuitBreakerOptions } from './options.js';

/** Sentinel's `Float64Equals` tolerance for ratio thresholds. */
export const RATIO_TOLERANCE = 1e-8;

/** Sentinel: a ratio meets its threshold when above it or within 1e-8 of it. */
export function meets(ratio: number, threshold: number): boolean {
  return ratio > threshold || Math.abs(ratio - threshold) < RATIO_TOLERANCE;
}

/** The risk score of `lib/sla.ts` under its first name, kept importable from here; prefer `dynamicRiskScore` of `breakwater/sla`. */
export { dynamicThreshold };

/**
 * The trip rules of `CircuitBreakerPolicy`, one per value of its
 * `trip` option (held under `strategy` once resolved): the figure that trips the breaker (a ratio or a count),
 * or `NaN` when the rule does not trip. `minRequests` (cut to the size of a
 * count window) gates every rule but `consecutiveFailures`.
 */
export function tripFigure(
  o: ResolvedCircuitBreakerOptions,
  total: number,
  failures: number,
  slow: number,
  consecutiveFailures: number,
  probeSuccessRate: number,
  source: { stats(): CircuitBreakerStats },
): number {
  if (o.strategy === 'consecutiveFailures') return consecutiveFailures >= o.threshold ? consecutiveFailures : NaN;
  // resilience4j: a count window cuts minimumNumberOfCalls to its size, or a large minimum could never be met.
  const w = o.window;
  if (total < (w !== undefined && w.size < o.minRequests ? w.size : o.minRequests)) return NaN;
  switch (o.strategy) {
    case 'errorRatio': {
      const ratio = failures / total;
      return meets(ratio, o.threshold) ? ratio : NaN;
    }
    case 'slowCallRatio': {
      const ratio = slow / total;
      return meets(ratio, o.threshold) ? ratio : NaN;
    }
    case 'errorCount':
      return failures >= o.threshold ? failures : NaN;
    case 'dynamicThreshold': {
      // A window without failures never trips, however high the load (and minRequests 0 leaves 0/0).
      if (failures === 0) return NaN;
      const errorRate = failures / total;
      const rps = (total * 1000) / o.windowMs;
      // A risk score against a fixed threshold: load and failed probes make the breaker less tolerant.
      const score = riskScore(o.weights.rps, o.weights.errorRate, o.weights.probe, rps, o.baseRps, errorRate, probeSuccessRate);
      return meets(score, o.threshold) ? score : NaN;
    }
    case 'custom':
      // A throwing predicate counts as "trip", like a throwing `handle` counts as a failure.
      return judge(o.readyToTrip as (s: never) => boolean, source.stats()) ? total : NaN;
  }
}
