/**
 * The plain option checks the policies run and the zod schemas behind
 * `breakwater/config` must agree: each case goes through both, and both must
 * accept it with the same result or reject it with the same issues (path and
 * message). The type pins keep each written-out options interface equal to
 * its schema's input type.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { ConfigError } from '../../lib/errors.js';
import { checkOptions, type ObjectRule, type Rule, type Shape } from '../../lib/options.js';
import { toConfigIssues } from '../../lib/schemas.js';
import { TestClock } from '../../lib/testing.js';
import { timeoutOptions, type TimeoutOptions } from '../../policies/timeout/options.js';
import { TimeoutOptionsSchema } from '../../policies/timeout/schema.js';
import { fallbackOptions, type FallbackOptions } from '../../policies/fallback/options.js';
import { FallbackOptionsSchema } from '../../policies/fallback/schema.js';
import { bulkheadOptions, type BulkheadOptions } from '../../policies/bulkhead/options.js';
import { BulkheadOptionsSchema } from '../../policies/bulkhead/schema.js';
import { loadShedderOptions, type LoadShedderOptions } from '../../policies/load-shedder/options.js';
import { LoadShedderOptionsSchema } from '../../policies/load-shedder/schema.js';
import { hedgeOptions, type HedgeOptions } from '../../policies/hedge/options.js';
import { HedgeOptionsSchema } from '../../policies/hedge/schema.js';
import { chaosOptions, type ChaosOptions } from '../../policies/chaos/options.js';
import { ChaosOptionsSchema } from '../../policies/chaos/schema.js';
import { cacheOptions, type CacheOptions } from '../../policies/cache/options.js';
import { memoryCacheStore, memoryCacheStoreOptions, type MemoryCacheStoreOptions } from '../../policies/cache/memory-store.js';
import { jsonCacheCodec } from '../../policies/cache/store.js';
import { CacheOptionsSchema, MemoryCacheStoreOptionsSchema } from '../../policies/cache/schema.js';
import { idempotentOptions, type IdempotentOptions } from '../../policies/idempotent/options.js';
import { memoryStore, memoryStoreOptions, type MemoryStoreOptions } from '../../policies/idempotent/memory-store.js';
import { jsonIdempotencyCodec } from '../../policies/idempotent/codec.js';
import { IdempotentOptionsSchema, MemoryStoreOptionsSchema } from '../../policies/idempotent/schema.js';
import { degradeOptions, type DegradeOptions } from '../../policies/degrade/options.js';
import { decisionTree, decisionTreeOptions, type DecisionTreeOptions } from '../../policies/degrade/decision-tree.js';
import { DecisionTreeOptionsSchema, DegradeOptionsSchema } from '../../policies/degrade/schema.js';
import {
  adaptiveLimiterOptions,
  type AdaptiveLimiterOptions,
  type AimdOptions,
  type GradientOptions,
  type ResolvedAdaptiveLimiterOptions,
  type VegasOptions,
} from '../../policies/adaptive-limiter/options.js';
import { AdaptiveLimiterOptionsSchema, AimdOptionsSchema, GradientOptionsSchema, VegasOptionsSchema } from '../../policies/adaptive-limiter/schema.js';
import { sreBreakerOptions, type ResolvedSreBreakerOptions, type SreBreakerOptions, type SreBreakerSnapshot } from '../../policies/sre-breaker/options.js';
import { SreBreakerOptionsSchema, SreBreakerSnapshotSchema } from '../../policies/sre-breaker/schema.js';
import { sreBreaker } from '../../policies/sre-breaker/sre-breaker.js';
import { windowSnapshotRule } from '../../policies/breaker/options.js';
import {
  adaptiveBreakerOptions,
  type AdaptiveBreakerOptions,
  type AdaptiveBreakerSnapshot,
  type ResolvedAdaptiveBreakerOptions,
} from '../../policies/adaptive-breaker/options.js';
import { AdaptiveBreakerOptionsSchema, AdaptiveBreakerSnapshotSchema } from '../../policies/adaptive-breaker/schema.js';
import { adaptiveBreaker } from '../../policies/adaptive-breaker/adaptive-breaker.js';
import {
  circuitBreakerOptions,
  type CircuitBreakerOptions,
  type CircuitBreakerSnapshot,
  type ResolvedCircuitBreakerOptions,
} from '../../policies/circuit-breaker/options.js';
import { CircuitBreakerOptionsSchema, CircuitBreakerSnapshotSchema } from '../../policies/circuit-breaker/schema.js';
import { circuitBreaker } from '../../policies/circuit-breaker/circuit-breaker.js';
import { breakerRegistryOptions, type BreakerRegistryOptions } from '../../policies/breaker-registry/options.js';
import { BreakerRegistryOptionsSchema } from '../../policies/breaker-registry/schema.js';
import { windowSnapshotSchema } from '../../policies/breaker/schema.js';
import { rateLimiterOptions, type RateAlgorithmConfig, type RateLimiterOptions } from '../../policies/rate-limiter/options.js';
import { tokenBucket, tokenBucketOptions, type TokenBucketOptions } from '../../policies/rate-limiter/token-bucket.js';
import { leakyBucketOptions, type LeakyBucketOptions } from '../../policies/rate-limiter/leaky-bucket.js';
import { slidingWindowOptions, type SlidingWindowOptions } from '../../policies/rate-limiter/sliding-window.js';
import {
  LeakyBucketOptionsSchema,
  RateAlgorithmConfigSchema,
  RateLimiterOptionsSchema,
  SlidingWindowOptionsSchema,
  TokenBucketOptionsSchema,
} from '../../policies/rate-limiter/schema.js';
import { retryOptions, type RetryOptions } from '../../policies/retry/options.js';
import { constant, exponentialOptions, type ExponentialOptions } from '../../policies/retry/backoff.js';
import { sloBudgetOptions, tokenBudget, tokenBudgetOptions, type SloBudgetOptions, type TokenBudgetOptions } from '../../policies/retry/budget.js';
import { ExponentialOptionsSchema, RetryOptionsSchema, SloBudgetOptionsSchema, TokenBudgetOptionsSchema } from '../../policies/retry/schema.js';

type Verdict = { ok: true; value: unknown } | { ok: false; issues: { path: string; message: string }[] };

function plain(rule: Rule<unknown>, input: unknown): Verdict {
  try {
    return { ok: true, value: checkOptions(rule, input, 'p') };
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    return { ok: false, issues: [...e.issues] };
  }
}

function schema(s: z.ZodType, input: unknown): Verdict {
  const r = s.safeParse(input);
  return r.success ? { ok: true, value: r.data } : { ok: false, issues: toConfigIssues(r.error) };
}

const clock = new TestClock();
/** Values of every type, each given to every key in turn. */
const strangers: readonly unknown[] = ['text', -1, 0, 0.5, 1.5, Number.NaN, Infinity, true, null, [], {}, () => 1, clock];

