import { trace, type Attributes, type Span } from '@opentelemetry/api';
import { parseOptions } from '../../lib/schemas.js';
import type { PolicyEvent } from '../../lib/events.js';
import { handleOf, type WatchHandle } from '../shared/handle.js';
import { loose, PolicyNames, type LooseEvent, type Observed } from '../shared/observed.js';
import { Subscription } from 'rxjs';
import { errorType } from './error-type.js';
import { ATTR_ERROR_TYPE, ATTR_KEY, ATTR_OUTCOME, ATTR_POLICY } from './attributes.js';
import { OtelTracingOptionsSchema, type OtelTracingOptions } from './options.js';

/**
 * The span events {@link registerOtelTracing} adds, by name. Attribute names follow the
 * proposal of OpenTelemetry semantic-conventions #2355 (`circuitbreaker.*`,
 * `ratelimiter.*`, `retry.*`, `timeout.*`, `cache.*`) where it names one; the
 * rest are breakwater's own, in the `breakwater.` namespace.
 */
export const SPAN_EVENTS = {
  /** A retry policy's attempt ended: `retry.result` is `retry` (another attempt comes), `success` or `give_up`. */
  attempt: 'breakwater.retry.attempt',
  /** A breaker refused a call. */
  breakerRejected: 'breakwater.breaker.rejected',
  /** A breaker changed state. */
  stateChange: 'breakwater.breaker.state_change',
  /** A rate limiter refused a call. */
  rateLimited: 'breakwater.rate_limiter.rejected',
  /** A bulkhead refused a call (no slot, no queue room). */
  bulkheadRejected: 'breakwater.bulkhead.rejected',
  /** A bulkhead or a leaky bucket queued a call. */
  queued: 'breakwater.queued',
  /** An adaptive concurrency limiter refused a call. */
  concurrencyRejected: 'breakwater.concurrency_limiter.rejected',
  /** A load shedder dropped a call. */
  shed: 'breakwater.load_shedder.shed',
  /** A timeout policy's time ran out. */
  timeout: 'breakwater.timeout',
  /** A fallback answered a failed call. */
  fallback: 'breakwater.fallback',
  /** Every fallback handler failed too. */
  fallbackFailed: 'breakwater.fallback.failed',
  /** A hedge policy started another attempt. */
  hedged: 'breakwater.hedge.attempt',
  /** A cache answered or missed. */
  cache: 'breakwater.cache',
  /** Chaos injected a fault, latency or result. */
  injected: 'breakwater.chaos.injected',
  /** `degrade` took an action. */
  degraded: 'breakwater.degraded',
  /** One per call per policy, with its outcome; only with the `outcomes` option. */
  outcome: 'breakwater.call',
} as const;

/** The state names on spans, as on the metrics: `half-open` is written `half_open`. */
function stateName(state: unknown): string {
  return state === 'half-open' ? 'half_open' : String(state);
}

/** Seconds of a millisecond figure, the conventions' unit for durations. */
function seconds(ms: unknown): number | undefined {
  return typeof ms === 'number' && Number.isFinite(ms) ? ms / 1000 : undefined;
}

/** Adds `name` = `value` to `a` when `value` is defined. */
function put(a: Attributes, name: string, value: string | number | boolean | undefined): void {
  if (value !== undefined) a[name] = value;
}

/**
 * The span event of one policy event: its name and attributes, or `undefined`
 * for events that get none. `base` holds the policy name (and key) attributes.
 */
