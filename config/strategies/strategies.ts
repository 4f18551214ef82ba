import type { z } from 'zod';
import { isBackoff, type Backoff, type BackoffFunction } from '../../policies/retry/backoff.js';
import { isRetryBudget, type RetryBudget } from '../../policies/retry/budget.js';
import type { AdaptiveLimiterOptions } from '../../policies/adaptive-limiter/index.js';
import type { Clock } from '../../lib/clock.js';
import { ConfigError } from '../../lib/errors.js';
import { checkOptions } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import type { EntryConfig } from '../entries.js';
import { ConfigPipeline, type Parsed } from '../pipeline.js';
import type { Handlers } from '../resolve.js';
import { expand } from './expand.js';
import { strategyRules } from './rules.js';
import type { strategySchemas } from './schemas.js';
import type { StrategyConfig } from './shapes.js';
import { writeBehind, type WriteBehind, type WriteBehindOptions } from '../write-behind/write-behind.js';

/** What every strategy function accepts besides its own options. */
export interface StrategyEnv {
  /** The clock of every policy of the strategy. @defaultValue the system clock */
  clock?: Clock;
  /** The random source of every policy that draws one. @defaultValue `Math.random` */
  random?: () => number;
}

/** In code, `backoff` and `budget` take what `retry()` takes as well as their data form. */
type InCode<D> = {
  [K in keyof D]: K extends 'backoff' ? D[K] | Backoff | BackoffFunction : K extends 'budget' ? D[K] | RetryBudget : D[K];
};

type Data<N extends keyof typeof strategySchemas> = InCode<Omit<z.input<(typeof strategySchemas)[N]>, 'strategy'>>;

/** A handler answering a failed (or degraded) call. */
type Answer<F> = (error: unknown, ctx: ExecutionContext) => F | PromiseLike<F>;

/** A strategy's adaptive concurrency limit in code: `true` for the defaults, or {@link AdaptiveLimiterOptions} (its clock is the strategy's). */
type Concurrency = boolean | Omit<AdaptiveLimiterOptions, 'clock'>;

/**
 * The options of a strategy as you write them in code: its data options,
 * where every field that names a handler in config takes the function (or
 * store, or Observable) itself.
 */
export type StrategyOptions<N extends keyof typeof strategySchemas, Fns = object> = Omit<Data<N>, keyof Fns> & Fns & StrategyEnv;

