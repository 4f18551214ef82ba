/**
 * The strategies' code form checks its options with plain rules (no zod in the
 * root entry); `fromConfig({ strategy })` with the zod schemas of
 * `breakwater/config`. Each case goes through both: both accept it, or both
 * refuse it with the same issues (path and message). Then the whole code form
 * against the whole config form, the checks of the written-out policies
 * included.
 */
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/errors.js';
import { checkOptions } from '../../../lib/options.js';
import { toConfigIssues } from '../../../lib/schemas.js';
import { backoffData, budgetData, strategyRules } from '../../../config/strategies/rules.js';
import { strategyShapes } from '../../../config/strategies/shapes.js';
import { BackoffConfigSchema, BudgetConfigSchema } from '../../../config/entries.js';
import { fromConfig } from '../../../config/from-config.js';
import { strategies } from '../../../config/strategies/strategies.js';
import { issuesOf } from '../../helpers/config-issues.js';
import type { z } from 'zod';

type Issues = { path: string; message: string }[];

function plain(rule: (v: unknown, p: readonly (string | number)[], f: never) => unknown, value: unknown): Issues | 'ok' {
  try {
    checkOptions(rule as never, value, 'config');
    return 'ok';
  } catch (e) {
    if (e instanceof ConfigError) return e.issues.map((i) => ({ path: i.path, message: i.message }));
    throw e;
  }
}

function zod(schema: z.ZodType, value: unknown): Issues | 'ok' {
  const r = schema.safeParse(value);
  return r.success ? 'ok' : toConfigIssues(r.error).map((i) => ({ path: i.path, message: i.message }));
}

/** Options of each strategy (its `strategy` added), accepted and refused ones mixed. */
const CASES: Record<keyof typeof strategyRules, readonly Record<string, unknown>[]> = {
  failFast: [
    {},
    { timeoutMs: 250, name: 'users' },
    { timeoutMs: 0 },
    { timeoutMs: 'fast' },
    { name: '' },
    { breaker: { k: 2, windowMs: 1_000, buckets: 10 } },
    { breaker: { k: 0.5, bogus: 1 } },
    { breaker: { handle: 'isTransient' } },
    { breaker: { handle: '' } },
    { breaker: { name: 'b' } },
    { breaker: 'default' },
    { retries: 3 },
  ],
  boundedRetry: [
    {},
    { attemptTimeoutMs: 100, totalTimeoutMs: 400, maxAttempts: 4 },
    { maxAttempts: 0 },
    { maxAttempts: 1.5 },
    { backoff: { kind: 'constant', ms: 5 } },
    { backoff: { kind: 'linear', ms: 5, step: -1 } },
    { backoff: { kind: 'exponential', initial: 500, max: 100 } },
    { backoff: { kind: 'exponential', multiplier: 0.5, jitter: 'some' } },
    { backoff: { kind: 'fibonacci' } },
    { backoff: 10 },
    { retryOn: 'transient' },
    { retryOn: 3 },
  ],
  budgetedRetry: [
    {},
    { budget: { kind: 'token', ratio: 0.2 } },
    { budget: { kind: 'token', ratio: 2, minPerSecond: -1 } },
    { budget: { kind: 'slo', fraction: 0.5, maxRetries: 2 } },
    { budget: { kind: 'slo', maxRetries: -1, extra: true } },
    { budget: { kind: 'none' } },
    { budget: false },
    { timeoutMs: -5, maxAttempts: 0 },
  ],
  standard: [
    { fallback: 'guest' },
    {},
    { fallback: '' },
    { fallback: 'guest', budget: false },
    { fallback: 'guest', budget: true },
    { fallback: 'guest', budget: { kind: 'token', ratio: -1 } },
    { fallback: 'guest', concurrency: false },
    { fallback: 'guest', concurrency: { initialLimit: 10, maxLimit: 50 } },
    { fallback: 'guest', concurrency: { initialLimit: 0 } },
    { fallback: 'guest', concurrency: { isOverload: 'overloaded' } },
    { fallback: 'guest', concurrency: { isOverload: 7 } },
    { fallback: 'guest', concurrency: 'yes' },
    { fallback: 'guest', breaker: { protection: -1 } },
    { fallback: 'guest', timeoutMs: 300, maxAttempts: 2, backoff: { kind: 'constant', ms: 10 }, retryOn: 'r' },
  ],
  guardedRetry: [
    {},
    { breaker: { threshold: 0.5, minRequests: 10, windowMs: 1_000, buckets: 10, openMs: 500, probes: 2, maxHalfOpenMs: 1_000 } },
    { breaker: { threshold: -0.5 } },
    { breaker: { threshold: 'half' } },
    { breaker: { minRequests: -1, probes: 0, strategy: 'errorCount' } },
    { breaker: { handle: 'h', handleResult: '' } },
  ],
  slowCallShield: [
    {},
    { timeoutMs: 500, slowCallMs: 200, cacheTtlMs: 1_000, fallback: 'stale' },
    { timeoutMs: 200, slowCallMs: 500 },
    { timeoutMs: 200, slowCallMs: 200 },
    { timeoutMs: -1, slowCallMs: 500 },
    { slowCallMs: -1 },
    { cacheTtlMs: 0 },
    { breaker: { threshold: 0.9, bogus: true } },
  ],
  errorCountTrip: [
    { defaultValue: null },
    { fallback: 'cached' },
    {},
    { fallback: 'cached', defaultValue: 1 },
    { threshold: 0, defaultValue: 1 },
    { threshold: 3, defaultValue: { items: [] }, breaker: { openMs: 1_000 } },
    { defaultValue: 1, breaker: { threshold: 3 } },
  ],
  idempotentRetry: [
    {},
    { idempotent: { ttlMs: 1_000, leaseMs: 100, onInProgress: 'reject', key: 'keyOf', store: 'redis' } },
    { idempotent: { ttlMs: 0, onInProgress: 'maybe' } },
    { idempotent: { clock: 'system' } },
    { idempotent: { store: '' } },
    { idempotent: 'yes' },
  ],
  fallbackChain: [
    {},
    { fallbacks: ['replica', 'disk'], defaultValue: [] },
    { fallbacks: ['replica', ''] },
    { fallbacks: 'replica' },
    { cacheTtlMs: -1, breaker: { k: 'x' } },
  ],
  layeredBreakers: [
    { fallback: 'f' },
    { fallback: 'f', methodKey: 'route', serviceKey: 'host', method: { k: 2 }, service: { windowMs: 5_000, buckets: 5 } },
    { fallback: 'f', methodKey: '' },
    { fallback: 'f', serviceKey: 3 },
    { fallback: 'f', method: { bogus: 1 } },
    {},
  ],
  adaptiveDegrade: [
    { fallback: 'f' },
    { fallback: 'f', bulkhead: { limit: 10, queue: 5 } },
    { fallback: 'f', bulkhead: { limit: 0 } },
    { fallback: 'f', bulkhead: { limit: 10, name: 'b' } },
    { fallback: 'f', rateLimiter: { algorithm: { kind: 'tokenBucket', rate: 10, burst: 20 } } },
    { fallback: 'f', rateLimiter: { algorithm: { kind: 'leaky' } } },
    { fallback: 'f', rateLimiter: { algorithm: { kind: 'tokenBucket', rate: 10, burst: 20 } }, bulkhead: { limit: 1 } },
    { fallback: 'f', thresholds: { cpuHigh: 0.9 } },
    { fallback: 'f', thresholds: { qpsMid: 100, qpsHigh: 50 } },
    { fallback: 'f', signals: { cpu: 'cpuNow', qps: 100 } },
    { fallback: 'f', signals: { cpu: true } },
    { fallback: 'f', signals: [1] },
  ],
};

