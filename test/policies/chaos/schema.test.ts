/**
 * The plain option checks of `chaos` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { chaosOptions, type ChaosOptions } from '../../../policies/chaos/options.js';
import { ChaosOptionsSchema } from '../../../policies/chaos/schema.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

parity(
  'chaos',
  chaosOptions,
  ChaosOptionsSchema,
  [{ fault: new Error('x') }, { latency: 0 }, { latency: () => 1, result: () => 2, injectionRate: 1, enabled: false, random: Math.random, name: 'c', clock }, { fault: null, enabled: () => true }],
  [
    {},
    { fault: 1, result: () => 2 },
    { latency: -1 },
    { latency: 'slow' },
    { fault: 1, injectionRate: 2 },
    { fault: 1, enabled: 'yes' },
    { fault: 1, enabled: 3 },
    { injectionRate: -1 },
    { latency: -1, result: () => 1, fault: 1 },
    { result: 5 },
  ],
);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    // fault and result are typed more narrowly by hand (ChaosFault, ChaosResult<T>) than the schema can say.
    expectTypeOf<Omit<ChaosOptions, 'fault' | 'result'>>().toEqualTypeOf<Omit<z.input<typeof ChaosOptionsSchema>, 'fault' | 'result'>>();
  });
});
