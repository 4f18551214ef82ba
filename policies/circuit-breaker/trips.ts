import { judge } from '../../lib/judge.js';
import { dynamicThreshold } from '../../lib/sla.js';
import type { CircuitBreakerStats, ResolvedCircuitBreakerOptions } from './options.js';

/** Sentinel's `Float64Equals` tolerance for ratio thresholds. */
export const RATIO_TOLERANCE = 1e-8;

/** Sentinel: a ratio meets its threshold when above it or within 1e-8 of it. */
export function meets(ratio: number, threshold: number): boolean {
  return ratio > threshold || Math.abs(ratio - threshold) < RATIO_TOLERANCE;
}

/** The dynamic threshold of `lib/sla.ts`, kept importable from here; prefer its object form. */
export { dynamicThreshold };

/**
 * The trip rules of `CircuitBreakerPolicy`, one per value of its
 * `trip` option (held under `strategy` once resolved): the figure that trips the breaker (a ratio or a count),
 * or `NaN` when the rule does not trip. `minRequests` gates every rule but
 * `consecutiveFailures`.
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
  if (total < o.minRequests) return NaN;
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
      // An empty window (minRequests 0) has no error rate; 0/0 must not trip.
      if (total === 0) return NaN;
      const errorRate = failures / total;
      const rps = (total * 1000) / o.windowMs;
      // The positional form: its weights are the option's, and no object is made per check.
      const threshold = dynamicThreshold(o.weights, rps, o.baseRps, errorRate, probeSuccessRate);
      return errorRate > threshold ? errorRate : NaN;
    }
    case 'custom':
      // A throwing predicate counts as "trip", like a throwing `handle` counts as a failure.
      return judge(o.readyToTrip as (s: never) => boolean, source.stats()) ? total : NaN;
  }
}
