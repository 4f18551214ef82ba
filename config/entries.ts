import { z } from 'zod';
import { decisionTree, DecisionTree, degrade, DegradePolicy, type DegradeHandler, type DegradePredicate } from '../policies/degrade/index.js';
import { DecisionTreeOptionsSchema } from '../policies/degrade/schema.js';
import { loadShedder } from '../policies/load-shedder/index.js';
import { LoadShedderOptionsSchema } from '../policies/load-shedder/schema.js';
import type { SignalSource } from '../lib/signals.js';
import { bulkhead } from '../policies/bulkhead/index.js';
import { BulkheadOptionsSchema } from '../policies/bulkhead/schema.js';
import { idempotent, type IdempotencyCodec, type IdempotencyStore } from '../policies/idempotent/index.js';
import { IdempotentOptionsSchema } from '../policies/idempotent/schema.js';
import { rateLimiter } from '../policies/rate-limiter/index.js';
import { RateAlgorithmConfigSchema } from '../policies/rate-limiter/schema.js';
import { adaptiveLimiter } from '../policies/adaptive-limiter/index.js';
import { AdaptiveLimiterShape, checkLimits } from '../policies/adaptive-limiter/schema.js';
import { keyedBreaker, type BreakerRegistryOptions, type KeyOf } from '../policies/breaker-registry/index.js';
import { cache, type CacheStore } from '../policies/cache/index.js';
import { CircuitBreaker, circuitBreaker, type CircuitBreakerOptions } from '../policies/circuit-breaker/index.js';
import { CircuitBreakerVariants } from '../policies/circuit-breaker/schema.js';
import { SreBreaker, sreBreaker } from '../policies/sre-breaker/index.js';
import { checkSre, SreBreakerShape } from '../policies/sre-breaker/schema.js';
import { adaptiveBreaker, AdaptiveBreakerPolicy } from '../policies/adaptive-breaker/index.js';
import { AdaptiveBreakerShape, checkAdaptive } from '../policies/adaptive-breaker/schema.js';
import { checkBuckets, checkSnapshotGrid } from '../policies/breaker/schema.js';
import { chaos, type ChaosFault, type ChaosResult } from '../policies/chaos/index.js';
import { fallback, fallbackChain, type FallbackHandler } from '../policies/fallback/index.js';
import { hedge, type HedgeOptions } from '../policies/hedge/index.js';
import {
  constant,
  exponential,
  linear,
  retry,
  RetryPolicy,
  sloBudget,
  tokenBudget,
  type Backoff,
  type RetryBudget,
} from '../policies/retry/index.js';
import { isBackoff, maxAtLeastInitial, type BackoffFunction } from '../policies/retry/backoff.js';
import { ExponentialShape, SloBudgetOptionsSchema, TokenBudgetOptionsSchema } from '../policies/retry/schema.js';
import { isRetryBudget } from '../policies/retry/budget.js';
import { timeout, TimeoutPolicy } from '../policies/timeout/index.js';
import { TimeoutOptionsSchema } from '../policies/timeout/schema.js';
import { intAtLeast, nameSchema, nonNegativeMs, positiveMs, ratio } from '../lib/schemas.js';
import type { ExecutionContext } from '../lib/policy.js';
import type { Policy } from '../lib/policy.js';
import type { Resolver } from './resolve.js';

export const handlerName = z.string().min(1, { message: 'expected a handler name' });

/** Runs a cross-field rule only on fields that passed their own checks, so one mistake is not reported twice. */
export const onceValid = { when: (payload: z.core.ParsePayload): boolean => payload.issues.length === 0 };

/**
 * Re-reports on `ctx`, under `prefix`, what `schema` finds wrong with
 * `value`: how a schema carries the rules of the entries it is written out
 * into. Unknown keys are reported one by one and a union by its closest
 * branch, as `toConfigIssues` reads them.
 */
