import type { Observable } from 'rxjs';
import { PolicyBase } from '../../lib/base.js';
import type { Clock } from '../../lib/clock.js';
import { ConfigError } from '../../lib/errors.js';
import type { PolicyEvent } from '../../lib/events.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import type { AdaptiveBreakerPolicy } from '../adaptive-breaker/adaptive-breaker.js';
import type { CircuitBreakerPolicy } from '../circuit-breaker/circuit-breaker.js';
import type { CircuitBreakerOptions } from '../circuit-breaker/options.js';
import type { SreBreakerPolicy } from '../sre-breaker/sre-breaker.js';
import type { AdaptiveDefaults, BreakerRegistryOptions, BreakerRegistryReload, SreDefaults } from './options.js';
import { BreakerRegistry, type AnyBreaker } from './registry.js';
import type { BreakerControl } from '../breaker/breaker.js';

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
export class KeyedBreakerPolicy<B extends AnyBreaker = AnyBreaker> extends PolicyBase {
  /** The registry's clock. */
  declare readonly clock: Clock;

  constructor(
    private readonly keyOf: KeyOf,
    /** The breakers, one per key. */
    readonly registry: BreakerRegistry<B>,
  ) {
    super(registry.name, registry.clock);
  }

  /** Events of every key's breaker. */
  override get events$(): Observable<PolicyEvent> {
    return this.registry.events$;
  }

  /** The control of every key's breaker (see `BreakerRegistry.setControl`). */
  get control(): BreakerControl {
    return this.registry.control;
  }

  /** Puts every key's breaker, and each one made later, under `control`. */
  setControl(control: BreakerControl): void {
    this.registry.setControl(control);
  }

  /** The health of every key's breaker. */
  health(): ReturnType<BreakerRegistry['health']> {
    return this.registry.health();
  }

  /**
   * Hot reload of its registry (see `BreakerRegistry.reconfigure`): new `defaults` for every key's breaker, those
   * held (in place, keeping their state) and those made from now on, and a new `idleMs`; defaults of another family
   * of breaker or another window are refused with a `ConfigError`, changing nothing. A registry shared with other
   * keyed breakers changes for all of them.
   *
   * @example
   * ```ts
   * perHost.reconfigure({ defaults: { tripMs: 500 }, idleMs: 600_000 });
   * ```
   */
  reconfigure(options: BreakerRegistryReload): void {
    this.registry.reconfigure(options);
  }

  /** The breaker of `key` (made if there is none). */
  get(key: string): B {
    return this.registry.get(key);
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
