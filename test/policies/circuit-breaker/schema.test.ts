/**
 * The plain option checks of `circuit-breaker` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { circuitBreakerOptions, type CircuitBreakerStrategyOptions, type CircuitBreakerSnapshot, type ResolvedCircuitBreakerOptions } from '../../../policies/circuit-breaker/options.js';
import { CircuitBreakerOptionsSchema, CircuitBreakerSnapshotSchema } from '../../../policies/circuit-breaker/schema.js';
import { circuitBreaker } from '../../../policies/circuit-breaker/circuit-breaker.js';
import { plain, schema, clock, strangers, yes } from '../../helpers/parity.js';
import { exponential } from '../../../policies/retry/backoff.js';

const cbState = circuitBreaker({ strategy: 'errorRatio', clock }).snapshot();
const cbWindow = cbState.window;
const countState = circuitBreaker({ strategy: 'errorRatio', window: { type: 'count', size: 3 }, clock }).snapshot();
const count = { type: 'count', size: 3 };
const cbCases: unknown[] = [
  'x',
  null,
  {},
  { strategy: 'nope' },
  { strategy: 'errorRatio', threshold: 2 },
  { strategy: 'errorRatio', windowMs: 1_000, buckets: 3 },
  { strategy: 'slowCallRatio', threshold: -1, slowCallMs: -1, minRequests: -1, probes: 0, openMs: 0, maxHalfOpenMs: 0 },
  { strategy: 'errorCount', threshold: 0.5, extra: 1 },
  { strategy: 'consecutiveFailures', threshold: -1, handle: 1 },
  { strategy: 'dynamicThreshold', weights: { rps: -1, errorRate: 'x', other: 1 }, baseRps: 0 },
  { strategy: 'dynamicThreshold', weights: 5 },
  { strategy: 'dynamicThreshold', threshold: 1.5 },
  { strategy: 'dynamicThreshold', threshold: 'half' },
  { strategy: 'custom' },
  { strategy: 'custom', readyToTrip: 1 },
  { strategy: 'errorRatio', initialState: { ...cbState, kind: 'sre' } },
  { strategy: 'errorRatio', initialState: { ...cbState, retryAt: null } },
  { strategy: 'errorRatio', initialState: { ...cbState, probeBits: 8, probeCount: 4, halfOpenSince: 'x' } },
  { strategy: 'errorRatio', initialState: { ...cbState, probeBits: -1, probeCount: 1.5, state: 'ajar' } },
  { strategy: 'errorRatio', initialState: { ...cbState, window: { ...cbWindow, size: 3 } } },
  { strategy: 'errorRatio', initialState: { ...cbState, window: { ...cbWindow, size: 3 } }, buckets: 3 },
  { strategy: 'errorRatio', window: { type: 'time', size: 3 } },
  { strategy: 'errorRatio', window: { type: 'count', size: 0 } },
  { strategy: 'errorRatio', window: { type: 'count', size: 2.5, extra: 1 } },
  { strategy: 'errorRatio', window: { type: 'count' } },
  { strategy: 'errorRatio', window: 100 },
  { strategy: 'dynamicThreshold', window: count },
  { strategy: 'errorRatio', window: { ...count, size: 4 }, initialState: countState },
  { strategy: 'errorRatio', window: count, initialState: cbState },
  { strategy: 'errorRatio', initialState: countState },
  { strategy: 'errorRatio', window: count, initialState: { ...countState, calls: { size: 3, outcomes: [0, 1, 2, 3] } } },
  { strategy: 'errorRatio', window: count, initialState: { ...countState, calls: { size: 3, outcomes: [4, -1, 0.5] } } },
  { strategy: 'errorRatio', window: count, initialState: { ...countState, calls: { size: 0, outcomes: 'x' } } },
  { strategy: 'errorRatio', initialState: { ...cbState, openings: -1 } },
  { strategy: 'errorRatio', openMs: 'long' },
  { strategy: 'errorRatio', openMs: {} },
  { strategy: 'errorRatio', openMs: -5, maxOpenMs: 0, random: 1 },
];
describe('circuitBreaker', () => {
  it('agrees on every strategy, valid or not', () => {
    const valid: unknown[] = [
      { strategy: 'errorRatio' },
      { strategy: 'slowCallRatio', threshold: 1, slowCallMs: 0, minRequests: 0, windowMs: 1_000, buckets: 10, openMs: 1, probes: 2, maxHalfOpenMs: 1, handle: yes, handleResult: yes, name: 'c', clock },
      { strategy: 'errorCount', threshold: 0 },
      { strategy: 'consecutiveFailures', threshold: 3 },
      { strategy: 'dynamicThreshold', weights: { rps: 0 }, baseRps: 1 },
      { strategy: 'dynamicThreshold', threshold: 0.7 },
      { strategy: 'custom', readyToTrip: yes },
      { strategy: 'errorRatio', initialState: cbState },
      { strategy: 'errorRatio', initialState: { ...cbState, retryAt: null, isolated: true } },
      { strategy: 'errorRatio', window: count },
      { strategy: 'slowCallRatio', window: { type: 'count', size: 1 }, minRequests: 5 },
      { strategy: 'errorRatio', window: count, initialState: countState },
      { strategy: 'errorRatio', window: count, initialState: { ...countState, openings: 3, calls: { size: 3, outcomes: [0, 3, 1] } } },
      { strategy: 'errorCount', openMs: (n: number) => n * 1_000, maxOpenMs: 60_000 },
      { strategy: 'errorCount', openMs: exponential({ initial: 1_000 }), random: () => 0.5 },
    ];
    for (const input of valid) {
      const a = plain(circuitBreakerOptions, input);
      expect(a.ok, JSON.stringify(input)).toBe(true);
      expect(a).toEqual(schema(CircuitBreakerOptionsSchema, input));
    }
    for (const input of cbCases) {
      const a = plain(circuitBreakerOptions, input);
      expect(a.ok, JSON.stringify(input)).toBe(false);
      expect(a, JSON.stringify(input)).toEqual(schema(CircuitBreakerOptionsSchema, input));
    }
    for (const strategy of ['errorRatio', 'custom']) {
      for (const key of ['threshold', 'minRequests', 'initialState', 'name', 'clock', 'readyToTrip', 'weights', 'window', 'openMs', 'maxOpenMs', 'random']) {
        for (const v of strangers) {
          const input = { strategy, [key]: v };
          expect(plain(circuitBreakerOptions, input), `${strategy}.${key}`).toEqual(schema(CircuitBreakerOptionsSchema, input));
        }
      }
    }
  });
});

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    // config data keeps the trip rule under `strategy`; circuitBreaker() also takes it under `trip`
    expectTypeOf<CircuitBreakerStrategyOptions>().toEqualTypeOf<z.input<typeof CircuitBreakerOptionsSchema>>();
    expectTypeOf<ResolvedCircuitBreakerOptions>().toEqualTypeOf<z.output<typeof CircuitBreakerOptionsSchema>>();
    expectTypeOf<CircuitBreakerSnapshot>().toEqualTypeOf<z.output<typeof CircuitBreakerSnapshotSchema>>();
  });
});
