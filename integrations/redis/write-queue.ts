import { z } from 'zod';
import { boundedStoreCall } from '../../lib/store-call.js';
import { systemClock, type Clock } from '../../lib/clock.js';
import { ConfigError, StoreUnavailableError } from '../../lib/errors.js';
import { clockSchema, parseOptions, positiveMs } from '../../lib/schemas.js';
import type { QueuedWrite, WriteQueue } from '../../config/write-behind/queue.js';
import { isRedisClient, LuaScript, type RedisClient } from './script.js';

// KEYS[1]: the order list of ids, KEYS[2]: the hash id → JSON. Both change in one script, so a crash never leaves half a write.
// KEYS[3]: the write's tombstone. A push that lands after its caller was told it failed finds the tombstone and does
// nothing; a push that lands twice (ioredis resends a command cut off by a dropped connection) queues the write once.
const push = new LuaScript(`if redis.call('EXISTS', KEYS[3]) == 1 then return 0 end
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 1 then redis.call('RPUSH', KEYS[1], ARGV[1]) end
return 1`);
const cancel = new LuaScript(`redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
redis.call('LREM', KEYS[1], 1, ARGV[1])
return redis.call('HDEL', KEYS[2], ARGV[1])`);
const peek = new LuaScript(`local ids = redis.call('LRANGE', KEYS[1], 0, tonumber(ARGV[1]) - 1)
local out = {}
for i, id in ipairs(ids) do
  local v = redis.call('HGET', KEYS[2], id)
  if v then table.insert(out, v) end
end
return out`);
const ack = new LuaScript(`redis.call('LREM', KEYS[1], 1, ARGV[1])
return redis.call('HDEL', KEYS[2], ARGV[1])`);

/** How long a cancelled write's tombstone is kept: longer than any late push may take to arrive. */
const TOMBSTONE_MS = 86_400_000;

/** The part of an ioredis client that tells whether it is connected. */
interface Connection {
  readonly status: string;
  once(event: 'ready', listener: () => void): unknown;
  removeListener(event: 'ready', listener: () => void): unknown;
}

function connectionOf(redis: RedisClient): Connection | undefined {
  const c = redis as Partial<Connection>;
  return typeof c.status === 'string' && typeof c.once === 'function' && typeof c.removeListener === 'function' ? (c as Connection) : undefined;
}

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
 *
 * A write the queue refuses (`StoreUnavailableError`) never lands later:
 * while the client is not connected, nothing is sent (ioredis would keep the
 * command in its offline queue and send it on reconnect); a push that was
 * sent but not answered in time is cancelled, and a tombstone makes it a
 * no-op should it arrive after the cancel.
 */
export class RedisWriteQueue implements WriteQueue {
  private readonly prefix: string;
  private readonly order: string;
  private readonly items: string;
  private readonly ms: number;
  private readonly clock: Clock;
  private readonly connection: Connection | undefined;

  constructor(
    private readonly redis: RedisClient,
    options: RedisWriteQueueOptions = {},
  ) {
    if (!isRedisClient(redis)) throw new ConfigError('redisWriteQueue', [{ path: 'redis', message: 'expected an ioredis client (evalsha, eval)' }]);
    const o = parseOptions(RedisWriteQueueOptionsSchema, options, 'redisWriteQueue');
    this.prefix = o.prefix;
    this.order = `${o.prefix}order`;
    this.items = `${o.prefix}items`;
    this.ms = o.commandTimeoutMs;
    this.clock = o.clock ?? systemClock;
    this.connection = connectionOf(redis);
  }

  async push(item: QueuedWrite): Promise<void> {
    const keys = [this.order, this.items, `${this.prefix}cancelled:${item.id}`];
    const start = this.clock.now();
    await this.connected('push');
    let queued: unknown;
    try {
      queued = await this.run('push', push, keys, [item.id, JSON.stringify(item)], this.ms - (this.clock.now() - start));
    } catch (error) {
      // Sent, but the caller is told it failed: make sure it is not queued, now or when a late copy lands.
      cancel.run(this.redis, keys, [item.id, TOMBSTONE_MS]).catch(noop);
      throw error;
    }
    // Only a write whose id was cancelled (refused to its caller before) is turned away.
    if (queued === 0) throw new StoreUnavailableError('redisWriteQueue', `store push refused (redisWriteQueue): write ${item.id} was cancelled`);
  }

  async peek(limit: number): Promise<QueuedWrite[]> {
    const n = Math.max(1, Math.min(limit, 1_000_000));
    await this.connected('peek');
    const reply = (await this.run('peek', peek, [this.order, this.items], [n], this.ms)) as string[];
    return reply.map((json) => JSON.parse(json) as QueuedWrite);
  }

  async ack(id: string): Promise<void> {
    await this.connected('ack');
    await this.run('ack', ack, [this.order, this.items], [id], this.ms);
  }

  /**
   * Resolves once the client is connected, waiting for it at most
   * `commandTimeoutMs`; rejects with `StoreUnavailableError` past that, having
   * sent nothing. Clients that do not report a connection state are trusted.
   */
  private connected(what: string): Promise<void> {
    const c = this.connection;
    // 'wait': a lazyConnect client connects on its first command
    if (c === undefined || c.status === 'ready' || c.status === 'wait') return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onReady = (): void => {
        this.clock.clearTimeout(timer);
        resolve();
      };
      const timer = this.clock.setTimeout(() => {
        c.removeListener('ready', onReady);
        reject(new StoreUnavailableError('redisWriteQueue', `store ${what} failed (redisWriteQueue): Redis is not connected (${c.status})`));
      }, this.ms);
      c.once('ready', onReady);
    });
  }

  private run(what: string, script: LuaScript, keys: string[], args: (string | number)[], ms: number): Promise<unknown> {
    return boundedStoreCall(this.clock, Math.max(1, ms), 'redisWriteQueue', what, () => script.run(this.redis, keys, args));
  }
}

function noop(): void {}

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
