import { describe, expect, it } from 'vitest';
import { circuitBreaker, ConfigError } from '../../api/index.js';
import { fromConfig, PipelineConfigSchema } from '../../api/config.js';
import { toConfigIssues } from '../../lib/schemas.js';

const handlers = { f: () => new Error('injected'), r: () => 'substitute', key: () => 'k', deliver: async () => undefined };

/** A snapshot of a circuit breaker whose window has 5 buckets (the default is 10). */
const fiveBuckets = JSON.parse(JSON.stringify(circuitBreaker({ strategy: 'errorRatio', buckets: 5 }).snapshot())) as unknown;

/** Configs well formed field by field that break a rule across fields: [what, config, the path of the issue]. */
const crossField: [string, unknown, string][] = [
  ['cache: retainMs below ttlMs', { policies: [{ type: 'cache', ttlMs: 100, retainMs: 50 }] }, 'policies[0].retainMs'],
  ['cache: retainMs below ttlMs + staleWhileRevalidateMs', { policies: [{ type: 'cache', ttlMs: 100, staleWhileRevalidateMs: 100, retainMs: 150 }] }, 'policies[0].retainMs'],
  ['chaos: injects nothing', { policies: [{ type: 'chaos', injectionRate: 0.5 }] }, 'policies[0].fault'],
  ['chaos: both fault and result', { policies: [{ type: 'chaos', fault: 'f', result: 'r' }] }, 'policies[0].result'],
  ['hedge: afterFailure with delayMs', { policies: [{ type: 'hedge', afterFailure: true, delayMs: 5 }] }, 'policies[0].delayMs'],
  ['keyedBreaker: neither metaKey nor keyOf', { policies: [{ type: 'keyedBreaker' }] }, 'policies[0].metaKey'],
  ['keyedBreaker: both metaKey and keyOf', { policies: [{ type: 'keyedBreaker', metaKey: 'method', keyOf: 'key' }] }, 'policies[0].keyOf'],
  [
    'circuitBreaker: a snapshot of another window grid',
    { policies: [{ type: 'circuitBreaker', strategy: 'errorRatio', initialState: fiveBuckets }] },
    'policies[0].initialState.window.size',
  ],
  [
    'keyedBreaker: defaults with a snapshot of another window grid',
    { policies: [{ type: 'keyedBreaker', metaKey: 'm', defaults: { strategy: 'errorRatio', initialState: fiveBuckets } }] },
    'policies[0].defaults.initialState.window.size',
  ],
  ['strategy: a breaker tuning whose buckets do not divide its window', { strategy: 'guardedRetry', breaker: { windowMs: 1_000, buckets: 3 } }, 'breaker.buckets'],
  ['strategy: a slow-call ratio above 1', { strategy: 'slowCallShield', breaker: { threshold: 2 } }, 'breaker.threshold'],
  ['strategy: a default-breaker tuning whose buckets do not divide its window', { strategy: 'failFast', breaker: { windowMs: 1_000, buckets: 3 } }, 'breaker.buckets'],
  ['keyedBreaker: SRE defaults with k below minK', { policies: [{ type: 'keyedBreaker', metaKey: 'm', defaults: { family: 'sre', k: 1.05 } }] }, 'policies[0].defaults.k'],
  ['strategy: a consecutive-failures tuning whose buckets do not divide its window', { strategy: 'errorCountTrip', defaultValue: null, breaker: { windowMs: 1_000, buckets: 3 } }, 'breaker.buckets'],
  ['writeBehind: a breaker whose buckets do not divide its window', { strategy: 'writeBehind', deliver: 'deliver', breaker: { windowMs: 1_000, buckets: 3 } }, 'breaker.buckets'],
];

const pathsOf = (build: () => unknown): string[] => {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues.map((i) => i.path);
  }
  return expect.unreachable('expected a ConfigError');
};

describe('PipelineConfigSchema', () => {
  it.each(crossField)('refuses what fromConfig refuses, with the same path: %s', (_, config, path) => {
    const r = PipelineConfigSchema.safeParse(config);
    expect(r.success).toBe(false);
    expect(toConfigIssues(r.error!).map((i) => i.path)).toEqual([path]);
    expect(pathsOf(() => fromConfig(config, handlers))).toEqual([path]);
  });

  it('reports a cross-field rule only once every field it reads is valid', () => {
    const r = PipelineConfigSchema.safeParse({ policies: [{ type: 'chaos', injectionRate: 2 }] });
    expect(toConfigIssues(r.error!)).toEqual([{ path: 'policies[0].injectionRate', message: 'expected a number in [0, 1]' }]);
    expect(pathsOf(() => fromConfig({ strategy: 'guardedRetry', timeoutMs: 0, breaker: { windowMs: 1_000, buckets: 3 } }))).toEqual(['timeoutMs']);
  });

  it('still accepts each rule kept', () => {
    const good = [
      { policies: [{ type: 'cache', ttlMs: 100, staleWhileRevalidateMs: 100, retainMs: 200 }] },
      { policies: [{ type: 'chaos', latency: 10 }] },
      { policies: [{ type: 'hedge', afterFailure: true }, { type: 'hedge', afterFailure: false, delayMs: 5 }] },
      { policies: [{ type: 'keyedBreaker', keyOf: 'key' }] },
      { policies: [{ type: 'circuitBreaker', strategy: 'errorRatio', buckets: 5, initialState: fiveBuckets }] },
      { strategy: 'guardedRetry', breaker: { windowMs: 1_000, buckets: 4 } },
      { strategy: 'writeBehind', deliver: 'deliver', breaker: { k: 2 } },
    ];
    for (const config of good) {
      expect(PipelineConfigSchema.safeParse(config).success, JSON.stringify(config)).toBe(true);
      expect(() => fromConfig(config, handlers)).not.toThrow();
    }
  });
});
