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

/** What a hot reload may give: {@link KeyedBulkheadPolicy.reconfigure}. */
const keyedBulkheadReloadOptions = /* @__PURE__ */ defineRule(() => object({
  ...bulkheadOptions.shape,
  maxKeys: withDefault(intAtLeast(1), 10_000),
  idleMs: withDefault(positiveMs, 300_000),
}));

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
  private readonly key: BulkheadKeyOf;
  /** The bounds the map reads on every call: a reload changes them here. */
  private readonly bounds: { maxKeys: number; idleMs: number };
  /** Each key's bulkhead options. */
  private each: Omit<BulkheadOptions, 'name'>;
  private readonly map: KeyedMap<BulkheadPolicy>;

  constructor(options: KeyedBulkheadOptions) {
    const o = checkOptions(keyedBulkheadOptions, options, 'keyedBulkhead');
    super(o.name, o.clock ?? systemClock);
    this.key = o.key;
    this.bounds = { maxKeys: o.maxKeys, idleMs: o.idleMs };
    const { key: _k, maxKeys: _m, idleMs: _i, name: _n, ...each } = o;
    this.each = each;
    this.map = new KeyedMap(
      (key) => {
        const b = new BulkheadPolicy({ ...this.each, name: `${o.name}:${key}` });
        shareEventSource(b, this.events);
        return b;
      },
      (b) => b.executing === 0 && b.queued === 0,
      this.bounds,
    );
  }

  /** Most keys held at once. */
  get maxKeys(): number {
    return this.bounds.maxKeys;
  }

  /** Milliseconds after which an unused key may be dropped. */
  get idleMs(): number {
    return this.bounds.idleMs;
  }

  /**
   * Hot reload: each key's limit, queue and reserve, applied in place to every key held (its running and waiting
   * calls are kept; a higher limit starts waiters at once) and to the keys made from now on, and new bounds (a
   * lower `maxKeys` holds no fewer keys at once: new keys wait for room). What a bulkhead cannot change in place
   * (its partitions) is a `ConfigError` naming it, as is a bad value; neither changes anything.
   */
  reconfigure(options: Omit<KeyedBulkheadOptions, 'key' | 'name' | 'clock'>): void {
    const o = checkOptions(keyedBulkheadReloadOptions, options, this.name);
    const { maxKeys, idleMs, name: _n, clock: _c, ...each } = o;
    // A dry run on a new bulkhead of the old options: what it refuses, every key would.
    new BulkheadPolicy({ ...this.each, clock: this.clock }).reconfigure(each);
    for (const key of [...this.map.keys()]) this.map.peek(key)!.reconfigure(each);
    this.each = { ...this.each, ...each };
    this.bounds.maxKeys = maxKeys;
    this.bounds.idleMs = idleMs;
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
