import { z } from 'zod';
import { boundedStoreCall } from '../../lib/store-call.js';
import type { LimiterHost, RateAlgorithm } from '../../policies/rate-limiter/algorithm.js';
import { perSecond, positiveInt } from '../../policies/rate-limiter/schema.js';
import { TokenBucket } from '../../policies/rate-limiter/token-bucket.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { KeyedMap } from '../../lib/keyed.js';
import { ConfigError } from '../../lib/errors.js';
import { clockSchema, parseOptions, positiveMs } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { TOKEN_BUCKET } from './lua.js';
import { isRedisClient, LuaScript, type RedisClient } from './script.js';

const bucketScript = new LuaScript(TOKEN_BUCKET);

const KEY = 'expected a non-empty string or a function (ctx) => string';

/** Options of {@link redisTokenBucket}. */
export const RedisTokenBucketOptionsSchema = z
  .object({
    /**
     * Names the shared limit: every process using the same key shares one bucket. A function `(ctx) => string`
     * gives each call's key (per tenant, per route): one bucket per key, each shared by every process.
     */
    key: z.union([
      z.string({ message: KEY }).min(1, { message: KEY }),
      z.custom<(ctx: ExecutionContext) => string>((v) => typeof v === 'function', { message: KEY }),
    ]),
    /** Tokens added per second, for all processes together. */
    rate: perSecond,
    /** Most tokens the bucket holds. @defaultValue `max(1, ceil(rate))` */
    burst: positiveInt.optional(),
    /** Put before the key. @defaultValue `'breakwater:rate:'` */
    prefix: z.string({ message: 'expected a string' }).default('breakwater:rate:'),
    /** Each command's own deadline; past it the call is limited locally. @defaultValue 200 */
    commandTimeoutMs: positiveMs.default(200),
    /** While Redis is unreachable, how long to limit locally before trying it again. @defaultValue 1,000 */
    retryMs: positiveMs.default(1_000),
    /** Rate of the local bucket used while Redis is unreachable (per process). @defaultValue `rate` */
    localRate: perSecond.optional(),
    /** Burst of the local bucket. @defaultValue `burst` */
    localBurst: positiveInt.optional(),
    /** With a key function: most keys with a local bucket at once (while Redis is unreachable). @defaultValue 10_000 */
    maxKeys: positiveInt.default(10_000),
    /** With a key function: a local bucket unused this long, and full again, is dropped. @defaultValue 300_000 */
    idleMs: positiveMs.default(300_000),
    /** Clock of the local bucket and the command deadlines. @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

/**
 * Options of {@link redisTokenBucket}.
 * @example
 * ```ts
 * redisTokenBucket(redis, { key: 'partner-api', rate: 50, burst: 10 });
 * redisTokenBucket(redis, { key: (ctx) => `tenant:${ctx.meta.tenant}`, rate: 10, burst: 20 }); // a bucket per tenant
 * ```
 */
export type RedisTokenBucketOptions = z.input<typeof RedisTokenBucketOptionsSchema>;

/**
 * A token bucket shared by every process through Redis: one Lua script per
 * call takes a token atomically, by Redis's clock (`TIME`). While Redis is
 * unreachable (an error, or no answer within `commandTimeoutMs`) it limits
 * with a local bucket and tells its limiter (`localFallback` event, `active:
 * true`); every `retryMs` one call tries Redis again, and the first success
 * goes back to the shared bucket (`active: false`), like go-zero's
 * TokenLimiter. With a key function, each key has its own shared bucket
 * (Redis drops it once a full bucket would have refilled) and, while Redis
 * is away, its own local bucket (at most `maxKeys`, dropped when idle and
 * full again); Redis's health is one for all keys.
 */
export class RedisTokenBucket implements RateAlgorithm {
  readonly kind = 'redisTokenBucket';
  readonly rate: number;
  readonly burst: number;
  /** True while limiting locally. */
  local = false;
  /** The local bucket of a fixed key. */
  private readonly fallback: TokenBucket;
  /** The local buckets of a key function, per key. */
  private readonly fallbacks: KeyedMap<TokenBucket> | undefined;
  private readonly o: z.output<typeof RedisTokenBucketOptionsSchema>;
  private readonly key: string | ((ctx: ExecutionContext) => string);
  private readonly args: (string | number)[];
  private readonly clock: Clock;
  private retryAt = 0;
  private probing = false;
  private hosts: LimiterHost[] = [];

  constructor(
    private readonly redis: RedisClient,
    options: RedisTokenBucketOptions,
  ) {
    if (!isRedisClient(redis)) throw new ConfigError('redisTokenBucket', [{ path: 'redis', message: 'expected an ioredis client (evalsha, eval)' }]);
    const o = parseOptions(RedisTokenBucketOptionsSchema, options, 'redisTokenBucket');
    this.o = o;
    this.rate = o.rate;
    this.burst = o.burst ?? Math.max(1, Math.ceil(o.rate));
    const key = o.key;
    this.key = typeof key === 'string' ? o.prefix + key : key;
    // state lapses once a full bucket would have refilled
    this.args = [o.rate, this.burst, Math.ceil((this.burst * 1000) / o.rate) + 1_000];
    const local = { rate: o.localRate ?? o.rate, burst: o.localBurst ?? this.burst };
    this.fallback = new TokenBucket(local);
    this.fallbacks = typeof key === 'string' ? undefined : new KeyedMap(() => new TokenBucket(local), (b, now) => b.idle(now), o);
    this.clock = o.clock ?? systemClock;
  }

  attach(host: LimiterHost): void {
    this.hosts.push(host);
  }

  acquire(ctx: ExecutionContext): number | Promise<number> {
    const k = this.key;
    const key = typeof k === 'string' ? k : this.o.prefix + k(ctx);
    if (this.local) {
      const now = this.clock.now();
      if (this.probing || now < this.retryAt) return this.takeLocal(key, now);
      this.probing = true;
    }
    return this.shared(key);
  }

  private async shared(key: string): Promise<number> {
    try {
      const wait = Number(
        await boundedStoreCall(this.clock, this.o.commandTimeoutMs, 'redisTokenBucket', 'token bucket', () =>
          bucketScript.run(this.redis, [key], this.args),
        ),
      );
      if (this.local) this.switch(false);
      return wait;
    } catch (error) {
      const now = this.clock.now();
      this.retryAt = now + this.o.retryMs;
      if (!this.local) this.switch(true, error);
      return this.takeLocal(key, now);
    } finally {
      this.probing = false;
    }
  }

  /** A token of the key's local bucket; a new key that finds `maxKeys` buckets still spending waits a second. */
  private takeLocal(key: string, now: number): number {
    const buckets = this.fallbacks;
    if (buckets === undefined) return this.fallback.take(now);
    return buckets.get(key, now)?.take(now) ?? 1_000;
  }

  private switch(local: boolean, error?: unknown): void {
    this.local = local;
    for (const h of this.hosts) h.localFallback(local, error);
  }
}

/**
 * Makes a {@link RedisTokenBucket} for `rateLimiter`: `rate` per second and
 * `burst` shared by every process using `key`, with a local bucket while
 * Redis is away.
 *
 * @example
 * ```ts
 * import { rateLimiter } from 'breakwater';
 * import { redisTokenBucket } from 'breakwater/redis';
 * const limiter = rateLimiter({ algorithm: redisTokenBucket(redis, { key: 'partner-api', rate: 50, burst: 10 }) });
 * ```
 */
export function redisTokenBucket(redis: RedisClient, options: RedisTokenBucketOptions): RedisTokenBucket {
  return new RedisTokenBucket(redis, options);
}
