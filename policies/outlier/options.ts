import type { Clock } from '../../lib/clock.js';
import { array, atLeast, atMost, clock, defineRule, intAtLeast, name, nonEmptyString, number, object, optional, positiveMs, predicate, refined, withDefault } from '../../lib/options.js';

/**
 * Options of {@link outlierDetection}. The defaults are Envoy's: 5 consecutive
 * failures eject a host for 30 s × the times it was ejected (at most 300 s), at
 * most 10 % of the pool at once (but one host even when 10 % rounds to 0).
 * @example
 * ```ts
 * outlierDetection({ hosts: ['10.0.0.1:8080', '10.0.0.2:8080', '10.0.0.3:8080'], consecutiveFailures: 3 });
 * ```
 */
export interface OutlierDetectionOptions {
  /** The pool: the hosts calls go to, each named once. `setHosts` changes it later. */
  hosts: readonly string[];
  /**
   * Failures in a row (no success between) that eject a host.
   * @defaultValue 5
   */
  consecutiveFailures?: number | undefined;
  /**
   * How long a host's first ejection lasts; its n-th lasts n times as long (at most `maxEjectionMs`).
   * @defaultValue 30000
   */
  baseEjectionMs?: number | undefined;
  /**
   * The longest an ejection lasts, however often the host was ejected (at least `baseEjectionMs` is used).
   * @defaultValue 300000
   */
  maxEjectionMs?: number | undefined;
  /**
   * Each whole interval a host spends back in the pool takes one off the count of its ejections, so a host that
   * recovered is judged by its base ejection time again.
   * @defaultValue 10000
   */
  intervalMs?: number | undefined;
  /**
   * The most hosts ejected at once, as a percentage of the pool; when it rounds down to 0, one host may still be
   * ejected (a pool of 2 to 9 hosts at 10 %).
   * @defaultValue 10
   */
  maxEjectionPercent?: number | undefined;
  /**
   * The `ctx.meta` key that names a call's host: a call that carries one goes to that host; a call without one gets
   * the host {@link OutlierDetectionPolicy.pick} gives, set in `ctx.meta` for the operation.
   * @defaultValue `'host'`
   */
  hostKey?: string | undefined;
  /**
   * Which thrown errors count against the host.
   * @defaultValue every error but a shed rejection and the caller's own cancellation
   */
  handle?: ((error: unknown) => boolean) | undefined;
  /**
   * Which returned values count against the host (e.g. a `Response` with status >= 500).
   * @defaultValue none
   */
  handleResult?: ((result: unknown) => boolean) | undefined;
  /**
   * The policy's name in events and metrics.
   * @defaultValue `'outlierDetection'`
   */
  name?: string | undefined;
  /**
   * The clock of ejection times.
   * @defaultValue the system clock
   */
  clock?: Clock | undefined;
}

const PERCENT = 'expected a number from 0 to 100';
const HOST = 'expected a host name (a non-empty string)';

/** The rule of a pool: host names, at least one, each once. */
export const hostsRule = /* @__PURE__ */ defineRule(() => refined(array(nonEmptyString(HOST)), (hosts, add) => {
  if (hosts.length === 0) add('expected at least one host');
  const seen = new Set<string>();
  hosts.forEach((h, i) => {
    if (seen.has(h)) add(`expected each host once (${h} repeats)`, [i]);
    seen.add(h);
  });
}));

/** The rules of {@link OutlierDetectionOptions} (`OutlierDetectionOptionsSchema` in `breakwater/config` says the same). */
export const outlierDetectionOptions = /* @__PURE__ */ defineRule(() => object({
  hosts: hostsRule,
  consecutiveFailures: withDefault(intAtLeast(1), 5),
  baseEjectionMs: withDefault(positiveMs, 30_000),
  maxEjectionMs: withDefault(positiveMs, 300_000),
  intervalMs: withDefault(positiveMs, 10_000),
  maxEjectionPercent: withDefault(number(PERCENT, atLeast(0, PERCENT), atMost(100, PERCENT)), 10),
  hostKey: withDefault(name, 'host'),
  handle: optional(predicate),
  handleResult: optional(predicate),
  name: withDefault(name, 'outlierDetection'),
  clock: optional(clock),
}));
