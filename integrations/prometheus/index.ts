/**
 * Prometheus metrics for breakwater policies, on prom-client (an optional peer dependency).
 * @packageDocumentation
 */
export { registerMetrics } from './metrics.js';
export { PrometheusOptionsSchema, type PrometheusOptions } from './options.js';
export type { WatchHandle } from '../shared/handle.js';
export type { Observed } from '../shared/observed.js';
