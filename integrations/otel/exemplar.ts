import { isSpanContextValid, trace, TraceFlags } from '@opentelemetry/api';

/**
 * The exemplar labels of the active span: `{ trace_id, span_id }` (the names
 * OpenTelemetry's Prometheus exporter gives exemplars), or `undefined` when no
 * sampled span is active. Pass it as the `exemplars` option of
 * `registerMetrics` from `breakwater/prometheus`, so each duration observation
 * links to the trace of the call it measured.
 *
 * @example
 * ```ts
 * import { Registry, type OpenMetricsContentType } from 'prom-client';
 * import { registerMetrics } from 'breakwater/prometheus';
 * import { traceExemplar } from 'breakwater/otel';
 * const registry = new Registry<OpenMetricsContentType>();
 * registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
 * registerMetrics(payments, { registry, exemplars: traceExemplar });
 * ```
 */
export function traceExemplar(): Record<string, string> | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const c = span.spanContext();
  if (!isSpanContextValid(c) || (c.traceFlags & TraceFlags.SAMPLED) === 0) return undefined;
  return { trace_id: c.traceId, span_id: c.spanId };
}
