import { describe, expect, it } from 'vitest';
import { circuitBreaker, ConfigError, sreBreaker, type CircuitBreakerOptions, type SreBreakerOptions } from '../../../api/index.js';

function issuesOf(make: () => unknown): { path: string; message: string }[] {
  try {
    make();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return [...(e as ConfigError).issues];
  }
  throw new Error('expected a ConfigError');
}
const paths = (make: () => unknown) => issuesOf(make).map((i) => i.path);
const cb = (o: unknown) => () => circuitBreaker(o as CircuitBreakerOptions);
const sre = (o: unknown) => () => sreBreaker(o as SreBreakerOptions);

describe('breaker options (B11 and the ConfigError rules)', () => {
  it('ratio thresholds outside [0, 1] name threshold', () => {
    expect(paths(cb({ strategy: 'errorRatio', threshold: 1.5 }))).toEqual(['threshold']);
    expect(paths(cb({ strategy: 'slowCallRatio', threshold: -0.1 }))).toEqual(['threshold']);
    expect(() => circuitBreaker({ strategy: 'errorRatio', threshold: 0 })).not.toThrow();
    expect(() => circuitBreaker({ strategy: 'errorRatio', threshold: 1 })).not.toThrow();
  });

  it('counts must be integers >= 0', () => {
    expect(paths(cb({ strategy: 'errorCount', threshold: 1.5 }))).toEqual(['threshold']);
    expect(paths(cb({ strategy: 'consecutiveFailures', threshold: -1 }))).toEqual(['threshold']);
    expect(paths(cb({ strategy: 'errorRatio', minRequests: 2.5 }))).toEqual(['minRequests']);
    expect(paths(cb({ strategy: 'errorRatio', probes: 0 }))).toEqual(['probes']);
  });

  it('k < minK names k; minK below 1 names minK', () => {
    expect(paths(sre({ k: 1.05 }))).toEqual(['k']);
    expect(paths(sre({ minK: 0.5, k: 0.6 }))).toEqual(['minK']);
  });

  it('zero or non-dividing buckets name buckets', () => {
    expect(paths(sre({ buckets: 0 }))).toContain('buckets');
    expect(paths(sre({ buckets: 3 }))).toEqual(['buckets']);
    expect(paths(cb({ strategy: 'errorRatio', windowMs: 10_000, buckets: 3 }))).toEqual(['buckets']);
    expect(() => sreBreaker({ windowMs: 1_000, buckets: 4 })).not.toThrow();
  });

  it('zero openMs, windowMs or maxHalfOpenMs are errors', () => {
    expect(paths(cb({ strategy: 'errorRatio', openMs: 0 }))).toEqual(['openMs']);
    expect(paths(cb({ strategy: 'errorRatio', windowMs: 0 }))).toContain('windowMs');
    expect(paths(cb({ strategy: 'errorRatio', maxHalfOpenMs: 0 }))).toEqual(['maxHalfOpenMs']);
  });

  it('NaN and Infinity are errors', () => {
    expect(paths(sre({ k: Number.NaN }))).toEqual(['k']);
    expect(paths(sre({ protection: Infinity }))).toEqual(['protection']);
    expect(paths(sre({ windowMs: Infinity }))).toContain('windowMs');
    expect(paths(cb({ strategy: 'errorRatio', threshold: Number.NaN }))).toEqual(['threshold']);
    expect(paths(cb({ strategy: 'dynamicThreshold', baseRps: Infinity }))).toEqual(['baseRps']);
  });

  it('unknown keys are errors, including options of another strategy', () => {
    expect(paths(sre({ kk: 2 }))).toEqual(['kk']);
    expect(paths(cb({ strategy: 'errorRatio', slowCallMs: 100 }))).toEqual(['slowCallMs']);
    expect(paths(cb({ strategy: 'dynamicThreshold', weights: { rps: 0.3, cpu: 1 } }))).toEqual(['weights.cpu']);
  });

  it('a missing or unknown strategy, or a custom strategy without readyToTrip, is an error', () => {
    expect(paths(cb({}))).toEqual(['strategy']);
    expect(paths(cb({ strategy: 'fastest' }))).toEqual(['strategy']);
    expect(paths(cb({ strategy: 'custom' }))).toEqual(['readyToTrip']);
  });

  it('every problem is listed at once', () => {
    expect(paths(cb({ strategy: 'errorRatio', threshold: 2, openMs: -1, probes: 0 }))).toEqual(['threshold', 'openMs', 'probes']);
  });

  it('defaults are go-zero’s and Sentinel’s', () => {
    const s = sreBreaker();
    expect(s.name).toBe('breaker');
    expect(s.window.size).toBe(40);
    expect(s.window.bucketMs).toBe(250);
    const c = circuitBreaker({ strategy: 'errorRatio' });
    expect(c.name).toBe('circuitBreaker');
    expect(c.window.size).toBe(10);
    expect(c.window.bucketMs).toBe(1_000);
  });
});
