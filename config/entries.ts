import { z } from 'zod';
import { DecisionTreeOptionsSchema } from '../policies/degrade/schema.js';
import { LoadShedderOptionsSchema } from '../policies/load-shedder/schema.js';
import { BulkheadOptionsSchema } from '../policies/bulkhead/schema.js';
import { IdempotentOptionsSchema } from '../policies/idempotent/schema.js';
import { RateAlgorithmConfigSchema } from '../policies/rate-limiter/schema.js';
import { AdaptiveLimiterShape, checkLimits } from '../policies/adaptive-limiter/schema.js';
import { CircuitBreakerVariants } from '../policies/circuit-breaker/schema.js';
import { checkSre, SreBreakerShape } from '../policies/sre-breaker/schema.js';
import { AdaptiveBreakerShape, checkAdaptive } from '../policies/adaptive-breaker/schema.js';
import { checkBuckets, checkSnapshotGrid } from '../policies/breaker/schema.js';
import { maxAtLeastInitial, type Backoff, type BackoffFunction } from '../policies/retry/backoff.js';
import type { RetryBudget } from '../policies/retry/budget.js';
import { ExponentialShape, SloBudgetOptionsSchema, TokenBudgetOptionsSchema } from '../policies/retry/schema.js';
import { TimeoutOptionsSchema } from '../policies/timeout/schema.js';
import { intAtLeast, nameSchema, nonNegativeMs, onceValid, positiveMs, ratio } from '../lib/schemas.js';

export const handlerName = z.string().min(1, { message: 'expected a handler name' });


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
/** A breaker entry's operator control (`setControl`); hot reload changes it in place. */
const control = {
  /**
   * The operator's control of the breaker: `'disabled'` (every call passes), `'metricsOnly'` (shadow: the breaker
   * runs, sheds nothing), `'forcedOpen'` (every call refused), or `'enforcing'`.
   * @defaultValue `'enforcing'`
   */
  control: z.enum(['enforcing', 'disabled', 'metricsOnly', 'forcedOpen']).optional(),
};
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
    .superRefine(checkMachine, onceValid),
) as unknown as [ZodStrictObject, ...ZodStrictObject[]];

/** How each policy `type` of a config is validated and built. */
export const entrySchemas = {
  sreBreaker: sreData.extend({ type: z.literal('sreBreaker'), ...control }).superRefine(checkSre, onceValid),
  adaptiveBreaker: adaptiveData.extend({ type: z.literal('adaptiveBreaker'), ...control }).superRefine(checkAdaptive, onceValid),
  circuitBreaker: z.discriminatedUnion(
    'strategy',
    (Object.values(CircuitBreakerVariants) as unknown as ZodStrictObject[]).map((v) =>
      v
        .omit({ clock: true, handle: true, handleResult: true } as never)
        .extend({ ...judges, ...('readyToTrip' in v.shape ? { readyToTrip: handlerName } : {}), type: z.literal('circuitBreaker'), ...control })
        .superRefine(checkMachine, onceValid),
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
          sreData.extend({ family: z.literal('sre') }).superRefine(checkSre, onceValid),
          adaptiveData.extend({ family: z.literal('adaptive').optional() }).superRefine(checkAdaptive, onceValid),
        ])
        .optional(),
      idleMs: positiveMs.optional(),
      name: nameSchema.optional(),
      ...control,
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
/** One policy entry of type `K`, as validated. */
export type Entry<K extends keyof Schemas> = K extends 'retry' ? RetryEntryConfig : z.output<Schemas[K]>;

/** One policy entry of a pipeline config, as written. */
export type PolicyConfig = z.input<typeof PolicyConfigSchema>;

/** The discriminated union of every policy entry, on `type`. */
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
