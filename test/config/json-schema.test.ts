import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { PipelineConfigSchema } from '../../api/config.js';

const schema = JSON.parse(readFileSync(new URL('../../dist/schema.json', import.meta.url), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validate = ajv.compile(schema);

const good: unknown[] = [
  { policies: [] },
  { name: 'users', policies: [{ type: 'timeout', ms: 300 }, { type: 'retry', maxAttempts: 3 }, { type: 'fallback', handler: 'guest' }] },
  { policies: [{ type: 'timeout', ms: 300, mode: 'cooperative' }] },
  { policies: [{ type: 'retry', backoff: { kind: 'exponential', initial: 50, max: 500, jitter: 'decorrelated' }, budget: { kind: 'slo', maxRetries: 2 } }] },
  { policies: [{ type: 'retry', backoff: { kind: 'linear', ms: 10, step: 5 }, budget: { kind: 'token', ratio: 0.2 } }] },
  { policies: [{ type: 'degrade', when: { decisionTree: { qpsHigh: 9000 } }, signals: { cpu: 'cpu', health: 1 }, to: 'cached' }] },
  { policies: [{ type: 'loadShedder', cpuThreshold: 0.8 }, { type: 'hedge', delayMs: 50, maxHedged: 2 }] },
  { policies: [{ type: 'chaos', latency: 100, injectionRate: 0.5 }, { type: 'cache', ttlMs: 1000, staleWhileRevalidateMs: 500 }] },
  { policies: [{ type: 'fallbackChain', handlers: ['a', 'b'] }] },
  { policies: [{ type: 'circuitBreaker', strategy: 'slowCallRatio', slowCallMs: 200, threshold: 0.3 }, { type: 'keyedBreaker', metaKey: 'method' }] },
  { policies: [{ type: 'bulkhead', limit: 10, queue: 5 }, { type: 'rateLimiter', algorithm: { kind: 'tokenBucket', rate: 100, burst: 10 } }] },
  { policies: [{ type: 'idempotent', leaseMs: 5_000, onInProgress: 'reject' }] },
  { policies: [{ type: 'timeout', ms: 300 }, { type: 'adaptiveLimiter' }, { type: 'adaptiveLimiter', algorithm: 'vegas', isOverload: 'is503' }] },
  { policies: [{ type: 'adaptiveLimiter', algorithm: { kind: 'gradient', tolerance: 2 }, initialLimit: 10, minLimit: 2, maxLimit: 50, windowMs: 200 }] },
  { policies: [{ type: 'adaptiveLimiter', algorithm: { kind: 'aimd', backoffRatio: 0.8, slowMs: 250 } }] },
  { strategy: 'standard', timeoutMs: 300, fallback: 'guest' },
  { strategy: 'budgetedRetry', budget: { kind: 'slo', maxRetries: 2 } },
  { strategy: 'errorCountTrip', defaultValue: { items: [] } },
  { strategy: 'writeBehind', deliver: 'save', keyOf: 'byCustomer' },
];

const bad: unknown[] = [
  {},
  { policies: [{ type: 'timeout', ms: 0 }] },
  { policies: [{ type: 'timeout', ms: -5 }] },
  { policies: [{ type: 'timeout', ms: '5' }] },
  { policies: [{ type: 'timeout', ms: 5, mode: 'eager' }] },
  { policies: [{ type: 'timeout', ms: 5, extra: 1 }] },
  { policies: [{ type: 'retry', maxAttempts: 0 }] },
  { policies: [{ type: 'retry', maxAttempts: 1.5 }] },
  { policies: [{ type: 'retry', backoff: { kind: 'fibonacci' } }] },
  { policies: [{ type: 'retry', budget: { kind: 'token', ratio: 2 } }] },
  { policies: [{ type: 'fallback' }] },
  { policies: [{ type: 'fallbackChain', handlers: [] }] },
  { policies: [{ type: 'warp' }] },
  { policies: [{ type: 'loadShedder', cpuThreshold: 1 }] },
  { policies: [{ type: 'chaos', injectionRate: -0.1 }] },
  { policies: [{ type: 'cache' }] },
  { name: '', policies: [] },
  { policies: [], extra: true },
  { policies: [{ type: 'circuitBreaker', strategy: 'errorRatio', threshold: 1.5 }] },
  { policies: [{ type: 'circuitBreaker', strategy: 'sometimes' }] },
  { policies: [{ type: 'bulkhead', limit: 0 }] },
  { policies: [{ type: 'adaptiveLimiter', algorithm: 'bbr' }] },
  { policies: [{ type: 'adaptiveLimiter', algorithm: { kind: 'aimd', tolerance: 2 } }] },
  { policies: [{ type: 'adaptiveLimiter', initialLimit: 0 }] },
  { policies: [{ type: 'adaptiveLimiter', isOverload: 3 }] },
  { strategy: 'standard' },
  { strategy: 'standard', fallback: 'f', timeoutMs: 0 },
  { strategy: 'teleport' },
  { strategy: 'writeBehind' },
];

/** Rules JSON Schema cannot express: zod refuses these, JSON Schema accepts them (listed in docs/config.md). */
const zodOnly: unknown[] = [
  { policies: [{ type: 'retry', backoff: { kind: 'exponential', initial: 500, max: 100 } }] },
  { policies: [{ type: 'degrade', when: { decisionTree: { qpsHigh: 10, qpsMid: 20 } }, to: 'x' }] },
  { policies: [{ type: 'sreBreaker', k: 1.05 }] },
  { policies: [{ type: 'circuitBreaker', strategy: 'errorRatio', windowMs: 1_000, buckets: 3 }] },
  { strategy: 'slowCallShield', timeoutMs: 100, slowCallMs: 200 },
  { strategy: 'errorCountTrip' },
  { policies: [{ type: 'cache', ttlMs: 100, retainMs: 50 }] },
  { policies: [{ type: 'chaos', injectionRate: 0.5 }] },
  { policies: [{ type: 'chaos', fault: 'f', result: 'r' }] },
  { policies: [{ type: 'hedge', afterFailure: true, delayMs: 5 }] },
  { policies: [{ type: 'keyedBreaker' }] },
  { policies: [{ type: 'adaptiveLimiter', initialLimit: 300 }] },
  { policies: [{ type: 'adaptiveLimiter', windowMs: 2_000 }] },
  { policies: [{ type: 'adaptiveLimiter', algorithm: { kind: 'vegas', alpha: 6, beta: 3 } }] },
  { strategy: 'guardedRetry', breaker: { windowMs: 1_000, buckets: 3 } },
  { strategy: 'slowCallShield', breaker: { threshold: 2 } },
  { strategy: 'writeBehind', deliver: 'save', breaker: { windowMs: 1_000, buckets: 3 } },
  { policies: [{ type: 'adaptiveBreaker', windowMs: 1_000, buckets: 3 }] },
];

describe('the JSON Schema (breakwater/schema.json)', () => {
  it.each(good.map((d) => [JSON.stringify(d), d]))('accepts what zod accepts: %s', (_, doc) => {
    expect(PipelineConfigSchema.safeParse(doc).success).toBe(true);
    expect(validate(doc)).toBe(true);
  });
  it.each(bad.map((d) => [JSON.stringify(d), d]))('refuses what zod refuses: %s', (_, doc) => {
    expect(PipelineConfigSchema.safeParse(doc).success).toBe(false);
    expect(validate(doc)).toBe(false);
  });
  it.each(zodOnly.map((d) => [JSON.stringify(d), d]))('cross-field rules are zod-only: %s', (_, doc) => {
    expect(PipelineConfigSchema.safeParse(doc).success).toBe(false);
    expect(validate(doc)).toBe(true);
  });
});
