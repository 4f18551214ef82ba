import { z } from 'zod';
import { boundedStoreCall } from '../../policies/idempotent/store-call.js';
import { systemClock, type Clock } from '../clock.js';
import { ConfigError } from '../errors.js';
import { clockSchema, parseOptions, positiveMs } from '../options.js';
import type { QueuedWrite, WriteQueue } from '../strategies/write-behind/queue.js';
import { isRedisClient, LuaScript, type RedisClient } from './script.js';

// KEYS[1]: the order list of ids, KEYS[2]: the hash id → JSON. Both change in one script, so a crash never leaves half a write.
const push = new LuaScript(`redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('RPUSH', KEYS[1], ARGV[1])
return 1`);
const peek = new LuaScript(`local ids = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for i, id in ipairs(ids) do
  local v = redis.call('HGET', KEYS[2], id)
  if v then table.insert(out, v) end
end
return out`);
const ack = new LuaScript(`redis.call('LREM', KEYS[1], 1, ARGV[1])
return redis.call('HDEL', KEYS[2], ARGV[1])`);

/** Options of {@link redisWriteQueue}. */
export const RedisWriteQueueOptionsSchema = z
  .object({
    /** Put before the queue's two keys. @defaultValue `'breakwater:writes:'` */
    prefix: z.string({ message: 'expected a string' }).default('breakwater:writes:'),
    /** Each command's own deadline (`StoreUnavailableError` past it). @defaultValue 1,000 */
    commandTimeoutMs: positiveMs.default(1_000),
    /** Clock of the command deadlines. @defaultValue the system clock */
    clock: clockSchema.optional(),
  })
  .strict();

/** Options of {@link redisWriteQueue}. */
export type RedisWriteQueueOptions = z.input<typeof RedisWriteQueueOptionsSchema>;

/**
 * A {@link WriteQueue} on Redis for the write-behind strategy: a list of ids
 * in order and a hash of payloads, changed together by Lua scripts. With
 * Redis persistence on (`appendonly yes`), queued writes survive a crash of
 * the process and of Redis.
 */
export class RedisWriteQueue implements WriteQueue {
  private readonly order: string;
  private readonly items: string;
  private readonly ms: number;
  private readonly clock: Clock;

  constructor(
    private readonly redis: RedisClient,
    options: RedisWriteQueueOptions = {},
  ) {
    if (!isRedisClient(redis)) throw new ConfigError('redisWriteQueue', [{ path: 'redis', message: 'expected an ioredis client (evalsha, eval)' }]);
    const o = parseOptions(RedisWriteQueueOptionsSchema, options, 'redisWriteQueue');
    this.order = `${o.prefix}order`;
    this.items = `${o.prefix}items`;
    this.ms = o.commandTimeoutMs;
    this.clock = o.clock ?? systemClock;
  }

  async push(item: QueuedWrite): Promise<void> {
    await this.run('push', push, [item.id, JSON.stringify(item)]);
  }

  async peek(limit: number): Promise<QueuedWrite[]> {
    const n = Math.max(1, Math.min(limit, 1_000_000));
    const reply = (await this.run('peek', peek, [n])) as string[];
    return reply.map((json) => JSON.parse(json) as QueuedWrite);
  }

  async ack(id: string): Promise<void> {
    await this.run('ack', ack, [id]);
  }

  private run(what: string, script: LuaScript, args: (string | number)[]): Promise<unknown> {
    return boundedStoreCall(this.clock, this.ms, 'redisWriteQueue', what, () => script.run(this.redis, [this.order, this.items], args));
  }
}

/**
 * Makes a {@link RedisWriteQueue}, on an ioredis client you own.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { strategies } from 'breakwater';
 * import { redisWriteQueue } from 'breakwater/redis';
 * const orders = strategies.writeBehind({ deliver: saveOrder, store: redisWriteQueue(new Redis(), { prefix: 'orders:' }) });
 * ```
 */
export function redisWriteQueue(redis: RedisClient, options: RedisWriteQueueOptions = {}): RedisWriteQueue {
  return new RedisWriteQueue(redis, options);
}
