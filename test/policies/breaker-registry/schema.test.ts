/**
 * The plain option checks of `breaker-registry` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { breakerRegistryOptions, type BreakerRegistryOptions } from '../../../policies/breaker-registry/options.js';
import { BreakerRegistryOptionsSchema } from '../../../policies/breaker-registry/schema.js';
import { parity, schema, clock } from '../../helpers/parity.js';

parity(
  'breakerRegistry',
  breakerRegistryOptions,
  BreakerRegistryOptionsSchema,
  [{}, { defaults: { strategy: 'errorRatio' }, idleMs: 1, name: 'b', clock, random: Math.random }, { defaults: { family: 'sre' } }],
  [{ defaults: 1 }, { defaults: [] }, { idleMs: 0 }, { name: '' }],
);


describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<BreakerRegistryOptions>().toEqualTypeOf<z.input<typeof BreakerRegistryOptionsSchema>>();
  });
});
