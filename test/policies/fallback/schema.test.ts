/**
 * The plain option checks of `fallback` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { fallbackOptions, type FallbackOptions } from '../../../policies/fallback/options.js';
import { FallbackOptionsSchema } from '../../../policies/fallback/schema.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

parity('fallback', fallbackOptions, FallbackOptionsSchema, [{}, { handle: yes, handleResult: yes, name: 'f', clock }], [{ handle: 1 }, { name: '' }, { clock: {} }]);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<FallbackOptions>().toEqualTypeOf<z.input<typeof FallbackOptionsSchema>>();
  });
});