export function checkAs(schema: z.ZodType, value: unknown, prefix: readonly PropertyKey[], ctx: z.RefinementCtx): void {
  const r = schema.safeParse(value);
  if (!r.success) addIssues(r.error.issues, prefix, ctx);
}

function addIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[], ctx: z.RefinementCtx): void {
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'unrecognized_keys') for (const key of issue.keys) ctx.addIssue({ code: 'custom', path: [...path, key], message: 'unknown option' });
    else if (issue.code === 'invalid_union' && issue.errors.length > 0) addIssues(issue.errors.reduce((a, b) => (b.length < a.length ? b : a)), path, ctx);
    else ctx.addIssue({ code: 'custom', path, message: issue.message });
  }
}

/** Backoff as data: `{ kind: 'constant' | 'linear' | 'exponential', ... }`. */
export const BackoffConfigSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('constant'), ms: nonNegativeMs }).strict(),
  z.object({ kind: z.literal('linear'), ms: nonNegativeMs, step: nonNegativeMs }).strict(),
  ExponentialShape.extend({ kind: z.literal('exponential') }).refine(maxAtLeastInitial, { message: 'max must be >= initial', path: ['max'] }),
]);

/** A retry budget as data: `{ kind: 'token' | 'slo', ... }`. */
export const BudgetConfigSchema = z.discriminatedUnion('kind', [
  TokenBudgetOptionsSchema.extend({ kind: z.literal('token') }),
  SloBudgetOptionsSchema.extend({ kind: z.literal('slo') }),
]);

const judges = { handle: handlerName.optional(), handleResult: handlerName.optional() };
/** SRE breaker options as data (handler names for functions). */
export const sreData = SreBreakerShape.omit({ clock: true, random: true, handle: true, handleResult: true }).extend(judges);
/** The default breaker's options as data (handler names for functions). */
export const adaptiveData = AdaptiveBreakerShape.omit({ clock: true, random: true, handle: true, handleResult: true }).extend(judges);
type ZodStrictObject = z.ZodObject<z.ZodRawShape, z.core.$strict>;
/** The cross-field rules `circuitBreaker()` checks: buckets divide the window, a snapshot has the window's grid. */
function checkMachine(o: Record<string, unknown>, ctx: z.RefinementCtx): void {
  const options = o as unknown as Parameters<typeof checkSnapshotGrid>[0];
  checkBuckets(options, ctx);
  checkSnapshotGrid(options, ctx);
}
// The data form of each circuit-breaker strategy: functions become handler names.
const cbData = (Object.values(CircuitBreakerVariants) as unknown as ZodStrictObject[]).map((v) =>
  v
    .omit({ clock: true, handle: true, handleResult: true } as never)
    .extend({ ...judges, ...('readyToTrip' in v.shape ? { readyToTrip: handlerName } : {}) })
    .superRefine(checkMachine),
) as unknown as [ZodStrictObject, ...ZodStrictObject[]];

