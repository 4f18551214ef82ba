/**
 * OpenTelemetry metrics for breakwater policies, on `@opentelemetry/api` (an optional peer dependency).
 * @packageDocumentation
 */
export { registerOtelMetrics } from './metrics.js';
export { OtelOptionsSchema, type OtelOptions } from './options.js';
export type { WatchHandle } from '../shared/handle.js';
export type { Observed } from '../shared/observed.js';
