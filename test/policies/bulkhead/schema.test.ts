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
import { BulkheadOptionsSchema } from '../../../policies/bulkhead/schema.js';
import { parity, schema, clock } from '../../helpers/parity.js';

parity('bulkhead', bulkheadOptions, BulkheadOptionsSchema, [{ limit: 1 }, { limit: 3, queue: 0, name: 'b', clock }], [{}, { limit: 0 }, { limit: 1.5 }, { limit: 2, queue: -1 }, { limit: 2, queue: 0.5, name: '' }]);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<BulkheadOptions>().toEqualTypeOf<z.input<typeof BulkheadOptionsSchema>>();
  });
});
