export { cache, CachePolicy, staleFallback, type StaleEntry } from './cache.js';
export { CacheOptionsSchema, type CacheOptions } from './options.js';
export { memoryCacheStore, MemoryCacheStoreOptionsSchema, type MemoryCacheStoreOptions } from './memory-store.js';
export { jsonCacheCodec, type CacheCodec, type CacheRecord, type CacheStore } from './store.js';
export type { CacheHitEvent, CacheMissEvent, RevalidatedEvent } from './events.js';
