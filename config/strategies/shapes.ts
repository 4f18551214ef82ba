// The data form of each strategy's options, before the rules of the entries they are written out into
// (schemas.ts adds those, with expand.ts): so expand.ts can name the type without a circle.
import { z } from 'zod';
import { BulkheadOptionsSchema } from '../../policies/bulkhead/schema.js';
import { AdaptiveLimiterShape } from '../../policies/adaptive-limiter/schema.js';
import { RateAlgorithmConfigSchema } from '../../policies/rate-limiter/schema.js';
import { adaptiveData, BackoffConfigSchema, BudgetConfigSchema, checkAs, entrySchemas, handlerName, PolicyConfigSchema } from '../entries.js';
import { intAtLeast, nameSchema, nonNegativeMs, onceValid, positiveMs } from '../../lib/schemas.js';
import { DecisionTreeOptionsSchema } from '../../policies/degrade/schema.js';

/** Tuning of a state-machine breaker inside a strategy (the strategy fixes `strategy`). */
const BreakerTuning = z
  .object({
    threshold: z.number().nonnegative().optional(),
    minRequests: intAtLeast(0).optional(),
    windowMs: positiveMs.optional(),
    buckets: intAtLeast(1).optional(),
    openMs: positiveMs.optional(),
    probes: intAtLeast(1).optional(),
    maxHalfOpenMs: positiveMs.optional(),
    handle: handlerName.optional(),
    handleResult: handlerName.optional(),
  })
  .strict();

/** Tuning of the default breaker inside a strategy. */
const AdaptiveTuning = adaptiveData.omit({ name: true }).partial();

/**
 * An adaptive concurrency limit inside a strategy: `true` for the defaults,
 * its options, or `false` (none). The limiter wraps the per-attempt timeout,
 * under the retry: each attempt holds a slot and a timed-out attempt is a drop.
 */
const ConcurrencyTuning = z.union([
  z.boolean(),
  AdaptiveLimiterShape.omit({ clock: true, isOverload: true }).extend({ isOverload: handlerName.optional() }).partial(),
]);

/** `standard`'s retry budget unless told otherwise: retries at most half the first attempts, plus 10 a second. */
const STANDARD_BUDGET = { kind: 'token', ratio: 0.5, minPerSecond: 10, windowMs: 10_000 } as const;

const retryFields = {
  /** Total tries, the first included. @defaultValue 3 */
  maxAttempts: intAtLeast(1).optional(),
  /** @defaultValue exponential, 100 ms, x2, max 10 s, full jitter */
  backoff: BackoffConfigSchema.optional(),
  /** Which errors to retry (a handler name). */
  retryOn: handlerName.optional(),
};

/** A JSON value a fallback can answer with, when no handler is named. */
const json: z.ZodType<unknown> = z.unknown();

const base = { name: nameSchema.optional() };

