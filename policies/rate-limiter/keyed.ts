import { ConfigError } from '../../lib/errors.js';
import { KeyedMap } from '../../lib/keyed.js';
import { checkOptions, custom, defineRule, either, fn, intAtLeast, object, positiveMs, withDefault } from '../../lib/options.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { reconfigureAlgorithm, type LimiterHost, type RateAlgorithm } from './algorithm.js';
import { algorithmFromData } from './from-data.js';
import { rateAlgorithmConfig, type RateAlgorithmConfig } from './options.js';

/** Picks a call's key (tenant, route, user) from its context, usually from `ctx.meta`. */
export type RateKeyOf = (ctx: ExecutionContext) => string;

/**
 * Options of {@link keyedRate}.
 * @example
 * ```ts
 * keyedRate({ key: (ctx) => ctx.meta.tenant ?? 'anonymous', algorithm: { kind: 'tokenBucket', rate: 10, burst: 20 } });
 * ```
 */
export interface KeyedRateOptions {
  /** The call's key: each key has its own limit. A throw rejects the call with it. */
  key: RateKeyOf;
  /**
   * Each key's limit: an algorithm as data (`{ kind: 'tokenBucket', rate, burst }`, ...), made anew for each key,
   * or a function `(key) => RateAlgorithm` that makes a new one for each key (it must not hand out one instance twice).
   */
  algorithm: RateAlgorithmConfig | ((key: string) => RateAlgorithm);
  /**
   * Most keys held at once. A new key that finds them all held takes the place of the least recently used one if
   * that one holds nothing (`idle`); otherwise the call is refused (`RateLimitedError`, `retryAfterMs` 1 000): a
   * key's limit is never reset to make room.
   * @defaultValue 10_000
   */
  maxKeys?: number | undefined;
  /**
   * A key unused for longer than this is dropped when the limiter is next used (no timer), if its algorithm holds
   * nothing a new one would not (a full bucket, an empty window); otherwise it is looked at again after another
   * `idleMs`. So dropping a key never changes a decision.
   * @defaultValue 300_000
   */
  idleMs?: number | undefined;
}

const ALGORITHM = "expected a rate algorithm as data ({ kind: 'tokenBucket' | 'leakyBucket' | 'slidingWindow', ... }) or a function (key) => RateAlgorithm";

/** The rules of {@link KeyedRateOptions} (`KeyedRateOptionsSchema` in `breakwater/config` says the same). */
export const keyedRateOptions = /* @__PURE__ */ defineRule(() => object({
  key: fn<RateKeyOf>('expected a function (ctx) => string'),
  algorithm: either(rateAlgorithmConfig, custom<(key: string) => RateAlgorithm>((v) => typeof v === 'function', ALGORITHM)),
  maxKeys: withDefault(intAtLeast(1), 10_000),
  idleMs: withDefault(positiveMs, 300_000),
}));

/** What a refused new key waits, when every key held still holds something. */
/** What a hot reload may give: {@link KeyedRateAlgorithm.reconfigure}. */
const keyedRateReloadOptions = /* @__PURE__ */ defineRule(() => object({
  algorithm: rateAlgorithmConfig,
  maxKeys: withDefault(intAtLeast(1), 10_000),
  idleMs: withDefault(positiveMs, 300_000),
}));

const FULL_RETRY_MS = 1_000;

/**
 * One rate limit per key (per tenant, per route), in memory: each key's
 * algorithm is made on its first call, and the keys are bounded by
 * `maxKeys` and idle eviction (see {@link KeyedRateOptions}). Give it to
 * `rateLimiter` as its algorithm: reserves, events and `RateLimitedError`
 * are the limiter's, per key.
 *
 * @example
 * ```ts
 * const perTenant = rateLimiter({
 *   algorithm: keyedRate({ key: (ctx) => ctx.meta.tenant ?? 'anonymous', algorithm: { kind: 'tokenBucket', rate: 10, burst: 20 } }),
 * });
 * ```
 */