/**
 * Runs `valid`, each of `cases` (every rule broken once), an unknown key,
 * a non-object, and each key set to a value of every type, through both.
 */
function parity(title: string, rule: ObjectRule<Shape>, zod: z.ZodType, valid: readonly object[], cases: readonly object[]): void {
  describe(title, () => {
    it('accepts the valid options alike', () => {
      for (const input of valid) {
        const a = plain(rule, input);
        expect(a.ok, JSON.stringify(input)).toBe(true);
        expect(a).toEqual(schema(zod, input));
      }
    });
    it('rejects each broken rule with the same paths and messages', () => {
      for (const input of cases) {
        const a = plain(rule, input);
        expect(a.ok, JSON.stringify(input)).toBe(false);
        expect(a, JSON.stringify(input)).toEqual(schema(zod, input));
      }
    });
    it('agrees on unknown keys, non-objects and a value of every type in every key', () => {
      const base = valid[0]!;
      const inputs: unknown[] = [{ ...base, surprise: 1 }, 'text', null, undefined, [], 42];
      for (const key of Object.keys(rule.shape)) for (const v of strangers) inputs.push({ ...base, [key]: v });
      for (const input of inputs) expect(plain(rule, input), String(JSON.stringify(input))).toEqual(schema(zod, input));
    });
  });
}

parity('timeout', timeoutOptions, TimeoutOptionsSchema, [{ ms: 100 }, { ms: 0.5, mode: 'cooperative', name: 't', clock }], [
  { ms: 0 },
  { ms: -5, mode: 'lazy' },
  {},
  { ms: 100, name: '' },
  { ms: 100, clock: { now: () => 0 } },
]);