/** How each policy `type` of a config is validated and built. */
export const entrySchemas = {
  sreBreaker: sreData.extend({ type: z.literal('sreBreaker') }).superRefine(checkSre),
  adaptiveBreaker: adaptiveData.extend({ type: z.literal('adaptiveBreaker') }).superRefine(checkAdaptive),
  circuitBreaker: z.discriminatedUnion(
    'strategy',
    (Object.values(CircuitBreakerVariants) as unknown as ZodStrictObject[]).map((v) =>
      v
        .omit({ clock: true, handle: true, handleResult: true } as never)
        .extend({ ...judges, ...('readyToTrip' in v.shape ? { readyToTrip: handlerName } : {}), type: z.literal('circuitBreaker') })
        .superRefine(checkMachine),
    ) as unknown as [ZodStrictObject, ...ZodStrictObject[]],
  ),
  keyedBreaker: z
    .object({
      type: z.literal('keyedBreaker'),
      /** The `ctx.meta` label that keys the breakers (`'method'`, `'service'`, `'tenant'`). */
      metaKey: z.string().min(1).optional(),
      /** Or a named function `(ctx) => key`. */
      keyOf: handlerName.optional(),
      /** Options of each breaker: the default breaker's, a circuit breaker's when it names a `strategy`, an SRE breaker's with `family: 'sre'`. */
      defaults: z
        .union([
          z.discriminatedUnion('strategy', cbData),
          sreData.extend({ family: z.literal('sre') }).superRefine(checkSre),
          adaptiveData.extend({ family: z.literal('adaptive').optional() }).superRefine(checkAdaptive),
        ])
        .optional(),
      idleMs: positiveMs.optional(),
      name: nameSchema.optional(),
    })
    .strict()
    .superRefine((o, ctx) => {
      if (o.metaKey === undefined && o.keyOf === undefined) ctx.addIssue({ code: 'custom', path: ['metaKey'], message: 'give metaKey or keyOf' });
      if (o.metaKey !== undefined && o.keyOf !== undefined) ctx.addIssue({ code: 'custom', path: ['keyOf'], message: 'give metaKey or keyOf, not both' });
    }, onceValid),
  timeout: TimeoutOptionsSchema.omit({ clock: true }).extend({ type: z.literal('timeout') }),
  retry: z
    .object({
      type: z.literal('retry'),
      name: nameSchema.optional(),
      maxAttempts: intAtLeast(1).optional(),
      backoff: BackoffConfigSchema.optional(),
      budget: BudgetConfigSchema.optional(),
      maxDelayMs: nonNegativeMs.optional(),
      handle: handlerName.optional(),
      handleResult: handlerName.optional(),
    })
    .strict(),
  fallback: z
    .object({
      type: z.literal('fallback'),
      handler: handlerName,
      handle: handlerName.optional(),
      handleResult: handlerName.optional(),
      name: nameSchema.optional(),
    })
    .strict(),
  fallbackChain: z
    .object({
      type: z.literal('fallbackChain'),
      handlers: z.array(handlerName).min(1, { message: 'expected at least one handler name' }),
      name: nameSchema.optional(),
    })
    .strict(),
  degrade: z
    .object({
      type: z.literal('degrade'),
      when: z.union([z.object({ decisionTree: DecisionTreeOptionsSchema.optional() }).strict(), handlerName]),
      signals: z.record(z.string(), z.union([z.number(), handlerName])).optional(),
      to: handlerName,
      rateWindowMs: nonNegativeMs.optional(),
      name: nameSchema.optional(),
    })
    .strict(),
  bulkhead: BulkheadOptionsSchema.omit({ clock: true }).extend({ type: z.literal('bulkhead') }),
  rateLimiter: z.object({ type: z.literal('rateLimiter'), algorithm: RateAlgorithmConfigSchema, name: nameSchema.optional() }).strict(),
  adaptiveLimiter: AdaptiveLimiterShape.omit({ clock: true, isOverload: true })
    .extend({ type: z.literal('adaptiveLimiter'), isOverload: handlerName.optional() })
    .superRefine(checkLimits, onceValid),
  idempotent: IdempotentOptionsSchema.omit({ clock: true, store: true, key: true, codec: true, handleResult: true }).extend({
    type: z.literal('idempotent'),
    store: handlerName.optional(),
    key: handlerName.optional(),
    codec: handlerName.optional(),
    handleResult: handlerName.optional(),
  }),
  loadShedder: LoadShedderOptionsSchema.omit({ clock: true, cpu: true }).extend({ type: z.literal('loadShedder'), cpu: handlerName.optional() }),
  hedge: z
    .object({
      type: z.literal('hedge'),
      /** Delay before each hedge. */
      delayMs: nonNegativeMs.optional(),
      /** Hedge only after a failure (the data form of `delayMs: Infinity`). */
      afterFailure: z.boolean().optional(),
      maxHedged: intAtLeast(1).optional(),
      handle: handlerName.optional(),
      handleResult: handlerName.optional(),
      name: nameSchema.optional(),
    })
    .strict()
    .refine((o) => !(o.afterFailure === true && o.delayMs !== undefined), {
      message: 'afterFailure already sets the delay (hedge only after a failure): give delayMs or afterFailure, not both',
      path: ['delayMs'],
      ...onceValid,
    }),
  chaos: z
    .object({
      type: z.literal('chaos'),
      fault: handlerName.optional(),
      latency: z.union([nonNegativeMs, handlerName]).optional(),
      result: handlerName.optional(),
      injectionRate: ratio.optional(),
      enabled: z.union([z.boolean(), handlerName]).optional(),
      name: nameSchema.optional(),
    })
    .strict()
    // The rules of chaos(), with its messages and paths.
    .refine((o) => o.fault !== undefined || o.latency !== undefined || o.result !== undefined, {
      message: 'give at least one of fault, latency or result',
      path: ['fault'],
      ...onceValid,
    })
    .refine((o) => o.fault === undefined || o.result === undefined, {
      message: 'fault and result are exclusive (pipe two chaos policies to have both)',
      path: ['result'],
      ...onceValid,
    }),
  cache: z
    .object({
      type: z.literal('cache'),
      ttlMs: positiveMs,
      staleWhileRevalidateMs: nonNegativeMs.optional(),
      retainMs: positiveMs.optional(),
      store: handlerName.optional(),
      key: handlerName.optional(),
      handleResult: handlerName.optional(),
      name: nameSchema.optional(),
    })
    .strict()
    // The rule of cache(), with its message and path (an absent retainMs is Infinity).
    .refine((o) => o.retainMs === undefined || o.retainMs >= o.ttlMs + (o.staleWhileRevalidateMs ?? 0), {
      message: 'retainMs must be >= ttlMs + staleWhileRevalidateMs',
      path: ['retainMs'],
      ...onceValid,
    }),
} as const;

