// Builds the policy each validated config entry describes, and applies a changed entry in place (hot reload).
// No zod here: the entries were checked by their schemas (fromConfig) or by the strategies' plain rules.
import { decisionTree, DecisionTree, degrade, DegradePolicy, type DegradeHandler, type DegradePredicate } from '../policies/degrade/index.js';
import { loadShedder, LoadShedderPolicy } from '../policies/load-shedder/index.js';
import type { SignalSource } from '../lib/signals.js';
import { bulkhead, BulkheadPolicy, keyedBulkhead, KeyedBulkheadPolicy } from '../policies/bulkhead/index.js';
import { idempotent, IdempotentPolicy, type IdempotencyCodec, type IdempotencyStore } from '../policies/idempotent/index.js';
import { KeyedRateAlgorithm, keyedRate, rateLimiter, RateLimiterPolicy } from '../policies/rate-limiter/index.js';
import { adaptiveLimiter, AdaptiveLimiterPolicy } from '../policies/adaptive-limiter/index.js';
import { keyedBreaker, KeyedBreakerPolicy, type BreakerRegistryOptions, type BreakerRegistryReload, type KeyOf } from '../policies/breaker-registry/index.js';
import type { BreakerControl } from '../policies/breaker/breaker.js';
import { cache, CachePolicy, type CacheStore } from '../policies/cache/index.js';
import { CircuitBreaker, circuitBreaker, type CircuitBreakerOptions } from '../policies/circuit-breaker/index.js';
import { SreBreaker, sreBreaker } from '../policies/sre-breaker/index.js';
import { adaptiveBreaker, AdaptiveBreakerPolicy } from '../policies/adaptive-breaker/index.js';
import { chaos, ChaosPolicy, type ChaosFault, type ChaosResult } from '../policies/chaos/index.js';
import { fallback, fallbackChain, FallbackPolicy, type FallbackHandler } from '../policies/fallback/index.js';
import { hedge, HedgePolicy, type HedgeOptions } from '../policies/hedge/index.js';
import { constant, exponential, linear, retry, RetryPolicy, sloBudget, tokenBudget, type Backoff, type RetryBudget } from '../policies/retry/index.js';
import { isBackoff, type BackoffFunction } from '../policies/retry/backoff.js';
import { isRetryBudget } from '../policies/retry/budget.js';
import { timeout, TimeoutPolicy } from '../policies/timeout/index.js';
import type { ExecutionContext, Policy } from '../lib/policy.js';
import type { Resolver } from './resolve.js';
import type { Entry, EntryConfig } from './entries.js';

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
  const { type: _t, handle, handleResult, readyToTrip, control: _c, ...rest } = o;
  return {
    ...rest,
    // a circuit breaker's growing open period, given as a backoff in data
    ...(typeof rest.openMs === 'object' && rest.openMs !== null ? { openMs: backoffOf(rest.openMs as Entry<'retry'>['backoff']) } : {}),
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
  const policy = buildSettings(e, r, path);
  if ((e as { control?: BreakerControl }).control !== undefined) applyControl(policy, e);
  return policy;
}

