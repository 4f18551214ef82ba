export { cache, CachePolicy, staleFallback, type StaleEntry } from './cache.js';
export type { CacheOptions } from './options.js';
export { memoryCacheStore, type MemoryCacheStoreOptions } from './memory-store.js';
export { jsonCacheCodec, type CacheCodec, type CacheRecord, type CacheStore } from './store.js';
export type { CacheHitEvent, CacheMissEvent, RevalidatedEvent } from './events.js';
