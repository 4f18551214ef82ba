/**
 * The plain option checks of `adaptive-limiter` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { adaptiveLimiterOptions, type AdaptiveLimiterOptions, type AimdOptions, type GradientOptions, type ResolvedAdaptiveLimiterOptions, type VegasOptions } from '../../../policies/adaptive-limiter/options.js';
import { AdaptiveLimiterOptionsSchema, AimdOptionsSchema, GradientOptionsSchema, VegasOptionsSchema } from '../../../policies/adaptive-limiter/schema.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

parity(
  'adaptiveLimiter',
  adaptiveLimiterOptions,
  AdaptiveLimiterOptionsSchema,
  [
    {},
    { algorithm: 'aimd' },
    { algorithm: 'vegas', initialLimit: 1, minLimit: 1, maxLimit: 1, windowMs: 5, maxWindowMs: 5, minSamples: 1, isOverload: yes, name: 'a', clock },
    { algorithm: { kind: 'gradient', tolerance: 1, smoothing: 1, queueSize: 0, backoffRatio: 0.5, baselineWindows: 1 } },
    { algorithm: { kind: 'aimd', backoffRatio: 0.99, increase: 0.1, slowMs: 5 } },
    { algorithm: { kind: 'vegas', alpha: 0, beta: 1 } },
    { reserve: { default: 0.1, sheddable: 0.4 }, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' },
    { reserve: {}, partitions: { critical: 1 } },
  ],
  [
    { algorithm: 'nope' },
    { algorithm: 3 },
    { algorithm: null },
    { algorithm: {} },
    { algorithm: { kind: 'nope' } },
    { algorithm: { kind: 'gradient', tolerance: Number.NaN } },
    { algorithm: { kind: 'gradient', tolerance: 0.5, smoothing: 0, backoffRatio: 1 } },
    { algorithm: { kind: 'gradient', smoothing: -1, backoffRatio: 0.2, baselineWindows: 0 } },
    { algorithm: { kind: 'aimd', increase: 0, slowMs: 0, extra: 1 } },
    { algorithm: { kind: 'vegas', alpha: 5, beta: 5 } },
    { algorithm: { kind: 'vegas', alpha: -1, beta: 5 } },
    { initialLimit: 0 },
    { minLimit: 5, maxLimit: 4 },
    { initialLimit: 300 },
    { initialLimit: 300, windowMs: 2_000 },
    { windowMs: 2_000, minSamples: 0 },
    { minLimit: 5, maxLimit: 4, isOverload: 1 },
    { reserve: { sheddable: -0.1 } },
    { reserve: { default: 0.5, sheddable: 0.4 } },
    { reserve: { default: 1, sheddable: 0.4 } },
    { reserve: null },
    { partitions: { live: 0.6, batch: 0.6 } },
    { partitions: { live: 'most' } },
    { partitions: 'live' },
    { partitionBy: '', minLimit: 5, maxLimit: 4 },
  ],
);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<AdaptiveLimiterOptions>().toEqualTypeOf<z.input<typeof AdaptiveLimiterOptionsSchema>>();
    expectTypeOf<ResolvedAdaptiveLimiterOptions>().toEqualTypeOf<z.output<typeof AdaptiveLimiterOptionsSchema>>();
    expectTypeOf<GradientOptions>().toEqualTypeOf<z.input<typeof GradientOptionsSchema>>();
    expectTypeOf<AimdOptions>().toEqualTypeOf<z.input<typeof AimdOptionsSchema>>();
    expectTypeOf<VegasOptions>().toEqualTypeOf<z.input<typeof VegasOptionsSchema>>();
  });
});
