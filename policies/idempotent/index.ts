export { idempotent, IdempotentPolicy } from './idempotent.js';
export type { IdempotentOptions } from './options.js';
export { memoryStore, MemoryStore, type MemoryStoreOptions } from './memory-store.js';
export { isIdempotencyStore, type IdempotencyStore, type ClaimResult } from './store.js';
export { jsonIdempotencyCodec, isIdempotencyCodec, type IdempotencyCodec } from './codec.js';
export type { JoinedEvent, ServedEvent, ClaimedEvent, TakeoverEvent, NotStorableEvent } from './events.js';
