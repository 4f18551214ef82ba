/**
 * The plain option checks of `load-shedder` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { loadShedderOptions, type LoadShedderOptions } from '../../../policies/load-shedder/options.js';
import { LoadShedderOptionsSchema } from '../../../policies/load-shedder/schema.js';
import { parity, schema, clock } from '../../helpers/parity.js';

parity(
  'loadShedder',
  loadShedderOptions,
  LoadShedderOptionsSchema,
  [{}, { cpuThreshold: 0.5, cpu: 0.3, windowMs: 1, buckets: 2, coolOffMs: 1, name: 'l', clock }, { cpu: () => 0.2 }, { reserve: { default: 0.1, sheddable: 0.5 } }],
  [
    { cpuThreshold: 0 },
    { cpuThreshold: 1 },
    { cpu: 'hot' },
    { windowMs: 0 },
    { buckets: 1 },
    { coolOffMs: -1 },
    { reserve: { default: 0.2 } },
    { reserve: { sheddable: 1, default: 'x' } },
    { reserve: [] },
  ],
);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<LoadShedderOptions>().toEqualTypeOf<z.input<typeof LoadShedderOptionsSchema>>();
  });
});