type Schemas = typeof entrySchemas;

/**
 * A retry entry as validated. Its `backoff` and `budget` are data, or, in a
 * pipeline built by a strategy's code form, the objects given there, used as
 * they are (a shared budget stays shared).
 */
export type RetryEntryConfig = Omit<z.output<Schemas['retry']>, 'backoff' | 'budget'> & {
  backoff?: z.output<typeof BackoffConfigSchema> | Backoff | BackoffFunction;
  budget?: z.output<typeof BudgetConfigSchema> | RetryBudget;
};

/** One policy of a config, by `type`. */
export type EntryConfig = { [K in Exclude<keyof Schemas, 'retry'>]: z.output<Schemas[K]> }[Exclude<keyof Schemas, 'retry'>] | RetryEntryConfig;
type Entry<K extends keyof Schemas> = K extends 'retry' ? RetryEntryConfig : z.output<Schemas[K]>;

function backoffOf(b: Entry<'retry'>['backoff']): Backoff | BackoffFunction | undefined {
  if (b === undefined || typeof b === 'function' || isBackoff(b)) return b;
  if (b.kind === 'constant') return constant(b.ms);
  if (b.kind === 'linear') return linear(b.ms, b.step);
  const { kind: _kind, ...rest } = b;
  return exponential(rest);
}

function budgetOf(b: Entry<'retry'>['budget']): RetryBudget | undefined {
  if (b === undefined || isRetryBudget(b)) return b;
  if (b.kind === 'token') {
    const { kind: _k, ...rest } = b;
    return tokenBudget(rest);
  }
  const { kind: _k, ...rest } = b;
  return sloBudget(rest);
}

const isSignalSource = (v: unknown): v is SignalSource =>
  typeof v === 'number' || typeof v === 'function' || (typeof v === 'object' && v !== null);

