/**
 * The plain option checks of `adaptive-breaker` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { adaptiveBreakerOptions, type AdaptiveBreakerOptions, type AdaptiveBreakerSnapshot, type ResolvedAdaptiveBreakerOptions } from '../../../policies/adaptive-breaker/options.js';
import { AdaptiveBreakerOptionsSchema, AdaptiveBreakerSnapshotSchema } from '../../../policies/adaptive-breaker/schema.js';
import { adaptiveBreaker } from '../../../policies/adaptive-breaker/adaptive-breaker.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

const adaptiveState = adaptiveBreaker({ clock }).snapshot();
const aWindow = adaptiveState.window;
parity(
  'adaptiveBreaker',
  adaptiveBreakerOptions,
  AdaptiveBreakerOptionsSchema,
  [
    {},
    { windowMs: 1_000, buckets: 10, k: 1, protection: 0, forcePassMs: 0, tripFailures: 1, tripMs: 0, probeRatio: 1, rampFactor: 1.5, handle: yes, handleResult: yes, name: 'a', clock, random: Math.random },
    { initialState: adaptiveState },
    { initialState: { ...adaptiveState, timed: { at: 5, ms: 3 }, lastPass: null, lastSuccessAt: 4 } },
    { initialState: { ...adaptiveState, timed: null } },
  ],
  [
    { windowMs: 0, buckets: 0 },
    { windowMs: 1_000, buckets: 3 },
    { k: 0.5, protection: -1 },
    { tripFailures: 0, tripMs: -1, probeRatio: 2, rampFactor: 1 },
    { initialState: { ...adaptiveState, kind: 'sre' } },
    { initialState: { ...adaptiveState, state: 'ajar', isolated: 0, admitRatio: 2, failuresInRow: -1, successShare: 'x', successShareBeforeRun: -0.5 } },
    { initialState: { ...adaptiveState, timed: { at: 'x', ms: 0.5 } } },
    { initialState: { ...adaptiveState, timed: { at: 1, ms: 1, extra: 1 } } },
    { initialState: { ...adaptiveState, window: { ...aWindow, size: 3 } } },
    { initialState: { ...adaptiveState, window: { ...aWindow, bucketMs: 3 } } },
  ],
);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<AdaptiveBreakerOptions>().toEqualTypeOf<z.input<typeof AdaptiveBreakerOptionsSchema>>();
    expectTypeOf<ResolvedAdaptiveBreakerOptions>().toEqualTypeOf<z.output<typeof AdaptiveBreakerOptionsSchema>>();
    expectTypeOf<AdaptiveBreakerSnapshot>().toEqualTypeOf<z.output<typeof AdaptiveBreakerSnapshotSchema>>();
  });
});
