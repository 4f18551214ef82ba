/**
 * The plain option checks of `timeout` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { timeoutOptions, type TimeoutOptions } from '../../../policies/timeout/options.js';
import { TimeoutOptionsSchema } from '../../../policies/timeout/schema.js';
import { parity, schema, clock } from '../../helpers/parity.js';

parity('timeout', timeoutOptions, TimeoutOptionsSchema, [{ ms: 100 }, { ms: 0.5, mode: 'cooperative', name: 't', clock }], [
  { ms: 0 },
  { ms: -5, mode: 'lazy' },
  {},
  { ms: 100, name: '' },
  { ms: 100, clock: { now: () => 0 } },
]);


describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<TimeoutOptions>().toEqualTypeOf<z.input<typeof TimeoutOptionsSchema>>();
  });
});