export class KeyedRateAlgorithm implements RateAlgorithm {
  readonly kind = 'keyed';
  private readonly key: RateKeyOf;
  /** The bounds the map reads on every call: a reload changes them here. */
  private readonly bounds: { maxKeys: number; idleMs: number };
  /** Each key's algorithm as data, or the function that makes one. */
  private algorithm: RateAlgorithmConfig | ((key: string) => RateAlgorithm);
  private readonly map: KeyedMap<RateAlgorithm>;
  private readonly hosts: LimiterHost[] = [];

  constructor(options: KeyedRateOptions) {
    const o = checkOptions(keyedRateOptions, options, 'keyedRate');
    this.key = o.key;
    this.bounds = { maxKeys: o.maxKeys, idleMs: o.idleMs };
    this.algorithm = o.algorithm;
    this.map = new KeyedMap(
      (key) => {
        const a = typeof this.algorithm === 'function' ? this.algorithm(key) : algorithmFromData(this.algorithm);
        for (const h of this.hosts) a.attach?.(h);
        return a;
      },
      (a, now) => a.idle === undefined || a.idle(now),
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
   * Hot reload: each key's limit as data of the same kind (`tokenBucket` rate and burst, `leakyBucket` rate and
   * capacity, `slidingWindow` limit), applied in place to every key held (keeping its tokens, queue or window) and
   * to the keys made from now on, and new bounds (left out: their defaults). A lower `maxKeys` holds no fewer keys
   * at once: new keys wait for room. Another kind, a shape a key cannot take in place (a window's length), or a limiter made by
   * a function is a `ConfigError` naming `algorithm`; a bad value is one too; neither changes anything.
   */
  reconfigure(options: Omit<KeyedRateOptions, 'key' | 'algorithm'> & { algorithm: RateAlgorithmConfig }): void {
    const o = checkOptions(keyedRateReloadOptions, options, 'keyedRate');
    const data = o.algorithm;
    const before = this.algorithm;
    if (typeof before === 'function' || before.kind !== data.kind) {
      const what = typeof before === 'function' ? 'each key\'s limiter is made by a function' : `${before.kind} cannot become ${data.kind}`;
      throw new ConfigError('keyedRate', [{ path: 'algorithm', message: `cannot change in place (${what}); build a new limiter` }]);
    }
    // A dry run on a new algorithm of the old kind: what it refuses, every key would.
    const { kind: _k, ...rest } = data;
    reconfigureAlgorithm(algorithmFromData(before), rest, 'keyedRate');
    for (const key of [...this.map.keys()]) reconfigureAlgorithm(this.map.peek(key)!, rest, 'keyedRate');
    this.algorithm = data;
    this.bounds.maxKeys = o.maxKeys;
    this.bounds.idleMs = o.idleMs;
  }

  /** How many keys it holds. */
  get size(): number {
    return this.map.size;
  }

  /** The keys held, least recently used first. */
  keys(): IterableIterator<string> {
    return this.map.keys();
  }

  /** The algorithm of `key`, if it holds one (without making or touching it). */
  peek(key: string): RateAlgorithm | undefined {
    return this.map.peek(key);
  }

  attach(host: LimiterHost): void {
    this.hosts.push(host);
  }

  acquire(ctx: ExecutionContext, reserve = 0): number | Promise<number> {
    const a = this.map.get(this.key(ctx), ctx.clock.now());
    if (a === undefined) return FULL_RETRY_MS;
    return reserve === 0 ? a.acquire(ctx) : a.acquire(ctx, reserve);
  }

  /** True when it holds no key. */
  idle(): boolean {
    return this.map.size === 0;
  }
}

/**
 * Makes a {@link KeyedRateAlgorithm} for `rateLimiter`: one limit per key,
 * in memory, at most `maxKeys` keys (default 10 000), idle keys dropped
 * after `idleMs` (default 5 min). For a limit per key shared by many
 * processes, give `redisTokenBucket` a `key` function instead.
 *
 * @example
 * ```ts
 * const perRoute = rateLimiter({ algorithm: keyedRate({ key: (ctx) => ctx.meta.route ?? '', algorithm: { kind: 'slidingWindow', limit: 600, windowMs: 60_000 } }) });
 * ```
 */
export function keyedRate(options: KeyedRateOptions): KeyedRateAlgorithm {
  return new KeyedRateAlgorithm(options);
}
