import { bulkhead, type BulkheadOptions } from '../policies/bulkhead/index.js';
import { fallback, fallbackChain, type AnswerOf, type FallbackHandler, type FallbackOptions } from '../policies/fallback/index.js';
import { idempotent, type IdempotentOptions } from '../policies/idempotent/index.js';
import { rateLimiter, type RateLimiterOptions } from '../policies/rate-limiter/index.js';
import { retry, type RetryOptions } from '../policies/retry/index.js';
import { timeout, type TimeoutOptions } from '../policies/timeout/index.js';
import { systemClock, type Clock } from './clock.js';
import { Pipeline } from './pipe.js';
import type { Policy } from './policy.js';

/** What {@link policy} hands to every policy it creates. */
export interface BuilderEnv {
  /** The clock of every policy the builder makes and of the root context. @defaultValue the system clock */
  clock?: Clock;
  /** The random source of every policy that draws one. @defaultValue `Math.random` */
  random?: () => number;
  /** The pipeline's name in events. @defaultValue `'pipeline'` */
  name?: string;
}

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

  /** Wraps a {@link bulkhead} around the chain so far. */
  bulkhead(options: BulkheadOptions): PolicyBuilder<T> {
    return this.use(bulkhead({ clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link rateLimiter} around the chain so far. */
  rateLimiter(options: RateLimiterOptions): PolicyBuilder<T> {
    return this.use(rateLimiter({ clock: this.env.clock, ...options }));
  }

  /** Wraps an {@link idempotent} executor around the chain so far. */
  idempotent(options: IdempotentOptions = {}): PolicyBuilder<T> {
    return this.use(idempotent({ clock: this.env.clock, ...options }));
  }

  /** Wraps a {@link fallback} around the chain so far; the result type widens by the handler's. */
  fallback<F>(handler: FallbackHandler<F>, options?: FallbackOptions): PolicyBuilder<T | F> {
    return this.use(fallback(handler, options));
  }

  /** Wraps a {@link fallbackChain} around the chain so far. */
  fallbackChain<const H extends readonly FallbackHandler<unknown>[]>(...handlers: H): PolicyBuilder<T | AnswerOf<H>> {
    return this.use(fallbackChain(...handlers));
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
  return new PolicyBuilder<never>([], env);
}
