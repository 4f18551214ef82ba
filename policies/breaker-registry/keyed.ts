import type { Observable } from 'rxjs';
import type { Clock } from '../../lib/clock.js';
import { executeWith } from '../../lib/context.js';
import { ConfigError } from '../../lib/errors.js';
import type { PolicyEvent } from '../../lib/events.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../../lib/policy.js';
import type { AdaptiveBreakerPolicy } from '../adaptive-breaker/adaptive-breaker.js';
import type { CircuitBreakerPolicy } from '../circuit-breaker/circuit-breaker.js';
import type { CircuitBreakerOptions } from '../circuit-breaker/options.js';
import type { SreBreakerPolicy } from '../sre-breaker/sre-breaker.js';
import type { AdaptiveDefaults, BreakerRegistryOptions, SreDefaults } from './options.js';
import { BreakerRegistry, type AnyBreaker } from './registry.js';

/** Picks a call's breaker key from its context, usually from `ctx.meta`. */
export type KeyOf = (ctx: ExecutionContext) => string;

/**
 * A policy that runs each call through the breaker of its key
 * (`keyOf(ctx)`), held in a {@link BreakerRegistry}. A throw inside `keyOf`
 * rejects the call with it.
 *
 * @example
 * ```ts
 * const perHost = keyedBreaker((ctx) => ctx.meta.host ?? 'default');
 * await perHost.execute(call, { meta: { host: 'users.internal' } });
 * ```
 */
export class KeyedBreakerPolicy<B extends AnyBreaker = AnyBreaker> implements Policy<never> {
  declare readonly [ANSWER]?: () => never;
  readonly name: string;

  constructor(
    private readonly keyOf: KeyOf,
    /** The breakers, one per key. */
    readonly registry: BreakerRegistry<B>,
  ) {
    this.name = registry.name;
  }

  /** The registry's clock. */
  get clock(): Clock {
    return this.registry.clock;
  }

  /** Events of every key's breaker. */
  get events$(): Observable<PolicyEvent> {
    return this.registry.events$;
  }

  /** The breaker of `key` (made if there is none). */
  get(key: string): B {
    return this.registry.get(key);
  }

  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R> {
    return executeWith(this, op, options, this.registry.clock);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    let key: string;
    try {
      key = this.keyOf(ctx);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.registry.get(key)[RUN](op, ctx, next);
  }
}

/**
 * Makes a {@link KeyedBreakerPolicy}: one breaker per key, from `options` (a
 * registry's options) or over an existing registry.
 *
 * @example
 * ```ts
 * const perMethod = keyedBreaker((ctx) => `${ctx.meta.service}/${ctx.meta.method}`, {
 *   defaults: { strategy: 'errorRatio', threshold: 0.5 },
 * });
 * ```
 */
export function keyedBreaker(
  keyOf: KeyOf,
  options: BreakerRegistry<CircuitBreakerPolicy> | (BreakerRegistryOptions & { defaults: CircuitBreakerOptions }),
): KeyedBreakerPolicy<CircuitBreakerPolicy>;
export function keyedBreaker(keyOf: KeyOf, options: BreakerRegistry<SreBreakerPolicy> | (BreakerRegistryOptions & { defaults: SreDefaults })): KeyedBreakerPolicy<SreBreakerPolicy>;
export function keyedBreaker(
  keyOf: KeyOf,
  options?: BreakerRegistry<AdaptiveBreakerPolicy> | (BreakerRegistryOptions & { defaults?: AdaptiveDefaults }),
): KeyedBreakerPolicy<AdaptiveBreakerPolicy>;
export function keyedBreaker(keyOf: KeyOf, options?: BreakerRegistry | BreakerRegistryOptions): KeyedBreakerPolicy;
export function keyedBreaker(keyOf: KeyOf, options: BreakerRegistry | BreakerRegistryOptions = {}): KeyedBreakerPolicy {
  if (typeof keyOf !== 'function') {
    throw new ConfigError('keyedBreaker', [{ path: 'keyOf', message: 'expected a function (ctx) => string' }]);
  }
  return new KeyedBreakerPolicy(keyOf, options instanceof BreakerRegistry ? options : new BreakerRegistry(options));
}
