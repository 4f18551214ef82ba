import { z } from 'zod';
import { bucketsSchema } from '../shared/options.js';
import type { Meter } from '@opentelemetry/api';
import { isTakenAttribute } from './attributes.js';

/** Constant attributes: any name but the `breakwater.` namespace and `error.type`. */
const attributesSchema = z
  .record(z.string(), z.string())
  // Each key checked here, not in the record's key schema: zod reports a key's own message as "Invalid key in record".
  .superRefine((attributes, ctx) => {
    for (const k of Object.keys(attributes)) {
      if (isTakenAttribute(k)) ctx.addIssue({ code: 'custom', path: [k], message: 'expected a free attribute name (breakwater.* and error.type are taken)' });
    }
  })
  .default({});

/** Options of {@link registerOtelMetrics}. */
export const OtelOptionsSchema = z
  .object({
    /**
     * The meter to create the instruments on.
     * @defaultValue `metrics.getMeter('breakwater')` from the global meter provider
     */
    meter: z
      .custom<Meter>((v) => typeof v === 'object' && v !== null && typeof (v as Meter).createCounter === 'function', {
        message: 'expected an OpenTelemetry Meter',
      })
      .optional(),
    /**
     * Namespace of every instrument name (`breakwater.calls`, ...); attribute names keep the `breakwater.` namespace.
     * @defaultValue `'breakwater.'`
     */
    prefix: z.string().default('breakwater.'),
    /**
     * Constant attributes put on every data point (`{ service: 'checkout' }`); every `breakwater.*` name and `error.type` are taken.
     * @defaultValue none
     */
    attributes: attributesSchema,
    /**
     * Advised bucket bounds (seconds) of the duration histogram, increasing.
     * @defaultValue 5 ms to 10 s, as the Prometheus entry
     */
    buckets: bucketsSchema.optional(),
    /**
     * Adds a `breakwater.policy.key` attribute from events that carry one (keyed breakers); off by default to keep cardinality bounded.
     * @defaultValue false
     */
    perKey: z.boolean().default(false),
  })
  .strict();

/**
 * Options of {@link registerOtelMetrics}.
 * @example
 * ```ts
 * registerOtelMetrics(pipeline, { meter: metrics.getMeter('checkout'), attributes: { service: 'checkout' } });
 * ```
 */
export type OtelOptions = z.input<typeof OtelOptionsSchema>;

/** Options of {@link registerOtelTracing}. */
export const OtelTracingOptionsSchema = z
  .object({
    /**
     * Constant attributes put on every span event (`{ service: 'checkout' }`); every `breakwater.*` name and `error.type` are taken.
     * @defaultValue none
     */
    attributes: attributesSchema,
    /**
     * Also adds one `breakwater.call` event per call per policy, with its outcome and duration: a full account of a
     * call, at one event per policy of the pipeline.
     * @defaultValue false
     */
    outcomes: z.boolean().default(false),
  })
  .strict();

/**
 * Options of {@link registerOtelTracing}.
 * @example
 * ```ts
 * registerOtelTracing(pipeline, { attributes: { service: 'checkout' }, outcomes: true });
 * ```
 */
export type OtelTracingOptions = z.input<typeof OtelTracingOptionsSchema>;