/** Builds the policy of `e`, its control aside. */
function buildSettings(e: EntryConfig, r: Resolver, path: string): Policy<unknown> {
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
    case 'keyedRateLimiter': {
      const bounds = { ...(e.maxKeys !== undefined ? { maxKeys: e.maxKeys } : {}), ...(e.idleMs !== undefined ? { idleMs: e.idleMs } : {}) };
      const algorithm = keyedRate({ key: keyOfEntry(e, r, path), algorithm: e.algorithm, ...bounds });
      return rateLimiter({ algorithm, name: e.name ?? 'keyedRateLimiter', clock });
    }
    case 'keyedBulkhead': {
      const { type: _t, metaKey: _m, keyOf: _k, ...o } = e;
      return keyedBulkhead({ ...o, key: keyOfEntry(e, r, path), clock });
    }
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
 * same type and name, keeping its state (hot reload). An unchanged entry is
 * left alone. Returns `undefined` when done, or why the change cannot be made
 * in place (the caller then refuses the whole config); a bad value throws a
 * `ConfigError` and changes nothing.
 */
export function reconfigureEntry(policy: Policy<unknown>, e: EntryConfig, r: Resolver, path: string, previous: EntryConfig): string | undefined {
  if (canonical(e) === canonical(previous)) return undefined;
  const why = reconfigureSettings(policy, e, r, path, previous);
  if (why === undefined) applyControl(policy, e);
  return why;
}

/** A breaker entry's operator control, applied to the breaker (or keyed breaker) it built; other policies have none. */
function applyControl(policy: Policy<unknown>, e: EntryConfig): void {
  if (!CONTROLLED.has((e as { type: string }).type)) return;
  const set = (policy as { setControl?: (c: BreakerControl) => void }).setControl;
  if (typeof set === 'function') set.call(policy, (e as { control?: BreakerControl }).control ?? 'enforcing');
}

/** The entry types that take a `control`. */
const CONTROLLED: ReadonlySet<string> = new Set(['sreBreaker', 'adaptiveBreaker', 'circuitBreaker', 'keyedBreaker']);

/** `e` without its control, to tell a change of control alone from a change of settings. */
function withoutControl(e: EntryConfig): EntryConfig {
  const { control: _c, ...rest } = e as EntryConfig & { control?: unknown };
  return rest as EntryConfig;
}

/** Why a policy that was not built from an entry of this type cannot take it. */
const NOT_BUILT_HERE = 'it was not built from an entry of this type';

/** Reconfigures `policy` in place for the settings of `e` (its control aside); why not, when it must be rebuilt. */
function reconfigureSettings(policy: Policy<unknown>, e: EntryConfig, r: Resolver, path: string, previous: EntryConfig): string | undefined {
  if (canonical(withoutControl(e)) === canonical(withoutControl(previous))) return undefined;
  if ((e as { name?: unknown }).name !== (previous as { name?: unknown }).name) return 'its name is what it is known by';
  switch (e.type) {
    case 'sreBreaker':
      if (!(policy instanceof SreBreaker)) return NOT_BUILT_HERE;
      policy.reconfigure(breakerOptions(e, r, path));
      return undefined;
    case 'adaptiveBreaker':
      if (!(policy instanceof AdaptiveBreakerPolicy)) return NOT_BUILT_HERE;
      policy.reconfigure(breakerOptions(e, r, path));
      return undefined;
    case 'circuitBreaker':
      if (!(policy instanceof CircuitBreaker)) return NOT_BUILT_HERE;
      policy.reconfigure(breakerOptions(e, r, path) as unknown as CircuitBreakerOptions);
      return undefined;
    case 'keyedBreaker': {
      if (!(policy instanceof KeyedBreakerPolicy)) return NOT_BUILT_HERE;
      if (canonical(keyOfShape(e)) !== canonical(keyOfShape(previous))) return 'its key (metaKey or keyOf) picks the breakers it holds';
      const defaults = e.defaults === undefined ? undefined : breakerOptions(e.defaults, r, `${path}.defaults`);
      policy.reconfigure({ ...(defaults ? { defaults: defaults as BreakerRegistryReload['defaults'] } : {}), ...named('idleMs', e.idleMs) });
      return undefined;
    }
    case 'loadShedder': {
      if (!(policy instanceof LoadShedderPolicy)) return NOT_BUILT_HERE;
      if (e.cpu !== (previous as { cpu?: unknown }).cpu) return 'its cpu signal is followed from the start';
      const { type: _t, cpu: _c, name: _n, ...o } = e;
      policy.reconfigure(o);
      return undefined;
    }
    case 'adaptiveLimiter': {
      if (!(policy instanceof AdaptiveLimiterPolicy)) return NOT_BUILT_HERE;
      if (e.isOverload !== (previous as { isOverload?: unknown }).isOverload) return 'its isOverload handler is kept';
      const { type: _t, isOverload: _i, name: _n, ...o } = e;
      policy.reconfigure(o);
      return undefined;
    }
    case 'idempotent': {
      if (!(policy instanceof IdempotentPolicy)) return NOT_BUILT_HERE;
      const before = previous as Record<string, unknown>;
      for (const k of ['store', 'codec', 'key', 'handleResult'] as const) if (e[k] !== before[k]) return `its ${k} holds or names what it stored`;
      const { type: _t, store: _s, codec: _c, key: _k, handleResult: _h, name: _n, ...o } = e;
      policy.reconfigure(o);
      return undefined;
    }
    case 'timeout':
      if (!(policy instanceof TimeoutPolicy)) return NOT_BUILT_HERE;
      policy.reconfigure({ ms: e.ms, mode: e.mode });
      return undefined;
    case 'retry':
      if (!(policy instanceof RetryPolicy)) return NOT_BUILT_HERE;
      policy.reconfigure(retryOptions(e, r, path));
      return undefined;
    case 'degrade': {
      // Only the decision tree's thresholds change in place; a predicate, signals or handler swap needs a new policy.
      if (!(policy instanceof DegradePolicy)) return NOT_BUILT_HERE;
      if (typeof e.when === 'string' || !(policy.decision instanceof DecisionTree) || canonical(degradeShape(e)) !== canonical(degradeShape(previous))) {
        return "only a decision tree's thresholds change in place";
      }
      policy.decision.setThresholds(e.when.decisionTree ?? {});
      return undefined;
    }
    case 'hedge': {
      if (!(policy instanceof HedgePolicy)) return NOT_BUILT_HERE;
      const { name: _n, ...o } = hedgeOptions(e, r, path) as Parameters<typeof hedge>[0] & object;
      policy.reconfigure(o);
      return undefined;
    }
    case 'chaos': {
      if (!(policy instanceof ChaosPolicy)) return NOT_BUILT_HERE;
      const { name: _n, ...o } = chaosOptions(e, r, path) as Parameters<typeof chaos>[0];
      policy.reconfigure(o);
      return undefined;
    }
    case 'rateLimiter':
      // The algorithm keeps its tokens, queue or window; another kind of algorithm is refused by the limiter, naming it.
      if (!(policy instanceof RateLimiterPolicy)) return NOT_BUILT_HERE;
      policy.reconfigure({ algorithm: e.algorithm });
      return undefined;
    case 'keyedRateLimiter': {
      if (!(policy instanceof RateLimiterPolicy) || !(policy.algorithm instanceof KeyedRateAlgorithm)) return NOT_BUILT_HERE;
      if (canonical(keyOfShape(e)) !== canonical(keyOfShape(previous))) return 'its key (metaKey or keyOf) picks the limits it holds';
      policy.algorithm.reconfigure({ algorithm: e.algorithm, ...named('maxKeys', e.maxKeys), ...named('idleMs', e.idleMs) });
      return undefined;
    }
    case 'bulkhead': {
      if (!(policy instanceof BulkheadPolicy)) return NOT_BUILT_HERE;
      const { type: _t, name: _n, ...o } = e;
      policy.reconfigure(o);
      return undefined;
    }
    case 'keyedBulkhead': {
      if (!(policy instanceof KeyedBulkheadPolicy)) return NOT_BUILT_HERE;
      if (canonical(keyOfShape(e)) !== canonical(keyOfShape(previous))) return 'its key (metaKey or keyOf) picks the bulkheads it holds';
      const { type: _t, name: _n, metaKey: _m, keyOf: _k, ...o } = e;
      policy.reconfigure(o);
      return undefined;
    }
    case 'fallback':
      if (!(policy instanceof FallbackPolicy)) return NOT_BUILT_HERE;
      policy.reconfigure([r.fn<FallbackHandler<unknown>>(e.handler, `${path}.handler`)], {
        handle: r.optionalFn(e.handle, `${path}.handle`),
        handleResult: r.optionalFn(e.handleResult, `${path}.handleResult`),
      });
      return undefined;
    case 'fallbackChain':
      if (!(policy instanceof FallbackPolicy)) return NOT_BUILT_HERE;
      policy.reconfigure(e.handlers.map((h, i) => r.fn<FallbackHandler<unknown>>(h, `${path}.handlers[${i}]`)));
      return undefined;
    case 'cache': {
      // The store holds the values: a reload that names another store builds a new cache.
      if (!(policy instanceof CachePolicy)) return NOT_BUILT_HERE;
      if (e.store !== (previous as { store?: unknown }).store) return 'its store holds the values';
      const { type: _t, store: _s, name: _n, key, handleResult, ...o } = e;
      policy.reconfigure({
        ...o,
        ...named('key', r.optionalFn<(ctx: ExecutionContext) => string | undefined>(key, `${path}.key`)),
        ...named('handleResult', r.optionalFn<(result: unknown) => boolean>(handleResult, `${path}.handleResult`)),
      });
      return undefined;
    }
  }
  return `a ${(e as { type: string }).type} has no setting that changes in place`;
}

/** How a keyed entry picks its key: a change of it is a new policy. */
function keyOfShape(e: EntryConfig): unknown {
  const k = e as { metaKey?: unknown; keyOf?: unknown };
  return { metaKey: k.metaKey, keyOf: k.keyOf };
}
