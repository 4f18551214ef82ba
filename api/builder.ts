import { degrade, type DegradeOptions } from '../policies/degrade/index.js';
import { loadShedder, type LoadShedderOptions } from '../policies/load-shedder/index.js';
import { cache, type CacheOptions } from '../policies/cache/index.js';
import { chaos, type ChaosOptions } from '../policies/chaos/index.js';
import { keyedBreaker, type BreakerRegistryOptions, type KeyOf } from '../policies/breaker-registry/index.js';
import { circuitBreaker, type CircuitBreakerOptions } from '../policies/circuit-breaker/index.js';
import { sreBreaker, type SreBreakerOptions } from '../policies/sre-breaker/index.js';
import { adaptiveBreaker, type AdaptiveBreakerOptions } from '../policies/adaptive-breaker/index.js';
import { fallback, fallbackChain, type AnswerOf, type FallbackHandler, type FallbackOptions } from '../policies/fallback/index.js';
import { hedge, type HedgeOptions } from '../policies/hedge/index.js';
import { bulkhead, type BulkheadOptions } from '../policies/bulkhead/index.js';
import { idempotent, type IdempotentOptions } from '../policies/idempotent/index.js';
import { rateLimiter, type RateLimiterOptions } from '../policies/rate-limiter/index.js';
import { adaptiveLimiter, type AdaptiveLimiterOptions } from '../policies/adaptive-limiter/index.js';
import { retry, type RetryOptions } from '../policies/retry/index.js';
import { timeout, type TimeoutOptions } from '../policies/timeout/index.js';
import { systemClock, type Clock } from '../lib/clock.js';
import { checkOptions, clock, defineRule, name, object, optional, random } from '../lib/options.js';
import { checkPolicies, Pipeline } from '../lib/pipe.js';
import type { Policy } from '../lib/policy.js';

/** What {@link policy} hands to every policy it creates. */
export interface BuilderEnv {
  /** The clock of every policy the builder makes and of the root context. @defaultValue the system clock */
  clock?: Clock;
  /** The random source of every policy that draws one. @defaultValue `Math.random` */
  random?: () => number;
  /** The pipeline's name in events. @defaultValue `'pipeline'` */
  name?: string;
}

const builderEnv = /* @__PURE__ */ defineRule(() => object({ clock: optional(clock), random: optional(random), name: optional(name) }));

/**
 * An immutable fluent pipeline: every method returns a new builder with one
 * more policy wrapped around the ones before it (the first is closest to the
 * operation). Each method is one line over the same factory `pipe()` uses.
 * A builder is itself a {@link Policy}.
 *
 * @typeParam T - the union of the alternative answers of its policies.
 */
export class PolicyBuilder<T = never> extends Pipeline<T> {
  constructor(
    policies: readonly Policy<unknown>[],
    private readonly env: BuilderEnv,
  ) {
    super(policies, { name: env.name, clock: env.clock ?? systemClock });
  }

  /** Wraps any policy, a user's own included, around the chain so far. */
  use<U>(p: Policy<U>): PolicyBuilder<T | U> {
    checkPolicies([p], 'policy().use', this.policies.length);
    return new PolicyBuilder<T | U>([...this.policies, p], this.env);
  }

  /** Wraps a {@link timeout} around the chain so far. */
  timeout(options: number | TimeoutOptions): PolicyBuilder<T> {
    return this.use(timeout({ clock: this.env.clock, ...(typeof options === 'number' ? { ms: options } : options) }));
  }

  /** Wraps a {@link retry} around the chain so far. */
  retry(options: RetryOptions = {}): PolicyBuilder<T> {
    return this.use(retry({ clock: this.env.clock, random: this.env.random, ...options }));
  }

