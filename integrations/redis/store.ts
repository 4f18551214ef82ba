import { z } from 'zod';
import { boundedStoreCall } from '../../lib/store-call.js';
import type { ClaimResult, IdempotencyStore } from '../../policies/idempotent/store.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { ConfigError } from '../../lib/errors.js';
import { clockSchema, parseOptions, positiveMs } from '../../lib/schemas.js';
import { CLAIM, EXTEND, SETTLE } from './lua.js';
import { isRedisClient, LuaScript, type RedisClient } from './script.js';

const claimScript = new LuaScript(CLAIM);
const settleScript = new LuaScript(SETTLE);
const extendScript = new LuaScript(EXTEND);

/** Options of {@link redisStore}. */
export const RedisStoreOptionsSchema = z
  .object({
    /** Put before every key, to keep breakwater's records apart from your data. @defaultValue `'breakwater:idem:'` */
    prefix: z.string({ message: 'expected a string' }).default('breakwater:idem:'),
    /**
     * Each command's own deadline: past it the call fails with `StoreUnavailableError`, whatever ioredis's
     * retry settings (by default it queues commands to a dead server for ~10 s).
     * @defaultValue 1,000
     */
    commandTimeoutMs: positiveMs.default(1_000),
    /** Clock of the command deadlines. @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

/**
 * Options of {@link redisStore}.
 * @example
 * ```ts
 * redisStore(redis, { prefix: 'payments:idem:', commandTimeoutMs: 500 });
 * ```
 */
export type RedisStoreOptions = z.input<typeof RedisStoreOptionsSchema>;

/**
 * An {@link IdempotencyStore} on Redis: one hash per key (`s` state, one of
 * `p` pending, `s` success, `n` not storable, `f` failed; `tok` fence,
 * `lease`, `v` value), claimed and settled by Lua scripts so each step is
 * atomic, with times and TTLs kept by Redis itself.
 */
export class RedisStore implements IdempotencyStore {
  readonly prefix: string;
  private readonly ms: number;
  private readonly clock: Clock;

  constructor(
    private readonly redis: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    if (!isRedisClient(redis)) throw new ConfigError('redisStore', [{ path: 'redis', message: 'expected an ioredis client (evalsha, eval)' }]);
    const o = parseOptions(RedisStoreOptionsSchema, options, 'redisStore');
    this.prefix = o.prefix;
    this.ms = o.commandTimeoutMs;
    this.clock = o.clock ?? systemClock;
  }

  async claim(key: string, leaseMs: number, ttlMs: number): Promise<ClaimResult> {
    const ttl = Math.ceil(Math.max(ttlMs, leaseMs));
    const reply = (await this.run('claim', claimScript, key, [Math.ceil(leaseMs), ttl])) as string[];
    if (reply[0] === 's') return { state: 'success', value: String(reply[1]) };
    if (reply[0] === 'n') return { state: 'notStorable' };
    if (reply[0] === 'p') return { state: 'pending', retryInMs: Number(reply[1]) };
    return { state: 'claimed', token: String(reply[1]), takeover: reply[2] === '1' };
  }

  async complete(key: string, token: string, value: string, ttlMs: number): Promise<boolean> {
    return (await this.run('complete', settleScript, key, [token, 's', value, Math.ceil(ttlMs)])) === 1;
  }

  async completeNotStorable(key: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.run('complete', settleScript, key, [token, 'n', '', Math.ceil(ttlMs)])) === 1;
  }

  async release(key: string, token: string, ttlMs: number): Promise<boolean> {
    return (await this.run('release', settleScript, key, [token, 'f', '', Math.ceil(ttlMs)])) === 1;
  }

  async extend(key: string, token: string, leaseMs: number): Promise<boolean> {
    return (await this.run('extend', extendScript, key, [token, Math.ceil(leaseMs)])) === 1;
  }

  private run(what: string, script: LuaScript, key: string, args: (string | number)[]): Promise<unknown> {
    return boundedStoreCall(this.clock, this.ms, 'redisStore', what, () => script.run(this.redis, [this.prefix + key], args));
  }
}

/**
 * Makes a {@link RedisStore} for `idempotent`, on an ioredis client you own
 * (breakwater never connects or quits it).
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { idempotent } from 'breakwater';
 * import { redisStore } from 'breakwater/redis';
 * const charge = idempotent({ store: redisStore(new Redis(), { prefix: 'charge:' }), leaseMs: 10_000 });
 * ```
 */
export function redisStore(redis: RedisClient, options: RedisStoreOptions = {}): RedisStore {
  return new RedisStore(redis, options);
}
