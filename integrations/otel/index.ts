/**
 * OpenTelemetry metrics and span events for breakwater policies, on `@opentelemetry/api` (an optional peer dependency).
 * @packageDocumentation
 */
export { registerOtelMetrics } from './metrics.js';
export { registerOtelTracing, SPAN_EVENTS } from './tracing.js';
export { traceExemplar } from './exemplar.js';
export { OtelOptionsSchema, OtelTracingOptionsSchema, type OtelOptions, type OtelTracingOptions } from './options.js';
export { ATTR_POLICY, ATTR_OUTCOME, ATTR_STATE, ATTR_KEY, ATTR_ERROR_TYPE } from './attributes.js';
export { errorType, OTHER_ERROR_TYPE } from './error-type.js';
export type { WatchHandle } from '../shared/handle.js';
export type { Observed } from '../shared/observed.js';