export function spanEventOf(e: LooseEvent, base: Attributes, policy: string, outcomes: boolean): [string, Attributes] | undefined {
  const a: Attributes = { ...base };
  switch (e.type) {
    case 'retry':
      a['retry.name'] = policy;
      a['retry.attempt'] = (e['attempt'] as number) - 1;
      a['retry.result'] = 'retry';
      put(a, 'breakwater.retry.delay', seconds(e['delayMs']));
      a[ATTR_ERROR_TYPE] = errorType(e['error']);
      return [SPAN_EVENTS.attempt, a];
    case 'success':
      a['retry.name'] = policy;
      a['retry.attempt'] = e['attempts'] as number;
      a['retry.result'] = 'success';
      return [SPAN_EVENTS.attempt, a];
    case 'giveUp':
      a['retry.name'] = policy;
      a['retry.attempt'] = e['attempts'] as number;
      a['retry.result'] = 'give_up';
      a['breakwater.retry.reason'] = String(e['reason']);
      a[ATTR_ERROR_TYPE] = errorType(e['error']);
      return [SPAN_EVENTS.attempt, a];
    case 'rejected':
      a['circuitbreaker.name'] = policy;
      a['circuitbreaker.state'] = stateName(e['state']);
      put(a, 'breakwater.breaker.drop_ratio', e['dropRatio'] as number | undefined);
      put(a, 'breakwater.retry_after', seconds(e['retryAfterMs']));
      return [SPAN_EVENTS.breakerRejected, a];
    case 'stateChange':
      a['circuitbreaker.name'] = policy;
      a['circuitbreaker.state'] = stateName(e['to']);
      a['breakwater.breaker.previous_state'] = stateName(e['from']);
      a['breakwater.breaker.reason'] = String(e['reason']);
      put(a, 'breakwater.breaker.figure', e['figure'] as number | undefined);
      return [SPAN_EVENTS.stateChange, a];
    case 'limitRejected':
      put(a, 'breakwater.criticality', e['criticality'] as string | undefined);
      put(a, 'breakwater.partition', e['partition'] as string | undefined);
      if (e['reason'] === 'rateLimited') {
        a['ratelimiter.name'] = policy;
        a['ratelimiter.result'] = 'rejected';
        put(a, 'breakwater.retry_after', seconds(e['retryAfterMs']));
        return [SPAN_EVENTS.rateLimited, a];
      }
      return [SPAN_EVENTS.bulkheadRejected, a];
    case 'queued':
      a['breakwater.queue.length'] = e['queued'] as number;
      return [SPAN_EVENTS.queued, a];
    case 'concurrencyRejected':
      a['breakwater.concurrency.limit'] = e['limit'] as number;
      a['breakwater.concurrency.in_flight'] = e['inFlight'] as number;
      put(a, 'breakwater.criticality', e['criticality'] as string | undefined);
      put(a, 'breakwater.partition', e['partition'] as string | undefined);
      return [SPAN_EVENTS.concurrencyRejected, a];
    case 'shed':
      a['breakwater.load_shedder.cpu'] = e['cpu'] as number;
      a['breakwater.concurrency.in_flight'] = e['inFlight'] as number;
      put(a, 'breakwater.criticality', e['criticality'] as string | undefined);
      return [SPAN_EVENTS.shed, a];
    case 'timeout':
      a['timeout.name'] = policy;
      put(a, 'timeout.duration', seconds(e['timeoutMs']));
      a['breakwater.timeout.mode'] = String(e['mode']);
      return [SPAN_EVENTS.timeout, a];
    case 'fallback':
      a['breakwater.fallback.handler'] = e['handler'] as number;
      a[ATTR_ERROR_TYPE] = errorType(e['error']);
      return [SPAN_EVENTS.fallback, a];
    case 'fallbackFailed':
      a[ATTR_ERROR_TYPE] = errorType(e['error']);
      return [SPAN_EVENTS.fallbackFailed, a];
    case 'hedged':
      a['breakwater.hedge.attempt'] = e['attempt'] as number;
      put(a, 'breakwater.hedge.delay', seconds(e['delayMs']));
      return [SPAN_EVENTS.hedged, a];
    case 'hit':
    case 'miss':
      a['cache.name'] = policy;
      a['cache.usage'] = e.type === 'miss' ? 'miss' : e['stale'] === true ? 'stale' : 'hit';
      return [SPAN_EVENTS.cache, a];
    case 'injected':
      a['breakwater.chaos.kind'] = String(e['kind']);
      put(a, 'breakwater.chaos.delay', seconds(e['delayMs']));
      return [SPAN_EVENTS.injected, a];
    case 'degraded':
      a['breakwater.degrade.action'] = String(e['action']);
      return [SPAN_EVENTS.degraded, a];
    case 'outcome': {
      if (!outcomes) return undefined;
      const result = String(e['result']);
      a[ATTR_OUTCOME] = result;
      put(a, 'breakwater.call.duration', seconds(e['durationMs']));
      if (result === 'failure' || result === 'timeout' || result === 'rejected' || result === 'cancelled') a[ATTR_ERROR_TYPE] = errorType(e['error']);
      return [SPAN_EVENTS.outcome, a];
    }
    default:
      return undefined;
  }
}

/**
 * Records what `target`'s policies do on the caller's active span, as span
 * events (see {@link SPAN_EVENTS}): each retry attempt's end, breaker
 * rejections and state changes, rate-limiter, bulkhead, concurrency-limiter
 * and load-shedder refusals, timeouts, fallbacks, hedges, cache hits and
 * misses, chaos and degrade actions; with `outcomes`, one event per call per
 * policy as well. A policy emits its events synchronously inside the call, so
 * they land on the span active where the call was made (or the span of the
 * call that caused a breaker's state change).
 *
 * No span is created. When no span is active or it is not recording (no
 * tracer provider registered, or the span was not sampled) an event costs one
 * context lookup and nothing is built. Breakwater's core never imports
 * `@opentelemetry/api`: a pipeline nobody registers adds nothing to a call.
 *
 * `dispose()` unsubscribes.
 *
 * @example
 * ```ts
 * import { policy } from 'breakwater';
 * import { registerOtelTracing } from 'breakwater/otel';
 * const payments = policy().timeout(1000).retry({ maxAttempts: 3 }).breaker({ name: 'payments' });
 * const handle = registerOtelTracing(payments);
 * // inside tracer.startActiveSpan('checkout', ...): payments.execute(...) adds its events to that span
 * ```
 */
export function registerOtelTracing(target: Observed, options: OtelTracingOptions = {}): WatchHandle {
  const o = parseOptions(OtelTracingOptionsSchema, options, 'otelTracing');
  const constant: Attributes = o.attributes;
  const names = new PolicyNames(target);
  const sub = new Subscription();
  sub.add(
    target.events$.subscribe((event: PolicyEvent) => {
      const span: Span | undefined = trace.getActiveSpan();
      if (span === undefined || !span.isRecording()) return;
      const e = loose(event);
      const policy = names.base(e.policy);
      const key = typeof e['key'] === 'string' && e.type !== 'hit' && e.type !== 'miss' ? e['key'] : names.key;
      const base: Attributes = key === undefined ? { ...constant, [ATTR_POLICY]: policy } : { ...constant, [ATTR_POLICY]: policy, [ATTR_KEY]: key };
      const out = spanEventOf(e, base, policy, o.outcomes);
      if (out !== undefined) span.addEvent(out[0], out[1]);
    }),
  );
  return handleOf(sub, () => undefined);
}
