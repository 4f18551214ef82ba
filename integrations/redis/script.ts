import { createHash } from 'node:crypto';

/**
 * The few ioredis methods breakwater calls: `evalsha` and `eval`. An ioredis
 * `Redis` (or `Cluster`, when every key of a call hashes to one slot) is one.
 */
export interface RedisClient {
  evalsha(sha1: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** True for a {@link RedisClient}. */
export function isRedisClient(value: unknown): value is RedisClient {
  const r = value as RedisClient;
  return typeof value === 'object' && value !== null && typeof r.evalsha === 'function' && typeof r.eval === 'function';
}

/** A Lua script run by its SHA1, loaded with `EVAL` the first time a server does not know it (`NOSCRIPT`). */
export class LuaScript {
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  run(redis: RedisClient, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
    return redis.evalsha(this.sha, keys.length, ...keys, ...args).catch((error: unknown) => {
      if (!String((error as Error)?.message).startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    });
  }
}
