/**
 * The plain option checks of `hedge` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { hedgeOptions, type HedgeOptions } from '../../../policies/hedge/options.js';
import { HedgeOptionsSchema } from '../../../policies/hedge/schema.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

parity(
  'hedge',
  hedgeOptions,
  HedgeOptionsSchema,
  [{}, { delayMs: Infinity, maxHedged: 2, handle: yes, handleResult: yes, name: 'h', clock }, { delay: () => 5 }, { delayMs: 0 }],
  [{ delayMs: -1 }, { delay: 5 }, { delayMs: 5, delay: () => 5 }, { maxHedged: 0 }, { maxHedged: 0, delayMs: 5, delay: () => 5 }, { delayMs: 5, delay: () => 5, extra: 1 }],
);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<HedgeOptions>().toEqualTypeOf<z.input<typeof HedgeOptionsSchema>>();
  });
});
