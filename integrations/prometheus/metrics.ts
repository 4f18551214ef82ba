import { Counter, Gauge, Histogram, Registry, register as globalRegistry } from 'prom-client';
import { ConfigError } from '../../lib/errors.js';
import type { OutcomeResult } from '../../lib/events.js';
import { parseOptions } from '../../lib/schemas.js';
import { OUTCOME_RESULTS } from '../../lib/outcome.js';
import { DEFAULT_BUCKETS, watchFigures, type FigureSink } from '../shared/figures.js';
import { handleOf, type WatchHandle } from '../shared/handle.js';
import { breakersOf, policyNamesOf, type Observed } from '../shared/observed.js';
import { limitersOf } from '../shared/limiters.js';
import { acquire, release } from './families.js';
import { registerLimiterGauges } from './limiters.js';
import { PrometheusOptionsSchema, type PrometheusOptions } from './options.js';

type Labels = Record<string, string>;

/** The `state` label of each breaker state, in the order of the figures' state numbers (0 closed, 1 open, 2 half-open). */
const STATE_NAMES = ['closed', 'open', 'half_open'] as const;
interface Inc {
  inc(): void;
}
interface Observe {
  observe(value: number): void;
}

/**
 * Publishes a policy's or pipeline's figures on a prom-client registry:
 *
 * - `breakwater_breaker_state{policy,state}` gauge, one series per state (`closed`, `open`, `half_open`):
 *   1 for the state the breaker is in, 0 for the others (so `max by (state)` and alerts on `state="open"` need no
 *   mapping of numbers);
 * - `breakwater_calls_total{policy,result}` counter: success, failure, timeout, rejected, cancelled, fallback;
 * - `breakwater_call_duration_seconds{policy}` histogram (shed calls are not observed: they did no work);
 * - `breakwater_retries_total{policy}` counter;
 * - for each adaptive concurrency limiter, `breakwater_concurrency_limit{policy}`
 *   and `breakwater_concurrency_in_flight{policy}` gauges, read at each scrape.
 *
 * Two policies of one name on one registry share every series (their figures add up as one policy's): the
 * second registration of a name emits a process warning (`BREAKWATER_DUPLICATE_POLICY_NAME`), once per registry and
 * name. Every series carries the `labels` given; with `gobreakerAliases`, the
 * gobreaker-style `gobreaker_state{name}` and `gobreaker_calls_total{name,result}` are
 * kept for the breakers too. Several policies may be registered on one
 * registry: they share the metrics. The handle's `dispose()` unsubscribes,
 * drops the breakers' state series, and removes the metrics once the last
 * registration sharing them is disposed.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { registerMetrics } from 'breakwater/prometheus';
 * const registry = new Registry();
 * const metrics = registerMetrics(pipeline, { registry, labels: { service: 'checkout' } });
 * // ... later
 * metrics.dispose();
 * ```
 */
