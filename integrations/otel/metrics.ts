import { metrics, type Attributes, type ObservableCallback } from '@opentelemetry/api';
import { parseOptions } from '../../lib/schemas.js';
import { OUTCOME_RESULTS } from '../../lib/outcome.js';
import type { OutcomeResult } from '../../lib/events.js';
import { DEFAULT_BUCKETS, watchFigures } from '../shared/figures.js';
import { handleOf, type WatchHandle } from '../shared/handle.js';
import type { Observed } from '../shared/observed.js';
import { limitersOf } from '../shared/limiters.js';
import { errorType } from './error-type.js';
import { OtelOptionsSchema, type OtelOptions } from './options.js';
import { ATTR_ERROR_TYPE, ATTR_KEY, ATTR_OUTCOME, ATTR_POLICY, ATTR_STATE } from './attributes.js';

/** The state attribute's value of each breaker state, in the order of the figures' state numbers (0 closed, 1 open, 2 half-open). */
const STATE_NAMES = ['closed', 'open', 'half_open'] as const;

/** The results that end a call in error for its caller, and so carry `error.type`; a success and an answered call do not. */
const FAILED: ReadonlySet<OutcomeResult> = new Set<OutcomeResult>(['failure', 'timeout', 'rejected', 'cancelled']);

/**
 * Publishes a policy's or pipeline's figures as OpenTelemetry metrics, the
 * same figures as `breakwater/prometheus`, named and measured as the
 * OpenTelemetry semantic conventions ask (UCUM units, durations in seconds,
 * attributes in the `breakwater.` namespace, `error.type` on failed calls):
 *
 * - `breakwater.breaker.state` observable gauge, unit `{breaker}`,
 *   {`breakwater.policy.name`, `breakwater.breaker.state`}: one point per
 *   state (`closed`, `open`, `half_open`), 1 for the state the breaker is in, 0 for the others;
 * - `breakwater.calls` counter, unit `{call}`, {`breakwater.policy.name`,
 *   `breakwater.call.outcome`, `error.type` on failed calls}: outcomes success, failure,
 *   timeout, rejected, cancelled, fallback;
 * - `breakwater.call.duration` histogram, unit `s`, the same attributes
 *   (shed calls are not recorded);
 * - `breakwater.retries` counter, unit `{retry}`, {`breakwater.policy.name`};
 * - for each adaptive concurrency limiter, `breakwater.concurrency.limit` and
 *   `breakwater.concurrency.in_flight` observable gauges, unit `{call}`, {`breakwater.policy.name`}.
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
    const withKey = o.perKey ? { ...a, [ATTR_KEY]: key ?? '' } : a;
    return plain ? withKey : { ...withKey, ...constant };
  };

  const state = meter.createObservableGauge(`${p}breaker.state`, {
    description: 'Breaker state, one point per state: 1 for the current one, 0 for the others.',
    unit: '{breaker}',
  });
  const calls = meter.createCounter(`${p}calls`, {
    description: `Calls handled by a policy, by outcome: ${OUTCOME_RESULTS.join(', ')}.`,
    unit: '{call}',
  });
  const duration = meter.createHistogram(`${p}call.duration`, {
    description: 'Time from a call entering a policy to its settling (shed calls excluded).',
    unit: 's',
    advice: { explicitBucketBoundaries: [...(o.buckets ?? DEFAULT_BUCKETS)] },
  });
  const retries = meter.createCounter(`${p}retries`, { description: 'Retries started by a retry policy.', unit: '{retry}' });

  const states = new Map<string, { policy: string; key: string | undefined; value: number }>();
  const report: ObservableCallback = (result) => {
    for (const s of states.values()) {
      for (let i = 0; i < STATE_NAMES.length; i++) result.observe(i === s.value ? 1 : 0, attrs({ [ATTR_POLICY]: s.policy, [ATTR_STATE]: STATE_NAMES[i]! }, s.key));
    }
  };
  state.addCallback(report);

  const sub = watchFigures(
    target,
    {
      state: (policy, value, key) => void states.set(`${policy}\u0000${key ?? ''}`, { policy, key, value }),
      call(policy, result, seconds, key, error) {
        const a = attrs(
          FAILED.has(result) ? { [ATTR_POLICY]: policy, [ATTR_OUTCOME]: result, [ATTR_ERROR_TYPE]: errorType(error) } : { [ATTR_POLICY]: policy, [ATTR_OUTCOME]: result },
          key,
        );
        calls.add(1, a);
        if (seconds !== undefined) duration.record(seconds, a);
      },
      retry: (policy, key) => retries.add(1, attrs({ [ATTR_POLICY]: policy }, key)),
    },
    o.perKey,
  );
  const limiters = limitersOf(target);
  const gauge = (name: string, description: string) => (limiters.length === 0 ? undefined : meter.createObservableGauge(`${p}${name}`, { description, unit: '{call}' }));
  const limitGauge = gauge('concurrency.limit', 'Calls an adaptive concurrency limiter admits at once now.');
  const flightGauge = gauge('concurrency.in_flight', 'Calls in flight under an adaptive concurrency limiter now.');
  const reportLimits: ObservableCallback = (result) => {
    for (const l of limiters) result.observe(l.limit, plain ? { [ATTR_POLICY]: l.name } : { [ATTR_POLICY]: l.name, ...constant });
  };
  const reportFlight: ObservableCallback = (result) => {
    for (const l of limiters) result.observe(l.inFlight, plain ? { [ATTR_POLICY]: l.name } : { [ATTR_POLICY]: l.name, ...constant });
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