describe('the strategies\' plain rules say what their zod schemas say', () => {
  for (const [name, cases] of Object.entries(CASES) as [keyof typeof strategyRules, readonly Record<string, unknown>[]][]) {
    it(name, () => {
      let refused = 0;
      for (const options of cases) {
        const config = { strategy: name, ...options };
        const expected = zod(strategyShapes[name], config);
        expect({ options, issues: plain(strategyRules[name], config) }).toEqual({ options, issues: expected });
        if (expected !== 'ok') refused++;
      }
      // every strategy's cases exercise both answers
      expect(refused).toBeGreaterThan(0);
      expect(refused).toBeLessThan(cases.length);
    });
  }

  it('backoff and budget data', () => {
    const backoffs = [{ kind: 'constant', ms: 0 }, { kind: 'linear', ms: 1, step: 1 }, { kind: 'exponential' }, { kind: 'exponential', initial: 0 }, { kind: 'x' }, 'constant', null];
    for (const b of backoffs) expect({ b, issues: plain(backoffData, b) }).toEqual({ b, issues: zod(BackoffConfigSchema, b) });
    const budgets = [{ kind: 'token' }, { kind: 'slo', fraction: 1.5 }, { kind: 'token', windowMs: 0, extra: 1 }, {}, 3];
    for (const b of budgets) expect({ b, issues: plain(budgetData, b) }).toEqual({ b, issues: zod(BudgetConfigSchema, b) });
  });

  it('the rules know every pipeline strategy the schemas know', () => {
    expect(Object.keys(strategyRules).sort()).toEqual(Object.keys(strategyShapes).sort());
  });
});

describe('a strategy in code refuses what the same strategy in config refuses', () => {
  const f = () => null;
  const pairs: [keyof typeof strategyRules, Record<string, unknown>, Record<string, unknown>][] = [
    // the rules of the policies a strategy is written out into, under the option they come from
    ['failFast', { breaker: { windowMs: 1_000, buckets: 7 } }, {}],
    ['standard', { breaker: { windowMs: 1_000, buckets: 3 } }, { fallback: 'f' }],
    ['standard', { concurrency: { initialLimit: 500 } }, { fallback: 'f' }],
    ['guardedRetry', { breaker: { threshold: 1.5 } }, {}],
    ['guardedRetry', { breaker: { windowMs: 1_000, buckets: 3 } }, {}],
    ['layeredBreakers', { method: { windowMs: 1_000, buckets: 6 } }, { fallback: 'f' }],
    ['adaptiveDegrade', { thresholds: { qpsMid: 100, qpsHigh: 50 } }, { fallback: 'f' }],
    ['errorCountTrip', { threshold: 0 }, { defaultValue: 1 }],
    ['slowCallShield', { timeoutMs: 100, slowCallMs: 100 }, {}],
    ['idempotentRetry', { idempotent: { leaseMs: -1 } }, {}],
  ];
  for (const [name, options, handlersIn] of pairs) {
    it(`${name} ${JSON.stringify(options)}`, () => {
      const config = issuesOf(() => fromConfig({ strategy: name, ...options, ...handlersIn } as never, { f }));
      const code = issuesOf(() =>
        (strategies[name] as (o: object) => unknown)({ ...options, ...(handlersIn.fallback ? { fallback: f } : {}), ...('defaultValue' in handlersIn ? { defaultValue: 1 } : {}) }),
      );
      expect(config.length).toBeGreaterThan(0);
      expect(code).toEqual(config);
    });
  }
});