  /** Wraps a {@link hedge} around the chain so far. */
  hedge(options: HedgeOptions = {}): PolicyBuilder<T> {
    return this.use(hedge({ clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link chaos} around the chain so far; the result type widens by the substitute result's. */
  chaos<C = never>(options: ChaosOptions<C>): PolicyBuilder<T | C> {
    return this.use(chaos<C>({ clock: this.env.clock, random: this.env.random, ...options }));
  }

  /** Wraps a {@link cache} around the chain so far. */
  cache(options: CacheOptions): PolicyBuilder<T> {
    return this.use(cache({ clock: this.env.clock, ...options }));
  }

  /** Wraps the default breaker, an {@link adaptiveBreaker}, around the chain so far. */
  breaker(options: AdaptiveBreakerOptions = {}): PolicyBuilder<T> {
    return this.use(adaptiveBreaker({ clock: this.env.clock, random: this.env.random, ...options }));
  }

  /** Wraps a {@link sreBreaker} around the chain so far. */
  sreBreaker(options: SreBreakerOptions = {}): PolicyBuilder<T> {
    return this.use(sreBreaker({ clock: this.env.clock, random: this.env.random, ...options }));
  }

  /** Wraps a {@link circuitBreaker} (closed/open/half-open state machine) around the chain so far. */
  circuitBreaker(options: CircuitBreakerOptions): PolicyBuilder<T> {
    return this.use(circuitBreaker({ clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link keyedBreaker} (one breaker per `keyOf(ctx)`) around the chain so far. */
  keyedBreaker(keyOf: KeyOf, options: BreakerRegistryOptions = {}): PolicyBuilder<T> {
    return this.use(keyedBreaker(keyOf, { clock: this.env.clock, random: this.env.random, ...options }));
  }

  /** Wraps a {@link bulkhead} around the chain so far. */
  bulkhead(options: BulkheadOptions): PolicyBuilder<T> {
    return this.use(bulkhead({ clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link rateLimiter} around the chain so far. */
  rateLimiter(options: RateLimiterOptions): PolicyBuilder<T> {
    return this.use(rateLimiter({ clock: this.env.clock, ...options }));
  }

  /** Wraps an {@link adaptiveLimiter} (an adaptive concurrency limit) around the chain so far. */
  adaptiveLimit(options: AdaptiveLimiterOptions = {}): PolicyBuilder<T> {
    return this.use(adaptiveLimiter({ clock: this.env.clock, ...options }));
  }

  /** Wraps an {@link idempotent} executor around the chain so far. */
  idempotent(options: IdempotentOptions = {}): PolicyBuilder<T> {
    return this.use(idempotent({ clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link fallback} around the chain so far; the result type widens by the handler's. */
  fallback<F>(handler: FallbackHandler<F>, options?: FallbackOptions): PolicyBuilder<T | F> {
    return this.use(fallback(handler, { clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link degrade} around the chain so far; the result type widens by the `to` handler's. */
  degrade<F>(options: DegradeOptions<F>): PolicyBuilder<T | F> {
    return this.use(degrade<F>({ clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link loadShedder} around the chain so far. */
  loadShedder(options: LoadShedderOptions = {}): PolicyBuilder<T> {
    return this.use(loadShedder({ clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link fallbackChain} around the chain so far. */
  fallbackChain<const H extends readonly FallbackHandler<unknown>[]>(...handlers: H): PolicyBuilder<T | AnswerOf<H>> {
    return this.use(fallbackChain(...handlers, { clock: this.env.clock }));
  }
}

/**
 * Starts a fluent pipeline. `clock` and `random` are handed to every policy
 * it creates, so one `TestClock` drives the whole chain.
 *
 * @example
 * ```ts
 * const p = policy().timeout(300).retry({ maxAttempts: 3 }).fallback(() => null);
 * const user = await p.execute((ctx) => getUser(id, ctx.signal)); // User | null
 * ```
 */
export function policy(env: BuilderEnv = {}): PolicyBuilder<never> {
  return new PolicyBuilder<never>([], checkOptions(builderEnv, env, 'policy'));
}
