/**
 * The plain option checks of `idempotent` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { idempotentOptions, type IdempotentOptions } from '../../../policies/idempotent/options.js';
import { memoryStore, memoryStoreOptions, type MemoryStoreOptions } from '../../../policies/idempotent/memory-store.js';
import { jsonIdempotencyCodec } from '../../../policies/idempotent/codec.js';
import { IdempotentOptionsSchema, MemoryStoreOptionsSchema } from '../../../policies/idempotent/schema.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

parity(
  'idempotent',
  idempotentOptions,
  IdempotentOptionsSchema,
  [
    {},
    {
      store: memoryStore(),
      key: () => 'k',
      ttlMs: 1,
      leaseMs: 1,
      renewLease: true,
      onInProgress: 'reject',
      pollMs: 1,
      codec: jsonIdempotencyCodec,
      storeTimeoutMs: 1,
      failOpen: true,
      handleResult: yes,
      name: 'i',
      clock,
    },
  ],
  [{ store: {} }, { ttlMs: 0 }, { leaseMs: -1 }, { renewLease: 'yes' }, { onInProgress: 'later' }, { pollMs: 0 }, { codec: {} }, { storeTimeoutMs: 0 }, { failOpen: 1 }, { key: 1 }],
);
parity('memoryStore', memoryStoreOptions, MemoryStoreOptionsSchema, [{}, { clock }], [{ clock: 1 }]);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<IdempotentOptions>().toEqualTypeOf<z.input<typeof IdempotentOptionsSchema>>();
    expectTypeOf<MemoryStoreOptions>().toEqualTypeOf<z.input<typeof MemoryStoreOptionsSchema>>();
  });
});
