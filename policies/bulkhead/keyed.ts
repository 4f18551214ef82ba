import type { Observable } from 'rxjs';
import { PolicyBase, shareEventSource } from '../../lib/base.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { BulkheadRejectedError } from '../../lib/errors.js';
import type { PolicyEvent } from '../../lib/events.js';
import { KeyedMap } from '../../lib/keyed.js';
import { checkOptions, defineRule, fn, intAtLeast, object, positiveMs, withDefault } from '../../lib/options.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { BulkheadPolicy } from './bulkhead.js';
import { bulkheadOptions, type BulkheadOptions } from './options.js';

/** Picks a call's key (tenant, route) from its context, usually from `ctx.meta`. */
export type BulkheadKeyOf = (ctx: ExecutionContext) => string;

/**
 * Options of {@link keyedBulkhead}: a bulkhead's options, given to every key's bulkhead, and the keys' bounds.
 * @example
 * ```ts
 * keyedBulkhead({ key: (ctx) => ctx.meta.tenant ?? 'anonymous', limit: 5, queue: 10, maxKeys: 1_000 });
 * ```
 */
export interface KeyedBulkheadOptions extends BulkheadOptions {
  /** The call's key: each key has its own bulkhead of `limit` and `queue`. A throw rejects the call with it. */
  key: BulkheadKeyOf;
  /**
   * Most keys held at once. A new key that finds them all held takes the place of the least recently used one if
   * nothing runs or waits in it; otherwise the call is refused with `BulkheadRejectedError`: a key's bulkhead is never
   * dropped while calls hold its slots.
   * @defaultValue 10_000
   */
  maxKeys?: number | undefined;
  /**
   * A key unused for longer than this is dropped when the policy is next used (no timer), if nothing runs or waits
   * in it; otherwise it is looked at again after another `idleMs`.
   * @defaultValue 300_000
   */
  idleMs?: number | undefined;
}

/** The rules of {@link KeyedBulkheadOptions} (`KeyedBulkheadOptionsSchema` in `breakwater/config` says the same). */
export const keyedBulkheadOptions = /* @__PURE__ */ defineRule(() => object({
  ...bulkheadOptions.shape,
  name: withDefault(bulkheadOptions.shape.name, 'keyedBulkhead'),
  key: fn<BulkheadKeyOf>('expected a function (ctx) => string'),
  maxKeys: withDefault(intAtLeast(1), 10_000),
  idleMs: withDefault(positiveMs, 300_000),
}));

/**
 * One bulkhead per key (per tenant, per route), so one tenant's slow calls
 * cannot take another's slots: each key's {@link BulkheadPolicy} is made on
 * its first call from the shared options (named `name:key`), and the keys
 * are bounded by `maxKeys` and idle eviction; a bulkhead with a call
 * running or waiting is never dropped. Every key's events come out of this
 * policy's `events$`.
 *
 * @example
 * ```ts
 * const perTenant = keyedBulkhead({ key: (ctx) => ctx.meta.tenant ?? 'anonymous', limit: 5, queue: 10 });
 * await perTenant.execute(() => report(), { meta: { tenant: 'acme' } });
 * ```
 */
export class KeyedBulkheadPolicy extends PolicyBase {
  /** The clock of idle tracking and of the bulkheads' events. */
  declare readonly clock: Clock;
  /** Most keys held at once. */
  readonly maxKeys: number;
  /** Milliseconds after which an unused key may be dropped. */
  readonly idleMs: number;
  private readonly key: BulkheadKeyOf;
  private readonly map: KeyedMap<BulkheadPolicy>;

  constructor(options: KeyedBulkheadOptions) {
    const o = checkOptions(keyedBulkheadOptions, options, 'keyedBulkhead');
    super(o.name, o.clock ?? systemClock);
    this.key = o.key;
    this.maxKeys = o.maxKeys;
    this.idleMs = o.idleMs;
    const { key: _k, maxKeys: _m, idleMs: _i, ...each } = o;
    this.map = new KeyedMap(
      (key) => {
        const b = new BulkheadPolicy({ ...each, name: `${o.name}:${key}` });
        shareEventSource(b, this.events);
        return b;
      },
      (b) => b.executing === 0 && b.queued === 0,
      o,
    );
  }

  /** Events of every key's bulkhead. */
  override get events$(): Observable<PolicyEvent> {
    return super.events$;
  }

  /** How many keys it holds. */
  get size(): number {
    return this.map.size;
  }

  /** The keys held, least recently used first. */
  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  /** The bulkhead of `key`, if it holds one (without making or touching it). */
  peek(key: string): BulkheadPolicy | undefined {
    return this.map.peek(key);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    let b: BulkheadPolicy | undefined;
    try {
      b = this.map.get(this.key(ctx), this.clock.now());
    } catch (error) {
      return Promise.reject(error);
    }
    if (b === undefined) return Promise.reject(new BulkheadRejectedError(this.name, `keyed bulkhead holds maxKeys (${this.maxKeys}) keys, all busy (${this.name})`));
    return b[RUN](op, ctx, next);
  }
}

/**
 * Makes a {@link KeyedBulkheadPolicy}: a bulkhead of `limit` (and `queue`)
 * per key, at most `maxKeys` keys (default 10 000), idle keys dropped after
 * `idleMs` (default 5 min).
 *
 * @example
 * ```ts
 * const perRoute = keyedBulkhead({ key: (ctx) => ctx.meta.route ?? '', limit: 20, queue: 50 });
 * ```
 */
export function keyedBulkhead(options: KeyedBulkheadOptions): KeyedBulkheadPolicy {
  return new KeyedBulkheadPolicy(options);
}