function retryOptions(e: Entry<'retry'>, r: Resolver, path: string) {
  return {
    maxAttempts: e.maxAttempts,
    backoff: backoffOf(e.backoff),
    budget: budgetOf(e.budget),
    ...(e.maxDelayMs !== undefined ? { maxDelayMs: e.maxDelayMs } : {}),
    handle: r.optionalFn<(error: unknown) => boolean>(e.handle, `${path}.handle`),
    handleResult: r.optionalFn<(result: unknown) => boolean>(e.handleResult, `${path}.handleResult`),
  };
}

function degradeOptions(e: Entry<'degrade'>, r: Resolver, path: string) {
  const when =
    typeof e.when === 'string' ? r.fn<DegradePredicate>(e.when, `${path}.when`) : decisionTree(e.when.decisionTree);
  const signals: Record<string, SignalSource> = {};
  for (const [k, v] of Object.entries(e.signals ?? {})) {
    const source = typeof v === 'number' ? v : r.value(v, `${path}.signals.${k}`, isSignalSource, 'a number, a function or an Observable');
    if (source !== undefined) signals[k] = source;
  }
  return { when, signals, to: r.fn<DegradeHandler<unknown>>(e.to, `${path}.to`), rateWindowMs: e.rateWindowMs };
}

const isStore = (v: unknown): v is CacheStore => typeof v === 'object' && v !== null && typeof (v as CacheStore).get === 'function';
const named = <V>(name: string | undefined, v: V | undefined): { [k: string]: V } | object => (name === undefined || v === undefined ? {} : { [name]: v });

function hedgeOptions(e: Entry<'hedge'>, r: Resolver, path: string): HedgeOptions {
  return {
    ...(e.afterFailure ? { delayMs: Infinity } : e.delayMs !== undefined ? { delayMs: e.delayMs } : {}),
    ...(e.maxHedged !== undefined ? { maxHedged: e.maxHedged } : {}),
    ...named('handle', r.optionalFn<(error: unknown) => boolean>(e.handle, `${path}.handle`)),
    ...named('handleResult', r.optionalFn<(result: unknown) => boolean>(e.handleResult, `${path}.handleResult`)),
    ...(e.name ? { name: e.name } : {}),
  };
}

function chaosOptions(e: Entry<'chaos'>, r: Resolver, path: string) {
  const latency = typeof e.latency === 'string' ? r.fn<(ctx: ExecutionContext) => number>(e.latency, `${path}.latency`) : e.latency;
  const enabled = typeof e.enabled === 'string' ? r.fn<(ctx: ExecutionContext) => boolean>(e.enabled, `${path}.enabled`) : e.enabled;
  return {
    ...named('fault', r.optionalFn<(ctx: ExecutionContext) => unknown>(e.fault, `${path}.fault`) as ChaosFault | undefined),
    ...named('latency', latency),
    ...named('result', r.optionalFn<ChaosResult<unknown>>(e.result, `${path}.result`)),
    ...named('enabled', enabled),
    ...(e.injectionRate !== undefined ? { injectionRate: e.injectionRate } : {}),
    ...(e.name ? { name: e.name } : {}),
  };
}

/** Resolves the handler names of breaker options. */
function breakerOptions(o: Record<string, unknown>, r: Resolver, path: string): Record<string, unknown> {
  const { type: _t, handle, handleResult, readyToTrip, ...rest } = o;
  return {
    ...rest,
    ...named('handle', r.optionalFn(handle as string | undefined, `${path}.handle`)),
    ...named('handleResult', r.optionalFn(handleResult as string | undefined, `${path}.handleResult`)),
    ...named('readyToTrip', r.optionalFn(readyToTrip as string | undefined, `${path}.readyToTrip`)),
  };
}

/** The entry's key function; the schema has made sure exactly one of `keyOf` and `metaKey` is given. */
function keyOfEntry(e: { metaKey?: string; keyOf?: string }, r: Resolver, path: string): KeyOf {
  if (e.keyOf !== undefined) return r.fn<KeyOf>(e.keyOf, `${path}.keyOf`);
  const label = e.metaKey!;
  return (ctx) => ctx.meta[label] ?? '';
}

