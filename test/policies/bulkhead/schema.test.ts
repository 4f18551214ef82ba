/**
 * The plain option checks of `bulkhead` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { bulkheadOptions, type BulkheadOptions } from '../../../policies/bulkhead/options.js';
import { BulkheadOptionsSchema, KeyedBulkheadOptionsSchema } from '../../../policies/bulkhead/schema.js';
import { keyedBulkheadOptions, type KeyedBulkheadOptions } from '../../../policies/bulkhead/keyed.js';
import { parity, schema, clock } from '../../helpers/parity.js';

parity(
  'bulkhead',
  bulkheadOptions,
  BulkheadOptionsSchema,
  [
    { limit: 1 },
    { limit: 3, queue: 0, name: 'b', clock },
    { limit: 2, reserve: {}, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' },
    { limit: 2, reserve: { default: 0.2, sheddable: 0.2 }, partitions: { a: 0.7, b: 0.2, c: 0.1 } },
    { limit: 2, reserve: { sheddable: 0 }, partitions: {} },
  ],
  [
    {},
    { limit: 0 },
    { limit: 1.5 },
    { limit: 2, queue: -1 },
    { limit: 2, queue: 0.5, name: '' },
    { limit: 2, reserve: { sheddable: 1 } },
    { limit: 2, reserve: { default: 0.5 } },
    { limit: 2, reserve: { default: 0.5, sheddable: 2 } },
    { limit: 2, reserve: { critical: 0.1 } },
    { limit: 2, reserve: 'x' },
    { limit: 2, partitions: { a: 0, b: 'x' } },
    { limit: 2, partitions: { a: 0.7, b: 0.4 } },
    { limit: 2, partitions: { a: 2 } },
    { limit: 2, partitions: [0.5] },
    { limit: 2, partitionBy: '' },
  ],
);

const byTenant = (ctx: { meta: Readonly<Record<string, string>> }) => ctx.meta.tenant ?? '';
parity(
  'keyedBulkhead',
  keyedBulkheadOptions,
  KeyedBulkheadOptionsSchema,
  [
    { key: byTenant, limit: 1 },
    { key: byTenant, limit: 3, queue: 2, name: 'k', clock, maxKeys: 1, idleMs: 0.5 },
    { key: byTenant, limit: 2, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic', maxKeys: 50 },
  ],
  [
    {},
    { limit: 1 },
    { key: 'tenant', limit: 1 },
    { key: byTenant, limit: 0, maxKeys: 0, idleMs: 0 },
    { key: byTenant, limit: 1, maxKeys: 1.5, idleMs: 'x' },
    { key: byTenant, limit: 2, reserve: { default: 0.5 }, name: '' },
  ],
);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<BulkheadOptions>().toEqualTypeOf<z.input<typeof BulkheadOptionsSchema>>();
    expectTypeOf<KeyedBulkheadOptions>().toEqualTypeOf<z.input<typeof KeyedBulkheadOptionsSchema>>();
  });
});
