/**
 * The plain option checks of `cache` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { cacheOptions, type CacheOptions } from '../../../policies/cache/options.js';
import { memoryCacheStore, memoryCacheStoreOptions, type MemoryCacheStoreOptions } from '../../../policies/cache/memory-store.js';
import { jsonCacheCodec } from '../../../policies/cache/store.js';
import { CacheOptionsSchema, MemoryCacheStoreOptionsSchema } from '../../../policies/cache/schema.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

parity(
  'cache',
  cacheOptions,
  CacheOptionsSchema,
  [{ ttlMs: 1 }, { ttlMs: 10, staleWhileRevalidateMs: 5, retainMs: 15, store: memoryCacheStore(), key: () => 'k', handleResult: yes, name: 'c', clock }],
  [
    {},
    { ttlMs: 0 },
    { ttlMs: 10, staleWhileRevalidateMs: -1 },
    { ttlMs: 10, retainMs: 0 },
    { ttlMs: 10, staleWhileRevalidateMs: 5, retainMs: 12 },
    { ttlMs: 10, retainMs: 5, extra: 1 },
    { ttlMs: 10, retainMs: 5, store: {} },
    { ttlMs: 10, key: 'k' },
  ],
);
parity('memoryCacheStore', memoryCacheStoreOptions, MemoryCacheStoreOptionsSchema, [{}, { maxEntries: 1, codec: jsonCacheCodec, clock }], [
  { maxEntries: 0 },
  { maxEntries: 1.5 },
  { codec: { encode: () => '' } },
]);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<CacheOptions>().toEqualTypeOf<z.input<typeof CacheOptionsSchema>>();
    expectTypeOf<MemoryCacheStoreOptions>().toEqualTypeOf<z.input<typeof MemoryCacheStoreOptionsSchema>>();
  });
});
