/**
 * The plain option checks of `rate-limiter` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { rateLimiterOptions, type RateAlgorithmConfig, type RateLimiterOptions } from '../../../policies/rate-limiter/options.js';
import { tokenBucket, tokenBucketOptions, type TokenBucketOptions } from '../../../policies/rate-limiter/token-bucket.js';
import { leakyBucketOptions, type LeakyBucketOptions } from '../../../policies/rate-limiter/leaky-bucket.js';
import { slidingWindowOptions, type SlidingWindowOptions } from '../../../policies/rate-limiter/sliding-window.js';
import { keyedRateOptions, type KeyedRateOptions } from '../../../policies/rate-limiter/keyed.js';
import { KeyedRateOptionsSchema, LeakyBucketOptionsSchema, RateAlgorithmConfigSchema, RateLimiterOptionsSchema, SlidingWindowOptionsSchema, TokenBucketOptionsSchema } from '../../../policies/rate-limiter/schema.js';
import { parity, plain, schema, clock } from '../../helpers/parity.js';

parity('tokenBucket', tokenBucketOptions, TokenBucketOptionsSchema, [{ rate: 0.5 }, { rate: 10, burst: 1 }], [{}, { rate: 0 }, { rate: -1, burst: 0 }, { rate: Infinity }, { rate: 1, burst: 1.5 }]);
parity('leakyBucket', leakyBucketOptions, LeakyBucketOptionsSchema, [{ rate: 1 }, { rate: 10, capacity: 0 }], [{}, { rate: 0 }, { rate: 1, capacity: -1 }]);
parity('slidingWindow', slidingWindowOptions, SlidingWindowOptionsSchema, [{ limit: 1, windowMs: 1 }, { limit: Number.MAX_SAFE_INTEGER, windowMs: 5, buckets: 10_000 }], [
  {},
  { limit: 0, windowMs: 0 },
  { limit: Number.MAX_SAFE_INTEGER + 2, windowMs: 1 },
  { limit: 1, windowMs: 1, buckets: 10_001 },
  { limit: 1.5, windowMs: 1, buckets: 0 },
]);
const algorithms: unknown[] = [
  'x',
  null,
  [],
  {},
  { kind: 'nope' },
  { kind: 7 },
  { kind: 'toString' },
  { kind: 'tokenBucket' },
  { kind: 'tokenBucket', rate: -1 },
  { kind: 'tokenBucket', rate: -1, burst: 0 },
  { kind: 'tokenBucket', rate: 1, extra: 1 },
  { kind: 'tokenBucket', rate: 'x', extra: 1 },
  { kind: 'leakyBucket', rate: 'x' },
  { kind: 'slidingWindow', limit: 0, windowMs: 0 },
  { kind: 'slidingWindow', limit: 'x', windowMs: 'y' },
];
parity(
  'rateLimiter',
  rateLimiterOptions,
  RateLimiterOptionsSchema,
  [
    { algorithm: tokenBucket({ rate: 1 }) },
    { algorithm: { kind: 'tokenBucket', rate: 5, burst: 2 }, name: 'r', clock },
    { algorithm: { kind: 'leakyBucket', rate: 5 } },
    { algorithm: { kind: 'slidingWindow', limit: 5, windowMs: 10 } },
    { algorithm: { kind: 'tokenBucket', rate: 5 }, reserve: { default: 0.1, sheddable: 0.6 } },
  ],
  [
    {},
    ...algorithms.map((algorithm) => ({ algorithm })),
    { algorithm: { kind: 'tokenBucket', rate: 5 }, reserve: { default: 0.7 } },
    { algorithm: { kind: 'tokenBucket', rate: 5 }, reserve: { sheddable: Infinity } },
    { algorithm: { kind: 'tokenBucket', rate: 5 }, reserve: { sheddable: 0.2, extra: 1 } },
  ],
);
const byTenant = (ctx: { meta: Readonly<Record<string, string>> }) => ctx.meta.tenant ?? '';
parity(
  'keyedRate',
  keyedRateOptions,
  KeyedRateOptionsSchema,
  [
    { key: byTenant, algorithm: { kind: 'tokenBucket', rate: 5, burst: 2 } },
    { key: byTenant, algorithm: () => tokenBucket({ rate: 1 }), maxKeys: 1, idleMs: 0.5 },
    { key: byTenant, algorithm: { kind: 'slidingWindow', limit: 5, windowMs: 10 }, maxKeys: 100 },
  ],
  [
    {},
    { key: 'tenant', algorithm: { kind: 'tokenBucket', rate: 5 } },
    { key: byTenant, algorithm: tokenBucket({ rate: 1 }) },
    ...algorithms.map((algorithm) => ({ key: byTenant, algorithm })),
    { key: byTenant, algorithm: { kind: 'tokenBucket', rate: 5 }, maxKeys: 0, idleMs: 0 },
    { key: byTenant, algorithm: { kind: 'tokenBucket', rate: 5 }, maxKeys: 2.5, idleMs: -1 },
  ],
);
describe('RateAlgorithmConfigSchema', () => {
  it('agrees with the plain rule on every algorithm as data', () => {
    for (const a of algorithms) {
      expect(plain(rateLimiterOptions, { algorithm: a }), JSON.stringify(a)).toEqual(schema(RateLimiterOptionsSchema, { algorithm: a }));
    }
    expect(schema(RateAlgorithmConfigSchema, { kind: 'q' })).toEqual({ ok: false, issues: [{ path: 'kind', message: expect.stringContaining('expected a rate algorithm') }] });
  });
});

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<TokenBucketOptions>().toEqualTypeOf<z.input<typeof TokenBucketOptionsSchema>>();
    expectTypeOf<LeakyBucketOptions>().toEqualTypeOf<z.input<typeof LeakyBucketOptionsSchema>>();
    expectTypeOf<SlidingWindowOptions>().toEqualTypeOf<z.input<typeof SlidingWindowOptionsSchema>>();
    expectTypeOf<RateAlgorithmConfig>().toEqualTypeOf<z.input<typeof RateAlgorithmConfigSchema>>();
    expectTypeOf<RateLimiterOptions>().toEqualTypeOf<z.input<typeof RateLimiterOptionsSchema>>();
    expectTypeOf<KeyedRateOptions>().toEqualTypeOf<z.input<typeof KeyedRateOptionsSchema>>();
  });
});