/** Builds the policy an entry describes, resolving handler names through `r`. */
export function buildEntry(e: EntryConfig, r: Resolver, path: string): Policy<unknown> {
  const { clock, random } = r.env;
  switch (e.type) {
    case 'sreBreaker':
      return sreBreaker({ ...breakerOptions(e, r, path), clock, random });
    case 'adaptiveBreaker':
      return adaptiveBreaker({ ...breakerOptions(e, r, path), clock, random });
    case 'circuitBreaker':
      return circuitBreaker({ ...breakerOptions(e, r, path), clock } as unknown as CircuitBreakerOptions);
    case 'keyedBreaker': {
      const defaults = e.defaults === undefined ? undefined : breakerOptions(e.defaults, r, `${path}.defaults`);
      return keyedBreaker(keyOfEntry(e, r, path), {
        ...(defaults ? { defaults: defaults as BreakerRegistryOptions['defaults'] } : {}),
        ...(e.idleMs !== undefined ? { idleMs: e.idleMs } : {}),
        ...(e.name ? { name: e.name } : {}),
        clock,
        random,
      });
    }
    case 'timeout': {
      const { type: _t, ...o } = e;
      return timeout({ ...o, clock });
    }
    case 'retry':
      return retry({ ...retryOptions(e, r, path), ...(e.name ? { name: e.name } : {}), clock, random });
    case 'fallback':
      return fallback(r.fn<FallbackHandler<unknown>>(e.handler, `${path}.handler`), {
        handle: r.optionalFn(e.handle, `${path}.handle`),
        handleResult: r.optionalFn(e.handleResult, `${path}.handleResult`),
        ...(e.name ? { name: e.name } : {}),
      });
    case 'fallbackChain': {
      const p = fallbackChain(...e.handlers.map((h, i) => r.fn<FallbackHandler<unknown>>(h, `${path}.handlers[${i}]`)));
      return e.name ? Object.assign(p, { name: e.name }) : p;
    }
    case 'degrade':
      return degrade({ ...degradeOptions(e, r, path), ...(e.name ? { name: e.name } : {}), clock });
    case 'loadShedder': {
      const { type: _t, cpu, ...o } = e;
      const source = cpu === undefined ? undefined : r.value(cpu, `${path}.cpu`, isSignalSource, 'a number, a function or an Observable');
      return loadShedder({ ...o, ...(source !== undefined ? { cpu: source } : {}), clock });
    }
    case 'hedge':
      return hedge({ ...hedgeOptions(e, r, path), clock });
    case 'bulkhead': {
      const { type: _t, ...o } = e;
      return bulkhead({ ...o, clock });
    }
    case 'rateLimiter':
      return rateLimiter({ algorithm: e.algorithm, ...(e.name ? { name: e.name } : {}), clock });
    case 'adaptiveLimiter': {
      const { type: _t, isOverload, ...o } = e;
      return adaptiveLimiter({ ...o, ...named('isOverload', r.optionalFn<(error: unknown) => boolean>(isOverload, `${path}.isOverload`)), clock });
    }
    case 'idempotent': {
      const { type: _t, store, key, codec, handleResult, ...o } = e;
      const isObj = (v: unknown): v is object => typeof v === 'object' && v !== null;
      return idempotent({
        ...o,
        ...named('store', store === undefined ? undefined : (r.value(store, `${path}.store`, isObj, 'an IdempotencyStore') as IdempotencyStore | undefined)),
        ...named('key', r.optionalFn<(ctx: ExecutionContext) => string | undefined>(key, `${path}.key`)),
        ...named('codec', codec === undefined ? undefined : (r.value(codec, `${path}.codec`, isObj, 'a codec') as IdempotencyCodec | undefined)),
        ...named('handleResult', r.optionalFn<(result: unknown) => boolean>(handleResult, `${path}.handleResult`)),
        clock,
      });
    }
    case 'chaos':
      return chaos({ ...chaosOptions(e, r, path), clock, random });
    case 'cache': {
      const { type: _t, store, key, handleResult, ...o } = e;
      return cache({
        ...o,
        ...named('store', store === undefined ? undefined : r.value(store, `${path}.store`, isStore, 'a CacheStore')),
        ...named('key', r.optionalFn<(ctx: ExecutionContext) => string | undefined>(key, `${path}.key`)),
        ...named('handleResult', r.optionalFn<(result: unknown) => boolean>(handleResult, `${path}.handleResult`)),
        clock,
      });
    }
  }
  throw new Error(`unknown policy type ${(e as { type: string }).type}`);
}