const yes = (): boolean => true;
parity(
  'retry',
  retryOptions,
  RetryOptionsSchema,
  [{}, { maxAttempts: 1, backoff: constant(5), maxDelayMs: 0, handle: yes, handleResult: yes, budget: tokenBudget(), name: 'r', clock, random: Math.random }, { backoff: () => 3 }],
  [{ maxAttempts: 0 }, { maxAttempts: 2.5 }, { maxDelayMs: -1 }, { backoff: 5 }, { budget: {} }, { handle: true }, { name: '' }, { random: 0.3 }, { maxAttempts: 0, maxDelayMs: -1, extra: 1 }],
);
parity(
  'exponential',
  exponentialOptions,
  ExponentialOptionsSchema,
  [{}, { initial: 5, multiplier: 1, max: 5, jitter: 'none' }],
  [{ initial: 0 }, { multiplier: 0.5 }, { max: 50 }, { initial: 200, max: 100 }, { jitter: 'wild' }, { multiplier: 0.5, max: 50, other: 1 }, { initial: 'x', max: 1 }],
);
parity('tokenBudget', tokenBudgetOptions, TokenBudgetOptionsSchema, [{}, { ratio: 1, minPerSecond: 0, windowMs: 1 }], [{ ratio: 1.5 }, { minPerSecond: -1 }, { windowMs: 0 }]);
parity('sloBudget', sloBudgetOptions, SloBudgetOptionsSchema, [{}, { sloWindowMs: 1, fraction: 0, maxRetries: 0, latencyWindowMs: 1 }], [
  { sloWindowMs: 0 },
  { fraction: -0.1 },
  { maxRetries: -1 },
  { maxRetries: 0.5 },
  { latencyWindowMs: -3 },
]);
parity('fallback', fallbackOptions, FallbackOptionsSchema, [{}, { handle: yes, handleResult: yes, name: 'f', clock }], [{ handle: 1 }, { name: '' }, { clock: {} }]);
parity(
  'bulkhead',
  bulkheadOptions,
  BulkheadOptionsSchema,
  [
    { limit: 1 },
    { limit: 3, queue: 0, name: 'b', clock },
    { limit: 2, reserve: {}, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' },
    { limit: 2, reserve: { default: 0.2, sheddable: 0.2 }, partitions: { a: 0.7, b: 0.2, c: 0.1 } },
    { limit: 2, reserve: { sheddable: 0 }, partitions: {} },
  ],
  [
    {},
    { limit: 0 },
    { limit: 1.5 },
    { limit: 2, queue: -1 },
    { limit: 2, queue: 0.5, name: '' },
    { limit: 2, reserve: { sheddable: 1 } },
    { limit: 2, reserve: { default: 0.5 } },
    { limit: 2, reserve: { default: 0.5, sheddable: 2 } },
    { limit: 2, reserve: { critical: 0.1 } },
    { limit: 2, reserve: 'x' },
    { limit: 2, partitions: { a: 0, b: 'x' } },
    { limit: 2, partitions: { a: 0.7, b: 0.4 } },
    { limit: 2, partitions: { a: 2 } },
    { limit: 2, partitions: [0.5] },
    { limit: 2, partitionBy: '' },
  ],
);
parity(
  'loadShedder',
  loadShedderOptions,
  LoadShedderOptionsSchema,
  [{}, { cpuThreshold: 0.5, cpu: 0.3, windowMs: 1, buckets: 2, coolOffMs: 1, name: 'l', clock }, { cpu: () => 0.2 }, { reserve: { default: 0.1, sheddable: 0.5 } }],
  [
    { cpuThreshold: 0 },
    { cpuThreshold: 1 },
    { cpu: 'hot' },
    { windowMs: 0 },
    { buckets: 1 },
    { coolOffMs: -1 },
    { reserve: { default: 0.2 } },
    { reserve: { sheddable: 1, default: 'x' } },
    { reserve: [] },
  ],
);
parity(
  'hedge',
  hedgeOptions,
  HedgeOptionsSchema,
  [{}, { delayMs: Infinity, maxHedged: 2, handle: yes, handleResult: yes, name: 'h', clock }, { delay: () => 5 }, { delayMs: 0 }],
  [{ delayMs: -1 }, { delay: 5 }, { delayMs: 5, delay: () => 5 }, { maxHedged: 0 }, { maxHedged: 0, delayMs: 5, delay: () => 5 }, { delayMs: 5, delay: () => 5, extra: 1 }],
);
parity(
  'chaos',
  chaosOptions,
  ChaosOptionsSchema,
  [{ fault: new Error('x') }, { latency: 0 }, { latency: () => 1, result: () => 2, injectionRate: 1, enabled: false, random: Math.random, name: 'c', clock }, { fault: null, enabled: () => true }],
  [
    {},
    { fault: 1, result: () => 2 },
    { latency: -1 },
    { latency: 'slow' },
    { fault: 1, injectionRate: 2 },
    { fault: 1, enabled: 'yes' },
    { fault: 1, enabled: 3 },
    { injectionRate: -1 },
    { latency: -1, result: () => 1, fault: 1 },
    { result: 5 },
  ],
);
parity(
  'cache',
  cacheOptions,
  CacheOptionsSchema,
  [{ ttlMs: 1 }, { ttlMs: 10, staleWhileRevalidateMs: 5, retainMs: 15, store: memoryCacheStore(), key: () => 'k', handleResult: yes, name: 'c', clock }],
  [
    {},
    { ttlMs: 0 },
    { ttlMs: 10, staleWhileRevalidateMs: -1 },
    { ttlMs: 10, retainMs: 0 },
    { ttlMs: 10, staleWhileRevalidateMs: 5, retainMs: 12 },
    { ttlMs: 10, retainMs: 5, extra: 1 },
    { ttlMs: 10, retainMs: 5, store: {} },
    { ttlMs: 10, key: 'k' },
  ],
);
parity('memoryCacheStore', memoryCacheStoreOptions, MemoryCacheStoreOptionsSchema, [{}, { maxEntries: 1, codec: jsonCacheCodec, clock }], [
  { maxEntries: 0 },
  { maxEntries: 1.5 },
  { codec: { encode: () => '' } },
]);
parity(
  'idempotent',
  idempotentOptions,
  IdempotentOptionsSchema,
  [
    {},
    {
      store: memoryStore(),
      key: () => 'k',
      ttlMs: 1,
      leaseMs: 1,
      renewLease: true,
      onInProgress: 'reject',
      pollMs: 1,
      codec: jsonIdempotencyCodec,
      storeTimeoutMs: 1,
      failOpen: true,
      handleResult: yes,
      name: 'i',
      clock,
    },
  ],
  [{ store: {} }, { ttlMs: 0 }, { leaseMs: -1 }, { renewLease: 'yes' }, { onInProgress: 'later' }, { pollMs: 0 }, { codec: {} }, { storeTimeoutMs: 0 }, { failOpen: 1 }, { key: 1 }],
);
parity('memoryStore', memoryStoreOptions, MemoryStoreOptionsSchema, [{}, { clock }], [{ clock: 1 }]);
parity(
  'degrade',
  degradeOptions,
  DegradeOptionsSchema,
  [{ when: yes, to: () => 1 }, { when: decisionTree(), signals: { cpu: 0.5, qps: () => 3 }, to: () => 1, rateWindowMs: 1, name: 'd', clock }],
  [{}, { when: 1, to: () => 1 }, { when: yes }, { when: yes, to: 1 }, { when: yes, to: () => 1, signals: { cpu: 'hot', qps: 1, x: {} } }, { when: yes, to: () => 1, signals: [] }, { when: yes, to: () => 1, rateWindowMs: 0 }],
);
parity('decisionTree', decisionTreeOptions, DecisionTreeOptionsSchema, [{}, { qpsHigh: 10, qpsMid: 10, cpuHigh: 0, cpuCritical: 1, healthyMin: 0.5 }], [
  { qpsHigh: -1 },
  { qpsHigh: 10, qpsMid: 20 },
  { cpuHigh: 2 },
  { cpuCritical: -1, qpsMid: 1e9 },
  { healthyMin: 'x', qpsMid: 1e9 },
]);
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
describe('RateAlgorithmConfigSchema', () => {
  it('agrees with the plain rule on every algorithm as data', () => {
    for (const a of algorithms) {
      expect(plain(rateLimiterOptions, { algorithm: a }), JSON.stringify(a)).toEqual(schema(RateLimiterOptionsSchema, { algorithm: a }));
    }
    expect(schema(RateAlgorithmConfigSchema, { kind: 'q' })).toEqual({ ok: false, issues: [{ path: 'kind', message: expect.stringContaining('expected a rate algorithm') }] });
  });
});
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
const window = { origin: 0, bucketMs: 250, size: 40, head: -1, sums: [0, 0, 0], counts: null };
const counted = { origin: 0, bucketMs: 500, size: 2, head: 1, sums: [3, 1, 0], counts: [1, 0, 0, 2, 1, 0] };
parity('windowSnapshot', windowSnapshotRule, windowSnapshotSchema, [window, counted], [
  { ...window, sums: [1, 0, 0] },
  { ...counted, counts: [1, 0, 0] },
  { ...counted, sums: [2, 1, 1] },
  { ...counted, sums: [1, 2] },
  { ...counted, sums: [1, 2, 3, 4] },
  { ...counted, counts: [1, -1, 'x', 0, 0, 0] },
  { ...counted, head: -2, size: 0, bucketMs: 0, origin: 'x' },
  { ...counted, counts: 'x' },
]);
const sreState = sreBreaker({ clock }).snapshot();
parity(
  'sreBreaker',
  sreBreakerOptions,
  SreBreakerOptionsSchema,
  [
    {},
    { windowMs: 1_000, buckets: 10, k: 2, minK: 1, protection: 0, forcePassMs: 0, handle: yes, handleResult: yes, name: 's', clock, random: Math.random },
    { initialState: sreState },
    { initialState: { kind: 'sre', open: true, isolated: false, lastPass: 5, window } },
  ],
  [
    { windowMs: 0 },
    { buckets: 0 },
    { windowMs: 1_000, buckets: 3 },
    { k: 1, minK: 1.2 },
    { minK: 0.5 },
    { protection: -1 },
    { forcePassMs: -1 },
    { k: Infinity },
    { initialState: { ...sreState, kind: 'adaptive' } },
    { initialState: { ...sreState, open: 1, isolated: 'no', lastPass: 'x' } },
    { initialState: { ...sreState, window: { ...window, size: 10 } } },
    { initialState: { ...sreState, window: { ...window, bucketMs: 100 } } },
    { initialState: { ...sreState, window: { ...window, sums: [1, 0, 0] } }, buckets: 3 },
    { initialState: { ...sreState, extra: 1 } },
  ],
);
const adaptiveState = adaptiveBreaker({ clock }).snapshot();
const aWindow = adaptiveState.window;
parity(
  'adaptiveBreaker',
  adaptiveBreakerOptions,
  AdaptiveBreakerOptionsSchema,
  [
    {},
    { windowMs: 1_000, buckets: 10, k: 1, protection: 0, forcePassMs: 0, tripFailures: 1, tripMs: 0, probeRatio: 1, rampFactor: 1.5, handle: yes, handleResult: yes, name: 'a', clock, random: Math.random },
    { initialState: adaptiveState },
    { initialState: { ...adaptiveState, timed: { at: 5, ms: 3 }, lastPass: null, lastSuccessAt: 4 } },
    { initialState: { ...adaptiveState, timed: null } },
  ],
  [
    { windowMs: 0, buckets: 0 },
    { windowMs: 1_000, buckets: 3 },
    { k: 0.5, protection: -1 },
    { tripFailures: 0, tripMs: -1, probeRatio: 2, rampFactor: 1 },
    { initialState: { ...adaptiveState, kind: 'sre' } },
    { initialState: { ...adaptiveState, state: 'ajar', isolated: 0, admitRatio: 2, failuresInRow: -1, successShare: 'x', successShareBeforeRun: -0.5 } },
    { initialState: { ...adaptiveState, timed: { at: 'x', ms: 0.5 } } },
    { initialState: { ...adaptiveState, timed: { at: 1, ms: 1, extra: 1 } } },
    { initialState: { ...adaptiveState, window: { ...aWindow, size: 3 } } },
    { initialState: { ...adaptiveState, window: { ...aWindow, bucketMs: 3 } } },
  ],
);
const cbState = circuitBreaker({ strategy: 'errorRatio', clock }).snapshot();
const cbWindow = cbState.window;
const cbCases: unknown[] = [
  'x',
  null,
  {},
  { strategy: 'nope' },
  { strategy: 'errorRatio', threshold: 2 },
  { strategy: 'errorRatio', windowMs: 1_000, buckets: 3 },
  { strategy: 'slowCallRatio', threshold: -1, slowCallMs: -1, minRequests: -1, probes: 0, openMs: 0, maxHalfOpenMs: 0 },
  { strategy: 'errorCount', threshold: 0.5, extra: 1 },
  { strategy: 'consecutiveFailures', threshold: -1, handle: 1 },
  { strategy: 'dynamicThreshold', weights: { rps: -1, errorRate: 'x', other: 1 }, baseRps: 0 },
  { strategy: 'dynamicThreshold', weights: 5 },
  { strategy: 'custom' },
  { strategy: 'custom', readyToTrip: 1 },
  { strategy: 'errorRatio', initialState: { ...cbState, kind: 'sre' } },
  { strategy: 'errorRatio', initialState: { ...cbState, retryAt: null } },
  { strategy: 'errorRatio', initialState: { ...cbState, probeBits: 8, probeCount: 4, halfOpenSince: 'x' } },
  { strategy: 'errorRatio', initialState: { ...cbState, probeBits: -1, probeCount: 1.5, state: 'ajar' } },
  { strategy: 'errorRatio', initialState: { ...cbState, window: { ...cbWindow, size: 3 } } },
  { strategy: 'errorRatio', initialState: { ...cbState, window: { ...cbWindow, size: 3 } }, buckets: 3 },
];
describe('circuitBreaker', () => {
  it('agrees on every strategy, valid or not', () => {
    const valid: unknown[] = [
      { strategy: 'errorRatio' },
      { strategy: 'slowCallRatio', threshold: 1, slowCallMs: 0, minRequests: 0, windowMs: 1_000, buckets: 10, openMs: 1, probes: 2, maxHalfOpenMs: 1, handle: yes, handleResult: yes, name: 'c', clock },
      { strategy: 'errorCount', threshold: 0 },
      { strategy: 'consecutiveFailures', threshold: 3 },
      { strategy: 'dynamicThreshold', weights: { rps: 0 }, baseRps: 1 },
      { strategy: 'custom', readyToTrip: yes },
      { strategy: 'errorRatio', initialState: cbState },
      { strategy: 'errorRatio', initialState: { ...cbState, retryAt: null, isolated: true } },
    ];
    for (const input of valid) {
      const a = plain(circuitBreakerOptions, input);
      expect(a.ok, JSON.stringify(input)).toBe(true);
      expect(a).toEqual(schema(CircuitBreakerOptionsSchema, input));
    }
    for (const input of cbCases) {
      const a = plain(circuitBreakerOptions, input);
      expect(a.ok, JSON.stringify(input)).toBe(false);
      expect(a, JSON.stringify(input)).toEqual(schema(CircuitBreakerOptionsSchema, input));
    }
    for (const strategy of ['errorRatio', 'custom']) {
      for (const key of ['threshold', 'minRequests', 'initialState', 'name', 'clock', 'readyToTrip', 'weights']) {
        for (const v of strangers) {
          const input = { strategy, [key]: v };
          expect(plain(circuitBreakerOptions, input), `${strategy}.${key}`).toEqual(schema(CircuitBreakerOptionsSchema, input));
        }
      }
    }
  });
});
parity(
  'breakerRegistry',
  breakerRegistryOptions,
  BreakerRegistryOptionsSchema,
  [{}, { defaults: { strategy: 'errorRatio' }, idleMs: 1, name: 'b', clock, random: Math.random }, { defaults: { family: 'sre' } }],
  [{ defaults: 1 }, { defaults: [] }, { idleMs: 0 }, { name: '' }],
);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<TimeoutOptions>().toEqualTypeOf<z.input<typeof TimeoutOptionsSchema>>();
    expectTypeOf<RetryOptions>().toEqualTypeOf<z.input<typeof RetryOptionsSchema>>();
    expectTypeOf<ExponentialOptions>().toEqualTypeOf<z.input<typeof ExponentialOptionsSchema>>();
    expectTypeOf<TokenBudgetOptions>().toEqualTypeOf<z.input<typeof TokenBudgetOptionsSchema>>();
    expectTypeOf<SloBudgetOptions>().toEqualTypeOf<z.input<typeof SloBudgetOptionsSchema>>();
    expectTypeOf<FallbackOptions>().toEqualTypeOf<z.input<typeof FallbackOptionsSchema>>();
    expectTypeOf<BulkheadOptions>().toEqualTypeOf<z.input<typeof BulkheadOptionsSchema>>();
    expectTypeOf<LoadShedderOptions>().toEqualTypeOf<z.input<typeof LoadShedderOptionsSchema>>();
    expectTypeOf<HedgeOptions>().toEqualTypeOf<z.input<typeof HedgeOptionsSchema>>();
    expectTypeOf<CacheOptions>().toEqualTypeOf<z.input<typeof CacheOptionsSchema>>();
    expectTypeOf<MemoryCacheStoreOptions>().toEqualTypeOf<z.input<typeof MemoryCacheStoreOptionsSchema>>();
    expectTypeOf<IdempotentOptions>().toEqualTypeOf<z.input<typeof IdempotentOptionsSchema>>();
    expectTypeOf<MemoryStoreOptions>().toEqualTypeOf<z.input<typeof MemoryStoreOptionsSchema>>();
    expectTypeOf<DecisionTreeOptions>().toEqualTypeOf<z.input<typeof DecisionTreeOptionsSchema>>();
    // `to` is typed by its answer type F by hand, as the schema cannot say.
    expectTypeOf<Omit<DegradeOptions<unknown>, 'to'>>().toEqualTypeOf<Omit<z.input<typeof DegradeOptionsSchema>, 'to'>>();
    expectTypeOf<TokenBucketOptions>().toEqualTypeOf<z.input<typeof TokenBucketOptionsSchema>>();
    expectTypeOf<LeakyBucketOptions>().toEqualTypeOf<z.input<typeof LeakyBucketOptionsSchema>>();
    expectTypeOf<SlidingWindowOptions>().toEqualTypeOf<z.input<typeof SlidingWindowOptionsSchema>>();
    expectTypeOf<RateAlgorithmConfig>().toEqualTypeOf<z.input<typeof RateAlgorithmConfigSchema>>();
    expectTypeOf<RateLimiterOptions>().toEqualTypeOf<z.input<typeof RateLimiterOptionsSchema>>();
    expectTypeOf<AdaptiveLimiterOptions>().toEqualTypeOf<z.input<typeof AdaptiveLimiterOptionsSchema>>();
    expectTypeOf<ResolvedAdaptiveLimiterOptions>().toEqualTypeOf<z.output<typeof AdaptiveLimiterOptionsSchema>>();
    expectTypeOf<GradientOptions>().toEqualTypeOf<z.input<typeof GradientOptionsSchema>>();
    expectTypeOf<AimdOptions>().toEqualTypeOf<z.input<typeof AimdOptionsSchema>>();
    expectTypeOf<VegasOptions>().toEqualTypeOf<z.input<typeof VegasOptionsSchema>>();
    expectTypeOf<SreBreakerOptions>().toEqualTypeOf<z.input<typeof SreBreakerOptionsSchema>>();
    expectTypeOf<ResolvedSreBreakerOptions>().toEqualTypeOf<z.output<typeof SreBreakerOptionsSchema>>();
    expectTypeOf<SreBreakerSnapshot>().toEqualTypeOf<z.output<typeof SreBreakerSnapshotSchema>>();
    expectTypeOf<AdaptiveBreakerOptions>().toEqualTypeOf<z.input<typeof AdaptiveBreakerOptionsSchema>>();
    expectTypeOf<ResolvedAdaptiveBreakerOptions>().toEqualTypeOf<z.output<typeof AdaptiveBreakerOptionsSchema>>();
    expectTypeOf<AdaptiveBreakerSnapshot>().toEqualTypeOf<z.output<typeof AdaptiveBreakerSnapshotSchema>>();
    expectTypeOf<CircuitBreakerOptions>().toEqualTypeOf<z.input<typeof CircuitBreakerOptionsSchema>>();
    expectTypeOf<ResolvedCircuitBreakerOptions>().toEqualTypeOf<z.output<typeof CircuitBreakerOptionsSchema>>();
    expectTypeOf<CircuitBreakerSnapshot>().toEqualTypeOf<z.output<typeof CircuitBreakerSnapshotSchema>>();
    expectTypeOf<BreakerRegistryOptions>().toEqualTypeOf<z.input<typeof BreakerRegistryOptionsSchema>>();
    // fault and result are typed more narrowly by hand (ChaosFault, ChaosResult<T>) than the schema can say.
    expectTypeOf<Omit<ChaosOptions, 'fault' | 'result'>>().toEqualTypeOf<Omit<z.input<typeof ChaosOptionsSchema>, 'fault' | 'result'>>();
  });
});
