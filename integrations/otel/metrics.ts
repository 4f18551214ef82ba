import { metrics, type Attributes, type ObservableCallback } from '@opentelemetry/api';
import { parseOptions } from '../../lib/schemas.js';
import { OUTCOME_RESULTS } from '../../lib/outcome.js';
import { DEFAULT_BUCKETS, watchFigures } from '../shared/figures.js';
import { handleOf, type WatchHandle } from '../shared/handle.js';
import type { Observed } from '../shared/observed.js';
import { limitersOf } from '../shared/limiters.js';
import { OtelOptionsSchema, type OtelOptions } from './options.js';

/** The `state` attribute of each breaker state, in the order of the figures' state numbers (0 closed, 1 open, 2 half-open). */
const STATE_NAMES = ['closed', 'open', 'half_open'] as const;

/**
 * Publishes a policy's or pipeline's figures as OpenTelemetry metrics, the
 * same figures as `breakwater/prometheus` under OpenTelemetry names (a
 * Prometheus exporter turns them back into the `breakwater_*` names):
 *
 * - `breakwater.breaker.state` observable gauge {policy, state}, one point per state (`closed`, `open`,
 *   `half_open`): 1 for the state the breaker is in, 0 for the others;
 * - `breakwater.calls` counter {policy, result}: success, failure, timeout, rejected, cancelled, fallback;
 * - `breakwater.call.duration` histogram {policy}, unit `s` (shed calls are not recorded);
 * - `breakwater.retries` counter {policy};
 * - for each adaptive concurrency limiter, `breakwater.concurrency.limit` and
 *   `breakwater.concurrency.in_flight` observable gauges {policy}.
 *
 * `dispose()` unsubscribes and stops reporting the breakers' states.
 *
 * @example
 * ```ts
 * import { metrics } from '@opentelemetry/api';
 * import { registerOtelMetrics } from 'breakwater/otel';
 * const handle = registerOtelMetrics(pipeline, { meter: metrics.getMeter('checkout') });
 * ```
 */
export function registerOtelMetrics(target: Observed, options: OtelOptions = {}): WatchHandle {
  const o = parseOptions(OtelOptionsSchema, options, 'otel');
  const meter = o.meter ?? metrics.getMeter('breakwater');
  const p = o.prefix;
  const constant: Attributes = o.attributes;
  const plain = Object.keys(constant).length === 0;
  const attrs = (a: Attributes, key: string | undefined): Attributes => {
    const withKey = o.perKey ? { ...a, key: key ?? '' } : a;
    return plain ? withKey : { ...withKey, ...constant };
  };

  const state = meter.createObservableGauge(`${p}breaker.state`, { description: 'Breaker state, one point per state: 1 for the current one, 0 for the others.' });
  const calls = meter.createCounter(`${p}calls`, {
    description: `Calls handled by a policy, by result: ${OUTCOME_RESULTS.join(', ')}.`,
  });
  const duration = meter.createHistogram(`${p}call.duration`, {
    description: 'Time from a call entering a policy to its settling (shed calls excluded).',
    unit: 's',
    advice: { explicitBucketBoundaries: [...(o.buckets ?? DEFAULT_BUCKETS)] },
  });
  const retries = meter.createCounter(`${p}retries`, { description: 'Retries started by a retry policy.' });

  const states = new Map<string, { policy: string; key: string | undefined; value: number }>();
  const report: ObservableCallback = (result) => {
    for (const s of states.values()) {
      for (let i = 0; i < STATE_NAMES.length; i++) result.observe(i === s.value ? 1 : 0, attrs({ policy: s.policy, state: STATE_NAMES[i]! }, s.key));
    }
  };
  state.addCallback(report);

  const sub = watchFigures(
    target,
    {
      state: (policy, value, key) => void states.set(`${policy}\u0000${key ?? ''}`, { policy, key, value }),
      call(policy, result, seconds, key) {
        calls.add(1, attrs({ policy, result }, key));
        if (seconds !== undefined) duration.record(seconds, attrs({ policy }, key));
      },
      retry: (policy, key) => retries.add(1, attrs({ policy }, key)),
    },
    o.perKey,
  );
  const limiters = limitersOf(target);
  const limitGauge = limiters.length === 0 ? undefined : meter.createObservableGauge(`${p}concurrency.limit`, { description: 'Calls an adaptive concurrency limiter admits at once now.' });
  const flightGauge = limiters.length === 0 ? undefined : meter.createObservableGauge(`${p}concurrency.in_flight`, { description: 'Calls in flight under an adaptive concurrency limiter now.' });
  const reportLimits: ObservableCallback = (result) => {
    for (const l of limiters) result.observe(l.limit, plain ? { policy: l.name } : { policy: l.name, ...constant });
  };
  const reportFlight: ObservableCallback = (result) => {
    for (const l of limiters) result.observe(l.inFlight, plain ? { policy: l.name } : { policy: l.name, ...constant });
  };
  limitGauge?.addCallback(reportLimits);
  flightGauge?.addCallback(reportFlight);
  return handleOf(sub, () => {
    state.removeCallback(report);
    states.clear();
    limitGauge?.removeCallback(reportLimits);
    flightGauge?.removeCallback(reportFlight);
  });
}
