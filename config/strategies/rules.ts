// The plain rules of each strategy's options in data form (functions already replaced by handler names), for
// `strategies.<name>(options)`: the same checks, paths and messages as the zod schemas of `breakwater/config`
// (shapes.ts), without loading zod. The rules of the policies a strategy is written out into are not repeated here:
// each policy checks its own options when it is built, and a refusal is reported under the strategy option it came
// from (as the schemas' expansion check reports it).
import {
  anything,
  array,
  boolean,
  defineRule,
  discriminated,
  either,
  expectedType,
  intAtLeast,
  name,
  nonEmptyString,
  nonNegativeMs,
  object,
  oneOf,
  optional,
  positiveMs,
  record,
  withDefault,
  type ObjectRule,
  type Rule,
  type Shape,
} from '../../lib/options.js';
import { adaptiveBreakerOptions } from '../../policies/adaptive-breaker/options.js';
import { adaptiveLimiterOptions } from '../../policies/adaptive-limiter/options.js';
import { bulkheadOptions } from '../../policies/bulkhead/options.js';
import { decisionTreeOptions } from '../../policies/degrade/decision-tree.js';
import { idempotentOptions } from '../../policies/idempotent/options.js';
import { rateAlgorithmConfig } from '../../policies/rate-limiter/options.js';
import { exponentialOptions, maxAtLeastInitial } from '../../policies/retry/backoff.js';
import { sloBudgetOptions, tokenBudgetOptions } from '../../policies/retry/budget.js';

/** A handler name: what a function is called in data. */
export const handlerName: Rule<string> = /* @__PURE__ */ nonEmptyString('expected a handler name');

/** A number of any sign, in zod's own words. */
function anyNumber(min?: number): Rule<number> {
  return (value, path, found) => {
    if (typeof value !== 'number' || !Number.isFinite(value)) found.add(path, expectedType('number', value), true);
    else if (min !== undefined && value < min) found.add(path, `Too small: expected number to be >=${min}`, false);
    return value as number;
  };
}

/** A string of one character or more, in zod's own words. */
function someString(): Rule<string> {
  return (value, path, found) => {
    if (typeof value !== 'string') found.add(path, expectedType('string', value), true);
    else if (value.length === 0) found.add(path, 'Too small: expected string to have >=1 characters', false);
    return value as string;
  };
}

/** The keys of `rule` but `drop`, and `extra`: a policy's options in data form. */
function reshape(rule: ObjectRule<Shape>, drop: readonly string[], extra: Shape = {}): Shape {
  const shape: Record<string, Rule<unknown>> = {};
  for (const [key, r] of Object.entries(rule.shape)) if (!drop.includes(key)) shape[key] = r;
  return { ...shape, ...extra };
}

const judges = /* @__PURE__ */ defineRule(() => ({ handle: optional(handlerName), handleResult: optional(handlerName) }));

/** Tuning of a state-machine breaker inside a strategy (the strategy fixes its trip rule). */
const breakerTuning = /* @__PURE__ */ defineRule(() => ({
  threshold: optional(anyNumber(0)),
  minRequests: optional(intAtLeast(0)),
  windowMs: optional(positiveMs),
  buckets: optional(intAtLeast(1)),
  openMs: optional(positiveMs),
  probes: optional(intAtLeast(1)),
  maxHalfOpenMs: optional(positiveMs),
  ...judges,
}));

/** Tuning of the default breaker inside a strategy. */
const adaptiveTuning = /* @__PURE__ */ defineRule(() => object(reshape(adaptiveBreakerOptions, ['name', 'clock', 'random', 'handle', 'handleResult'], judges)));

/** An adaptive concurrency limit inside a strategy: `true` for the defaults, its options, or `false`. */
const concurrencyTuning = /* @__PURE__ */ defineRule(() => either(boolean, object(reshape(adaptiveLimiterOptions, ['name', 'clock', 'isOverload'], { name: optional(name), isOverload: optional(handlerName) }))));

/** Backoff as data: `{ kind: 'constant' | 'linear' | 'exponential', ... }`. */
export const backoffData = /* @__PURE__ */ defineRule(() => discriminated('kind', {
  constant: object({ kind: oneOf(['constant']), ms: nonNegativeMs }),
  linear: object({ kind: oneOf(['linear']), ms: nonNegativeMs, step: nonNegativeMs }),
  exponential: object({ kind: oneOf(['exponential']), ...exponentialOptions.shape }, (o, add) => {
    if (!maxAtLeastInitial(o)) add('max must be >= initial', ['max']);
  }),
}));

/** A retry budget as data: `{ kind: 'token' | 'slo', ... }`. */
export const budgetData = /* @__PURE__ */ defineRule(() => discriminated('kind', {
  token: object({ kind: oneOf(['token']), ...tokenBudgetOptions.shape }),
  slo: object({ kind: oneOf(['slo']), ...sloBudgetOptions.shape }),
}));

