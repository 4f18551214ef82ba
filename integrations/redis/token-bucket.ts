import { z } from 'zod';
import { boundedStoreCall } from '../../lib/store-call.js';
import type { LimiterHost, RateAlgorithm } from '../../policies/rate-limiter/algorithm.js';
import { perSecond, positiveInt } from '../../policies/rate-limiter/schema.js';
import { TokenBucket } from '../../policies/rate-limiter/token-bucket.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { ConfigError } from '../../lib/errors.js';
import { clockSchema, parseOptions, positiveMs } from '../../lib/schemas.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { TOKEN_BUCKET } from './lua.js';
import { isRedisClient, LuaScript, type RedisClient } from './script.js';

const bucketScript = new LuaScript(TOKEN_BUCKET);

/** Options of {@link redisTokenBucket}. */
export const RedisTokenBucketOptionsSchema = z
  .object({
    /** Names the shared limit: every process using the same key shares one bucket. */
    key: z.string({ message: 'expected a non-empty string' }).min(1, { message: 'expected a non-empty string' }),
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
    /** Clock of the local bucket and the command deadlines. @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

/**
 * Options of {@link redisTokenBucket}.
 * @example
 * ```ts
 * redisTokenBucket(redis, { key: 'partner-api', rate: 50, burst: 10 });
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
 * TokenLimiter.
 */
export class RedisTokenBucket implements RateAlgorithm {
  readonly kind = 'redisTokenBucket';
  readonly rate: number;
  readonly burst: number;
  /** True while limiting locally. */
  local = false;
  private readonly fallback: TokenBucket;
  private readonly o: z.output<typeof RedisTokenBucketOptionsSchema>;
  private readonly key: string;
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
    this.key = o.prefix + o.key;
    // state lapses once a full bucket would have refilled
    this.args = [o.rate, this.burst, Math.ceil((this.burst * 1000) / o.rate) + 1_000];
    this.fallback = new TokenBucket({ rate: o.localRate ?? o.rate, burst: o.localBurst ?? this.burst });
    this.clock = o.clock ?? systemClock;
  }

  attach(host: LimiterHost): void {
    this.hosts.push(host);
  }

  acquire(_ctx: ExecutionContext): number | Promise<number> {
    if (this.local) {
      const now = this.clock.now();
      if (this.probing || now < this.retryAt) return this.fallback.take(now);
      this.probing = true;
    }
    return this.shared();
  }

  private async shared(): Promise<number> {
    try {
      const wait = Number(
        await boundedStoreCall(this.clock, this.o.commandTimeoutMs, 'redisTokenBucket', 'token bucket', () =>
          bucketScript.run(this.redis, [this.key], this.args),
        ),
      );
      if (this.local) this.switch(false);
      return wait;
    } catch (error) {
      const now = this.clock.now();
      this.retryAt = now + this.o.retryMs;
      if (!this.local) this.switch(true, error);
      return this.fallback.take(now);
    } finally {
      this.probing = false;
    }
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