export function registerMetrics(target: Observed, options: PrometheusOptions = {}): WatchHandle {
  const o = parseOptions(PrometheusOptionsSchema, options, 'prometheus');
  const registry = (o.registry ?? globalRegistry) as Registry;
  const exemplars = o.exemplars;
  if (exemplars !== undefined && (o.registry?.contentType ?? globalRegistry.contentType) !== Registry.OPENMETRICS_CONTENT_TYPE) {
    throw new ConfigError('prometheus', [
      { path: 'exemplars', message: 'expected a registry with the OpenMetrics content type (registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE)): only OpenMetrics carries exemplars' },
    ]);
  }
  const constant: Labels = o.labels;
  const extra = Object.keys(constant);
  const keyLabel = o.perKey ? ['key'] : [];
  const p = o.prefix;
  const names: string[] = [];
  const make = <M>(name: string, labelNames: string[], factory: () => M): M => {
    let m: M;
    try {
      m = acquire(registry, name, labelNames, factory);
    } catch (error) {
      // All or nothing: a clash on a later metric leaves none of this registration's metrics behind.
      for (const n of names) release(registry, n);
      throw error;
    }
    names.push(name);
    return m;
  };
  const registers = [registry];

  const stateNames = ['policy', 'state', ...keyLabel, ...extra];
  const state = make(`${p}breaker_state`, stateNames, () =>
    new Gauge({ name: `${p}breaker_state`, help: 'Breaker state, one series per state: 1 for the current one, 0 for the others.', labelNames: stateNames, registers }),
  );
  const callNames = ['policy', 'result', ...keyLabel, ...extra];
  const calls = make(`${p}calls_total`, callNames, () =>
    new Counter({
      name: `${p}calls_total`,
      help: `Calls handled by a policy, by result: ${OUTCOME_RESULTS.join(', ')}.`,
      labelNames: callNames,
      registers,
    }),
  );
  const durationNames = ['policy', ...keyLabel, ...extra];
  // A family with exemplars and one without are different metrics: the exemplar flag is part of what must match.
  const duration = make(`${p}call_duration_seconds`, exemplars === undefined ? durationNames : [...durationNames, '+exemplars'], () =>
    new Histogram({
      name: `${p}call_duration_seconds`,
      help: 'Time from a call entering a policy to its settling, in seconds (shed calls excluded).',
      labelNames: durationNames,
      buckets: [...(o.buckets ?? DEFAULT_BUCKETS)],
      registers,
      enableExemplars: exemplars !== undefined,
    }),
  );
  const retries = make(`${p}retries_total`, durationNames, () =>
    new Counter({ name: `${p}retries_total`, help: 'Retries started by a retry policy.', labelNames: durationNames, registers }),
  );

  const aliasState = o.gobreakerAliases
    ? make('gobreaker_state', ['name', ...extra], () =>
        new Gauge({
          name: 'gobreaker_state',
          help: 'Current state of circuit breaker (0=Closed, 1=Open, 2=HalfOpen)',
          labelNames: ['name', ...extra],
          registers,
        }),
      )
    : undefined;
  const aliasCalls = o.gobreakerAliases
    ? make('gobreaker_calls_total', ['name', 'result', ...extra], () =>
        new Counter({
          name: 'gobreaker_calls_total',
          help: 'Circuit breaker calls by result: success, failure, rejected.',
          labelNames: ['name', 'result', ...extra],
          registers,
        }),
      )
    : undefined;

  const breakers = new Set(breakersOf(target).map((b) => b.name));
  const stated = new Set<string>();
  const stateSeries = new Map<string, Labels>();
  const counters = new Map<string, Map<string, Inc>>();
  const retryCounters = new Map<string, Inc>();
  const histograms = new Map<string, Observe>();
  const withConstant = (labels: Labels): Labels => (extra.length === 0 ? labels : { ...labels, ...constant });
  const withKey = (labels: Labels, key: string | undefined): Labels => (o.perKey ? { ...labels, key: key ?? '' } : labels);

  const sink: FigureSink = {
    state(policy, value, key) {
      if (key === undefined) stated.add(policy);
      const id = `${policy}\u0000${key ?? ''}`;
      let labels = stateSeries.get(id);
      if (labels === undefined) stateSeries.set(id, (labels = withKey(withConstant({ policy }), key)));
      for (let i = 0; i < STATE_NAMES.length; i++) state.set({ ...labels, state: STATE_NAMES[i]! }, i === value ? 1 : 0);
      if (key === undefined) aliasState?.set(withConstant({ name: policy }), value);
    },
    call(policy, result, seconds, key) {
      // Nested maps keyed by interned strings: no string built per event unless perKey.
      let byResult = counters.get(policy);
      if (byResult === undefined) counters.set(policy, (byResult = new Map()));
      const id = key === undefined ? result : `${result}\u0000${key}`;
      let c = byResult.get(id);
      if (c === undefined) byResult.set(id, (c = calls.labels(withKey(withConstant({ policy, result }), key))));
      c.inc();
      if (seconds !== undefined && exemplars !== undefined) {
        duration.observe({ labels: withKey(withConstant({ policy }), key), value: seconds, exemplarLabels: exemplars() ?? {} });
      } else if (seconds !== undefined) {
        const hid = key === undefined ? policy : `${policy}\u0000${key}`;
        let h = histograms.get(hid);
        if (h === undefined) histograms.set(hid, (h = duration.labels(withKey(withConstant({ policy }), key))));
        h.observe(seconds);
      }
      if (aliasCalls !== undefined && (breakers.has(policy) || stated.has(policy))) {
        const r = gobreakerResult(result);
        if (r !== undefined) aliasCalls.inc(withConstant({ name: policy, result: r }));
      }
    },
    retry(policy, key) {
      const id = key === undefined ? policy : `${policy}\u0000${key}`;
      let c = retryCounters.get(id);
      if (c === undefined) retryCounters.set(id, (c = retries.labels(withKey(withConstant({ policy }), key))));
      c.inc();
    },
  };

  const named = claimNames(registry, policyNamesOf(target));
  const sub = watchFigures(target, sink, o.perKey);
  const limiters = limitersOf(target);
  const dropLimiters = limiters.length === 0 ? undefined : registerLimiterGauges(registry, p, ['policy', ...extra], (policy) => withConstant({ policy }), limiters);
  return handleOf(sub, () => {
    dropLimiters?.();
    for (const labels of stateSeries.values()) for (const name of STATE_NAMES) state.remove({ ...labels, state: name });
    for (const policy of stated) aliasState?.remove(withConstant({ name: policy }));
    for (const name of names) release(registry, name);
    releaseNames(registry, named);
  });
}

// How many registrations on each registry publish each policy name: two policies of one name share every series, so
// their figures add up as if they were one. Warned once per registry and name.
const namesByRegistry = new WeakMap<Registry, { count: Map<string, number>; warned: Set<string> }>();

function claimNames(registry: Registry, policyNames: readonly string[]): readonly string[] {
  let book = namesByRegistry.get(registry);
  if (book === undefined) namesByRegistry.set(registry, (book = { count: new Map(), warned: new Set() }));
  for (const name of policyNames) {
    const n = (book.count.get(name) ?? 0) + 1;
    book.count.set(name, n);
    if (n > 1 && !book.warned.has(name)) {
      book.warned.add(name);
      process.emitWarning(
        `two policies named "${name}" publish on one prom-client registry: their figures are added together as one policy's. Give each policy its own name.`,
        { code: 'BREAKWATER_DUPLICATE_POLICY_NAME' },
      );
    }
  }
  return policyNames;
}

function releaseNames(registry: Registry, policyNames: readonly string[]): void {
  const book = namesByRegistry.get(registry);
  if (book === undefined) return;
  for (const name of policyNames) {
    const n = (book.count.get(name) ?? 1) - 1;
    if (n <= 0) book.count.delete(name);
    else book.count.set(name, n);
  }
}

/**
 * gobreaker's three results: a timeout is a failure, as gobreaker counts it.
 * A fallback's answer and the caller's own cancellation are not counted: a
 * breaker never answers a call, and records nothing for a cancelled one
 * (gobreaker's counts are the ones its breaker decides on).
 */
function gobreakerResult(result: OutcomeResult): 'success' | 'failure' | 'rejected' | undefined {
  if (result === 'timeout') return 'failure';
  if (result === 'fallback' || result === 'cancelled') return undefined;
  return result;
}