function isPlain(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Replaces every value that cannot be data (a function, a store, an
 * Observable: anything but plain objects, arrays and primitives) by a
 * generated handler name, so code options go through the same schema and
 * expansion as config.
 */
function lift(value: unknown, handlers: Record<string, unknown>): unknown {
  if (Array.isArray(value)) return value.map((v) => lift(v, handlers));
  if (isPlain(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = lift(v, handlers);
    return out;
  }
  if (typeof value === 'function' || (typeof value === 'object' && value !== null)) {
    const name = `$fn${Object.keys(handlers).length}`;
    handlers[name] = value;
    return name;
  }
  return value;
}

/** Objects a strategy's code form passes to its retry policy as they are: they cannot be data. */
interface RetryObjects {
  readonly backoff?: Backoff | BackoffFunction;
  readonly budget?: RetryBudget;
}

/**
 * Takes out of `options` a backoff or a retry budget given as an object (or
 * a backoff function), for a strategy that has the option: the built retry
 * uses it as it is, so one budget object shared by several pipelines is one
 * budget. Their data form stays in `options`, for the rules.
 */
function retryObjects(strategy: keyof typeof strategySchemas, options: Record<string, unknown>): RetryObjects {
  const shape = strategyRules[strategy].shape as Record<string, unknown>;
  const { backoff, budget } = options;
  const objects: { backoff?: Backoff | BackoffFunction; budget?: RetryBudget } = {};
  if ('backoff' in shape && (isBackoff(backoff) || typeof backoff === 'function')) {
    objects.backoff = backoff as Backoff | BackoffFunction;
    delete options.backoff;
  }
  if ('budget' in shape && isRetryBudget(budget)) {
    objects.budget = budget;
    delete options.budget;
  }
  return objects;
}

/**
 * A strategy's data checked by its plain rules (a `ConfigError` lists every
 * problem) and written out as its policy entries, each retry entry taking
 * `objects` in place of its data form. The policies check their own options
 * when built, each refusal reported under the strategy option it came from.
 */
function parseStrategy(config: unknown, objects: RetryObjects = {}): Parsed {
  const strategy = (config as { strategy?: unknown } | null)?.strategy;
  const rule = typeof strategy === 'string' && Object.hasOwn(strategyRules, strategy) ? strategyRules[strategy as keyof typeof strategyRules] : undefined;
  if (rule === undefined) throw new ConfigError('config', [{ path: 'strategy', message: `expected one of ${Object.keys(strategyRules).join(', ')}` }]);
  const data = checkOptions<unknown>(rule, config, 'config') as StrategyConfig;
  const expansion = expand(data);
  return {
    name: data.name,
    strategy: data.strategy,
    entries: expansion.entries.map(({ entry }) => (entry.type === 'retry' ? { ...entry, ...objects } : entry) as EntryConfig),
    paths: expansion.entries.map((x) => x.source),
    extra: expansion.handlers,
    bind: expansion.bind,
  };
}

function make<T>(strategy: keyof typeof strategySchemas, options: object): ConfigPipeline<T> {
  const { clock, random, ...rest } = options as Record<string, unknown> & StrategyEnv;
  const objects = retryObjects(strategy, rest);
  const handlers: Handlers = {};
  const data = lift(rest, handlers as Record<string, unknown>) as Record<string, unknown>;
  // `defaultValue` is data even when it is an object: keep it as given.
  if ('defaultValue' in rest) data.defaultValue = rest.defaultValue;
  return new ConfigPipeline<T>(parseStrategy({ strategy, ...data }, objects), handlers, { clock, random }, (config) => parseStrategy(config));
}

/**
 * The named combination strategies of strategies.md, each a preset chain of
 * breakwater's own policies, innermost first. `strategies.standard(options)`
 * is the same as `fromConfig({ strategy: 'standard', ...options })` and as
 * its builder chain written out.
 *
 * @example
 * ```ts
 * const users = strategies.standard({ timeoutMs: 300, maxAttempts: 3, fallback: () => null });
 * const user = await users.execute((ctx) => getUser(id, ctx.signal)); // User | null
 * ```
 */
export const strategies = {
  /** #1 `timeout(t) → breaker()`: fail fast instead of queueing on a sick dependency. */
  failFast: (options: StrategyOptions<'failFast'> = {}): ConfigPipeline<never> => make('failFast', options),
  /** #2 `timeout(perAttempt) → retry(exponential, jitter) → timeout(total)`: each attempt and the whole call bounded. */
  boundedRetry: (options: StrategyOptions<'boundedRetry', { retryOn?: (error: unknown) => boolean }> = {}): ConfigPipeline<never> =>
    make('boundedRetry', options),
  /** #3 `timeout(t) → retry({ budget: tokenBudget() })`, or an `sloBudget`: retries that cannot multiply the load in an outage. */
  budgetedRetry: (options: StrategyOptions<'budgetedRetry', { retryOn?: (error: unknown) => boolean }> = {}): ConfigPipeline<never> =>
    make('budgetedRetry', options),
  /** #4 `timeout → retry → breaker → fallback`: the canonical chain (go-zero DoWithFallback). */
  standard: <F>(options: StrategyOptions<'standard', { fallback: Answer<F>; retryOn?: (error: unknown) => boolean; concurrency?: Concurrency }>): ConfigPipeline<F> =>
    make<F>('standard', options),
  /** #5 `timeout → circuitBreaker(errorRatio) → retry`: each attempt recorded, no retry into an open circuit (resilience4j's order). */
  guardedRetry: (options: StrategyOptions<'guardedRetry', { retryOn?: (error: unknown) => boolean }> = {}): ConfigPipeline<never> =>
    make('guardedRetry', options),
  /**
   * #6 `timeout → cache(last good) → circuitBreaker(slowCallRatio) → fallbackChain(stale value, fallback?)`:
   * trips on slow calls and answers from the last good value per `ctx.key`.
   */
  slowCallShield: <F = never>(options: StrategyOptions<'slowCallShield', { fallback?: Answer<F> }> = {}): ConfigPipeline<unknown> =>
    make('slowCallShield', options),
  /** #7 `circuitBreaker(consecutiveFailures, 5) → fallback(default value)`: open after 5 failures in a row, and answer with a default meanwhile (silent degradation). */
  errorCountTrip: <F>(options: StrategyOptions<'errorCountTrip', { fallback?: Answer<F>; defaultValue?: F }>): ConfigPipeline<F> =>
    make<F>('errorCountTrip', options),
  /** #8 `timeout → retry → idempotent`: retried writes that run once per key. */
  idempotentRetry: (options: StrategyOptions<'idempotentRetry', { retryOn?: (error: unknown) => boolean; idempotent?: Record<string, unknown> }> = {}): ConfigPipeline<never> =>
    make('idempotentRetry', options),
  /**
   * #9 a writer, not a pipeline: `deliver(payload)` through `timeout → breaker`, queued durably when that
   * fails or is shed, replayed in order per key. See {@link writeBehind}.
   */
  writeBehind: <P>(options: WriteBehindOptions<P>): WriteBehind<P> => writeBehind(options),
  /**
   * #10 `timeout → cache(last good) → breaker → fallbackChain(stale value, ...fallbacks, default)`:
   * the answers tried in order, best first.
   */
  fallbackChain: <F = never, D = never>(
    options: StrategyOptions<'fallbackChain', { fallbacks?: readonly Answer<F>[]; defaultValue?: D }> = {},
  ): ConfigPipeline<unknown> => make('fallbackChain', options),
  /** #11 `timeout → keyedBreaker(method) → keyedBreaker(service) → fallback`: a sick method opens alone, a sick service opens for all its methods. */
  layeredBreakers: <F>(options: StrategyOptions<'layeredBreakers', { fallback: Answer<F> }>): ConfigPipeline<F> => make<F>('layeredBreakers', options),
  /** #12 `bulkhead → degrade(decisionTree) → fallback`, or a `rateLimiter` instead of the bulkhead: degrade on load, CPU or downstream health. */
  adaptiveDegrade: <F>(
    options: StrategyOptions<'adaptiveDegrade', { fallback: (errorOrInfo: unknown, ctx: ExecutionContext) => F | PromiseLike<F>; signals?: Record<string, unknown> }>,
  ): ConfigPipeline<F> => make<F>('adaptiveDegrade', options),
};
