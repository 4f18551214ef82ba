/**
 * The plain option checks of `sre-breaker` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { sreBreakerOptions, type ResolvedSreBreakerOptions, type SreBreakerOptions, type SreBreakerSnapshot } from '../../../policies/sre-breaker/options.js';
import { SreBreakerOptionsSchema, SreBreakerSnapshotSchema } from '../../../policies/sre-breaker/schema.js';
import { sreBreaker } from '../../../policies/sre-breaker/sre-breaker.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

const window = { origin: 0, bucketMs: 250, size: 40, head: -1, sums: [0, 0, 0], counts: null };
const counted = { origin: 0, bucketMs: 500, size: 2, head: 1, sums: [3, 1, 0], counts: [1, 0, 0, 2, 1, 0] };
const sreState = sreBreaker({ clock }).snapshot();
parity(
  'sreBreaker',
  sreBreakerOptions,
  SreBreakerOptionsSchema,
  [
    {},
    { windowMs: 1_000, buckets: 10, k: 2, minK: 1, protection: 0, forcePassMs: 0, handle: yes, handleResult: yes, name: 's', clock, random: Math.random },
    { initialState: sreState },
    { initialState: { kind: 'sre', open: true, isolated: false, lastPass: 5, window } },
  ],
  [
    { windowMs: 0 },
    { buckets: 0 },
    { windowMs: 1_000, buckets: 3 },
    { k: 1, minK: 1.2 },
    { minK: 0.5 },
    { protection: -1 },
    { forcePassMs: -1 },
    { k: Infinity },
    { initialState: { ...sreState, kind: 'adaptive' } },
    { initialState: { ...sreState, open: 1, isolated: 'no', lastPass: 'x' } },
    { initialState: { ...sreState, window: { ...window, size: 10 } } },
    { initialState: { ...sreState, window: { ...window, bucketMs: 100 } } },
    { initialState: { ...sreState, window: { ...window, sums: [1, 0, 0] } }, buckets: 3 },
    { initialState: { ...sreState, extra: 1 } },
  ],
);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<SreBreakerOptions>().toEqualTypeOf<z.input<typeof SreBreakerOptionsSchema>>();
    expectTypeOf<ResolvedSreBreakerOptions>().toEqualTypeOf<z.output<typeof SreBreakerOptionsSchema>>();
    expectTypeOf<SreBreakerSnapshot>().toEqualTypeOf<z.output<typeof SreBreakerSnapshotSchema>>();
  });
});