/** The data form of each strategy's options, keyed by name. Functions are handler names. */
export const strategyShapes = {
  failFast: z.object({ strategy: z.literal('failFast'), ...base, timeoutMs: positiveMs.default(1_000), breaker: AdaptiveTuning.optional() }).strict(),
  boundedRetry: z
    .object({
      strategy: z.literal('boundedRetry'),
      ...base,
      attemptTimeoutMs: positiveMs.default(1_000),
      totalTimeoutMs: positiveMs.default(5_000),
      ...retryFields,
    })
    .strict(),
  budgetedRetry: z
    .object({
      strategy: z.literal('budgetedRetry'),
      ...base,
      timeoutMs: positiveMs.default(1_000),
      ...retryFields,
      /** @defaultValue `{ kind: 'token' }` (ratio 0.1, 10/s floor, 10 s window) */
      budget: BudgetConfigSchema.default({ kind: 'token', ratio: 0.1, minPerSecond: 10, windowMs: 10_000 }),
    })
    .strict(),
  standard: z
    .object({
      strategy: z.literal('standard'),
      ...base,
      timeoutMs: positiveMs.default(1_000),
      ...retryFields,
      /**
       * The retries' budget, or `false` for none. Retries may be at most half the first attempts of the
       * last 10 s, plus 10 a second: enough for 30 % independent errors (about 0.39 retries per first
       * attempt), and no outage can take the dependency's load past 1.5× (docs/retry.md).
       * @defaultValue `{ kind: 'token', ratio: 0.5, minPerSecond: 10, windowMs: 10_000 }`
       */
      budget: z.union([BudgetConfigSchema, z.literal(false)]).default(STANDARD_BUDGET),
      breaker: AdaptiveTuning.optional(),
      /**
       * An adaptive concurrency limit per attempt (Gradient2 by default), or `false` for none: under a
       * capacity drop it keeps the dependency's queue short enough to answer within `timeoutMs`.
       * @defaultValue true
       */
      concurrency: ConcurrencyTuning.default(true),
      fallback: handlerName,
    })
    .strict(),
  guardedRetry: z
    .object({
      strategy: z.literal('guardedRetry'),
      ...base,
      timeoutMs: positiveMs.default(1_000),
      breaker: BreakerTuning.optional(),
      ...retryFields,
    })
    .strict(),
  slowCallShield: z
    .object({
      strategy: z.literal('slowCallShield'),
      ...base,
      timeoutMs: positiveMs.default(2_000),
      slowCallMs: nonNegativeMs.default(1_000),
      breaker: BreakerTuning.optional(),
      /** How long a fresh value is served from the snapshot cache itself. @defaultValue 1 */
      cacheTtlMs: positiveMs.default(1),
      /** Named fallback when no stale value exists. */
      fallback: handlerName.optional(),
    })
    .strict()
    .refine((o) => o.timeoutMs > o.slowCallMs, { message: 'timeoutMs must exceed slowCallMs, or no call could ever be slow', path: ['timeoutMs'] }),
  errorCountTrip: z
    .object({
      strategy: z.literal('errorCountTrip'),
      ...base,
      threshold: intAtLeast(1).default(5),
      breaker: BreakerTuning.omit({ threshold: true }).optional(),
      fallback: handlerName.optional(),
      defaultValue: json.optional(),
    })
    .strict()
    .refine((o) => (o.fallback === undefined) !== (o.defaultValue === undefined), {
      message: 'give exactly one of fallback (a handler name) or defaultValue',
      path: ['fallback'],
    }),
  idempotentRetry: z
    .object({
      strategy: z.literal('idempotentRetry'),
      ...base,
      timeoutMs: positiveMs.default(1_000),
      ...retryFields,
      idempotent: entrySchemas.idempotent.omit({ type: true }).optional(),
    })
    .strict(),
  fallbackChain: z
    .object({
      strategy: z.literal('fallbackChain'),
      ...base,
      timeoutMs: positiveMs.default(1_000),
      breaker: AdaptiveTuning.optional(),
      cacheTtlMs: positiveMs.default(1),
      /** Secondary sources, tried in order after the stale value. */
      fallbacks: z.array(handlerName).default([]),
      defaultValue: json.optional(),
    })
    .strict(),
  layeredBreakers: z
    .object({
      strategy: z.literal('layeredBreakers'),
      ...base,
      timeoutMs: positiveMs.default(1_000),
      methodKey: z.string().min(1).default('method'),
      serviceKey: z.string().min(1).default('service'),
      method: AdaptiveTuning.optional(),
      service: AdaptiveTuning.optional(),
      fallback: handlerName,
    })
    .strict(),
  adaptiveDegrade: z
    .object({
      strategy: z.literal('adaptiveDegrade'),
      ...base,
      bulkhead: BulkheadOptionsSchema.omit({ clock: true, name: true }).optional(),
      rateLimiter: z.object({ algorithm: RateAlgorithmConfigSchema }).strict().optional(),
      thresholds: DecisionTreeOptionsSchema.optional(),
      signals: z.record(z.string(), z.union([z.number(), handlerName])).optional(),
      fallback: handlerName,
    })
    .strict()
    .refine((o) => o.bulkhead === undefined || o.rateLimiter === undefined, { message: 'give bulkhead or rateLimiter, not both', path: ['rateLimiter'] }),
} as const;

/** Strategy #9 as data: a writer whose functions and store are named in `handlers`. */
export const WriteBehindConfigSchema = z
  .object({
    strategy: z.literal('writeBehind'),
    ...base,
    deliver: handlerName,
    keyOf: handlerName.optional(),
    store: handlerName.optional(),
    timeoutMs: positiveMs.optional(),
    replayIntervalMs: positiveMs.optional(),
    batch: intAtLeast(1).optional(),
    breaker: AdaptiveTuning.optional(),
  })
  .strict()
  // The writer builds the default breaker from `breaker`: its cross-field rules (buckets divide windowMs) apply here too.
  .superRefine((o, ctx) => {
    if (o.breaker !== undefined) checkAs(entrySchemas.adaptiveBreaker, { type: 'adaptiveBreaker', ...o.breaker }, ['breaker'], ctx);
  }, onceValid);

/** A strategy config after validation (the same type the checked schemas give). */
export type StrategyConfig = z.output<(typeof strategyShapes)[keyof typeof strategyShapes]>;
