import { z } from 'zod';
import { bucketsSchema } from '../shared/options.js';
import type { Registry, RegistryContentType } from 'prom-client';

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const reserved = new Set(['policy', 'result', 'state', 'name', 'key', 'le']);

/** Options of {@link registerMetrics}. */
export const PrometheusOptionsSchema = z
  .object({
    /**
     * The prom-client registry to register on.
     * @defaultValue prom-client's global `register`
     */
    registry: z
      .custom<Registry<RegistryContentType>>((v) => typeof v === 'object' && v !== null && typeof (v as Registry).getSingleMetric === 'function', {
        message: 'expected a prom-client Registry',
      })
      .optional(),
    /**
     * Replaces the `breakwater_` namespace of every metric name (`myapp_` gives `myapp_calls_total`).
     * @defaultValue `'breakwater_'`
     */
    prefix: z
      .string()
      .refine((s) => s === '' || metricName.test(s), { message: 'expected a Prometheus metric name prefix' })
      .default('breakwater_'),
    /**
     * Constant labels put on every series (`{ service: 'checkout' }`); `policy`, `result`, `state`, `name`, `key` and `le` are taken.
     * @defaultValue none
     */
    labels: z
      .record(z.string(), z.string())
      // Each key checked here, not in the record's key schema: zod reports a key's own message as "Invalid key in record".
      .superRefine((labels, ctx) => {
        for (const k of Object.keys(labels)) {
          if (!labelName.test(k) || reserved.has(k)) ctx.addIssue({ code: 'custom', path: [k], message: 'expected a free Prometheus label name' });
        }
      })
      .default({}),
    /**
     * Upper bounds (seconds) of the duration histogram's buckets, increasing.
     * @defaultValue prom-client's defaults, 5 ms to 10 s
     */
    buckets: bucketsSchema.optional(),
    /**
     * Also keep gobreaker-style metrics: `gobreaker_state{name}` and
     * `gobreaker_calls_total{name,result}` (result success, failure or rejected; a timeout counts as a failure).
     * @defaultValue false
     */
    gobreakerAliases: z.boolean().default(false),
    /**
     * Adds a `key` label from events that carry one (keyed breakers). Off by
     * default: one series per key can grow without bound.
     * @defaultValue false
     */
    perKey: z.boolean().default(false),
    /**
     * Exemplar labels for each duration observation, read when the call settles (`traceExemplar` from
     * `breakwater/otel` gives the active span's `{ trace_id, span_id }`); `undefined` records none. Needs a registry
     * with the OpenMetrics content type, the only format that carries exemplars.
     * @defaultValue none
     */
    exemplars: z
      .custom<() => Record<string, string> | undefined>((v) => typeof v === 'function', { message: 'expected a function returning exemplar labels' })
      .optional(),
  })
  .strict();

/**
 * Options of {@link registerMetrics}.
 * @example
 * ```ts
 * registerMetrics(payments, { registry, labels: { service: 'checkout' } });
 * ```
 */
export type PrometheusOptions = z.input<typeof PrometheusOptionsSchema>;
