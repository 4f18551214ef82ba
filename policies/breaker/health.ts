import type { BreakerHealth } from './breaker.js';

/** What {@link healthReport} gives: every breaker's health, and one word for all of them. */
export interface HealthReport {
  /**
   * `'up'` when every breaker admits calls (closed, or let through by a `disabled` or `metricsOnly` control);
   * `'degraded'` when at least one sheds (open, half-open, or forced open): a dependency is sick, not this service.
   */
  readonly status: 'up' | 'degraded';
  /** Each breaker's health, in pipeline order (a keyed breaker's breakers by key, least recently used first). */
  readonly breakers: readonly BreakerHealth[];
}

/** True for what a breaker's `health()` returns. */
function isBreakerHealth(v: unknown): v is BreakerHealth {
  return typeof v === 'object' && v !== null && typeof (v as BreakerHealth).state === 'string' && typeof (v as BreakerHealth).control === 'string';
}

/** Adds every breaker health found in `v` (one, a list, or a registry's `{ breakers: { key: health } }`) to `out`. */
function collectInto(v: unknown, out: BreakerHealth[]): void {
  if (isBreakerHealth(v)) out.push(v);
  else if (Array.isArray(v)) for (const x of v) collectInto(x, out);
  else if (typeof v === 'object' && v !== null && typeof (v as { breakers?: unknown }).breakers === 'object') {
    for (const x of Object.values((v as { breakers: object }).breakers)) collectInto(x, out);
  }
}

/**
 * The health of `target` (a breaker, a keyed breaker, a registry, or a pipeline: anything with `health()`) as
 * one report: each breaker's state, control, window figures and last state change, and a status for all. What
 * `breakwater/http`'s `healthHandler` serves.
 *
 * @example
 * ```ts
 * const report = healthReport(pipeline);
 * if (report.status === 'degraded') log.warn(report.breakers.filter((b) => b.state !== 'closed'));
 * ```
 */
export function healthReport(target: { health(): unknown }): HealthReport {
  const breakers: BreakerHealth[] = [];
  collectInto(target.health(), breakers);
  const sheds = breakers.some((b) => b.control === 'forcedOpen' || (b.control === 'enforcing' && b.state !== 'closed'));
  return { status: sheds ? 'degraded' : 'up', breakers };
}