const retryFields = /* @__PURE__ */ defineRule(() => ({ maxAttempts: optional(intAtLeast(1)), backoff: optional(backoffData), retryOn: optional(handlerName) }));

const STANDARD_BUDGET = { kind: 'token', ratio: 0.5, minPerSecond: 10, windowMs: 10_000 } as const;

const strategy = <N extends string>(n: N) => ({ strategy: oneOf([n] as const), name: optional(name) });

/** The plain rules of each strategy's options in data form, keyed by name (`writeBehind` aside: a writer). */
export const strategyRules = /* @__PURE__ */ defineRule(() => ({
  failFast: object({ ...strategy('failFast'), timeoutMs: withDefault(positiveMs, 1_000), breaker: optional(adaptiveTuning) }),
  boundedRetry: object({
    ...strategy('boundedRetry'),
    attemptTimeoutMs: withDefault(positiveMs, 1_000),
    totalTimeoutMs: withDefault(positiveMs, 5_000),
    ...retryFields,
  }),
  budgetedRetry: object({
    ...strategy('budgetedRetry'),
    timeoutMs: withDefault(positiveMs, 1_000),
    ...retryFields,
    budget: withDefault(budgetData, { kind: 'token', ratio: 0.1, minPerSecond: 10, windowMs: 10_000 }),
  }),
  standard: object({
    ...strategy('standard'),
    timeoutMs: withDefault(positiveMs, 1_000),
    ...retryFields,
    budget: withDefault(either(budgetData, oneOf([false] as const)), STANDARD_BUDGET),
    breaker: optional(adaptiveTuning),
    concurrency: withDefault(concurrencyTuning, true),
    fallback: handlerName,
  }),
  guardedRetry: object({ ...strategy('guardedRetry'), timeoutMs: withDefault(positiveMs, 1_000), breaker: optional(object(breakerTuning)), ...retryFields }),
  slowCallShield: object(
    {
      ...strategy('slowCallShield'),
      timeoutMs: withDefault(positiveMs, 2_000),
      slowCallMs: withDefault(nonNegativeMs, 1_000),
      breaker: optional(object(breakerTuning)),
      cacheTtlMs: withDefault(positiveMs, 1),
      fallback: optional(handlerName),
    },
    (o, add) => {
      if (!(o.timeoutMs > o.slowCallMs)) add('timeoutMs must exceed slowCallMs, or no call could ever be slow', ['timeoutMs']);
    },
  ),
  errorCountTrip: object(
    {
      ...strategy('errorCountTrip'),
      threshold: withDefault(intAtLeast(1), 5),
      breaker: optional(object(reshape(object(breakerTuning), ['threshold']))),
      fallback: optional(handlerName),
      defaultValue: optional(anything),
    },
    (o, add) => {
      if ((o.fallback === undefined) === (o.defaultValue === undefined)) add('give exactly one of fallback (a handler name) or defaultValue', ['fallback']);
    },
  ),
  idempotentRetry: object({
    ...strategy('idempotentRetry'),
    timeoutMs: withDefault(positiveMs, 1_000),
    ...retryFields,
    idempotent: optional(
      object(
        reshape(idempotentOptions, ['clock', 'store', 'key', 'codec', 'handleResult'], {
          store: optional(handlerName),
          key: optional(handlerName),
          codec: optional(handlerName),
          handleResult: optional(handlerName),
        }),
      ),
    ),
  }),
  fallbackChain: object({
    ...strategy('fallbackChain'),
    timeoutMs: withDefault(positiveMs, 1_000),
    breaker: optional(adaptiveTuning),
    cacheTtlMs: withDefault(positiveMs, 1),
    fallbacks: withDefault(array(handlerName), []),
    defaultValue: optional(anything),
  }),
  layeredBreakers: object({
    ...strategy('layeredBreakers'),
    timeoutMs: withDefault(positiveMs, 1_000),
    methodKey: withDefault(someString(), 'method'),
    serviceKey: withDefault(someString(), 'service'),
    method: optional(adaptiveTuning),
    service: optional(adaptiveTuning),
    fallback: handlerName,
  }),
  adaptiveDegrade: object(
    {
      ...strategy('adaptiveDegrade'),
      bulkhead: optional(object(reshape(bulkheadOptions, ['clock', 'name']))),
      rateLimiter: optional(object({ algorithm: rateAlgorithmConfig })),
      thresholds: optional(decisionTreeOptions),
      signals: optional(record(either(anyNumber(), handlerName))),
      fallback: handlerName,
    },
    (o, add) => {
      if (o.bulkhead !== undefined && o.rateLimiter !== undefined) add('give bulkhead or rateLimiter, not both', ['rateLimiter']);
    },
  ),
}) as const);
