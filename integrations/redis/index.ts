/**
 * breakwater on Redis (`breakwater/redis`): a store for `idempotent`, a
 * token bucket for `rateLimiter` shared by every process, and a breaker verdict
 * shared by a fleet of instances (`redisFleet`), on an ioredis
 * client you own. ioredis is an optional peer dependency.
 * @packageDocumentation
 */
export { redisStore, RedisStore, RedisStoreOptionsSchema, type RedisStoreOptions } from './store.js';
export { redisTokenBucket, RedisTokenBucket, RedisTokenBucketOptionsSchema, type RedisTokenBucketOptions } from './token-bucket.js';
export { isRedisClient, type RedisClient } from './script.js';
export { redisWriteQueue, RedisWriteQueue, RedisWriteQueueOptionsSchema, type RedisWriteQueueOptions } from './write-queue.js';
export { redisFleet, RedisFleet, RedisFleetOptionsSchema, type RedisFleetOptions, type FleetView, type FleetMember, type FleetEvent } from './fleet.js';