/** The entry as canonical JSON (keys sorted), to tell whether an entry changed. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

/** The degrade entry without its decision tree's thresholds: the only part that changes in place. */
function degradeShape(e: EntryConfig): unknown {
  return e.type === 'degrade' && typeof e.when === 'object' ? { ...e, when: { ...e.when, decisionTree: undefined } } : e;
}

/**
 * Applies a new entry to a policy built from `previous`, an entry of the
 * same type, keeping its state (hot reload). An unchanged entry is left
 * alone. Returns false when the change cannot be made in place (the caller
 * then refuses the whole config).
 */
export function reconfigureEntry(policy: Policy<unknown>, e: EntryConfig, r: Resolver, path: string, previous: EntryConfig): boolean {
  if (canonical(e) === canonical(previous)) return true;
  switch (e.type) {
    case 'sreBreaker':
      if (!(policy instanceof SreBreaker)) return false;
      policy.reconfigure(breakerOptions(e, r, path));
      return true;
    case 'adaptiveBreaker':
      if (!(policy instanceof AdaptiveBreakerPolicy)) return false;
      policy.reconfigure(breakerOptions(e, r, path));
      return true;
    case 'circuitBreaker':
      if (!(policy instanceof CircuitBreaker)) return false;
      policy.reconfigure(breakerOptions(e, r, path) as unknown as CircuitBreakerOptions);
      return true;
    case 'timeout':
      if (!(policy instanceof TimeoutPolicy)) return false;
      policy.reconfigure({ ms: e.ms, mode: e.mode });
      return true;
    case 'retry':
      if (!(policy instanceof RetryPolicy)) return false;
      policy.reconfigure(retryOptions(e, r, path));
      return true;
    case 'degrade': {
      // Only the decision tree's thresholds change in place; a predicate, signals or handler swap needs a new pipeline.
      if (!(policy instanceof DegradePolicy) || typeof e.when === 'string' || !(policy.decision instanceof DecisionTree)) return false;
      if (canonical(degradeShape(e)) !== canonical(degradeShape(previous))) return false;
      policy.decision.setThresholds(e.when.decisionTree ?? {});
      return true;
    }
    default:
      return false;
  }
}

/** The discriminated union of every policy entry, on `type`. */
/** One policy entry of a pipeline config, as written. */
export type PolicyConfig = z.input<typeof PolicyConfigSchema>;

export const PolicyConfigSchema = z.discriminatedUnion('type', [
  entrySchemas.sreBreaker,
  entrySchemas.adaptiveBreaker,
  entrySchemas.circuitBreaker,
  entrySchemas.keyedBreaker,
  entrySchemas.timeout,
  entrySchemas.retry,
  entrySchemas.fallback,
  entrySchemas.fallbackChain,
  entrySchemas.degrade,
  entrySchemas.loadShedder,
  entrySchemas.bulkhead,
  entrySchemas.rateLimiter,
  entrySchemas.adaptiveLimiter,
  entrySchemas.idempotent,
  entrySchemas.hedge,
  entrySchemas.chaos,
  entrySchemas.cache,
]);
