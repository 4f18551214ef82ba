import { staleFallback, type CachePolicy } from '../../policies/cache/index.js';
import type { PolicyConfig } from '../entries.js';
import type { ExecutionContext, Policy } from '../../lib/policy.js';
import type { StrategyConfig } from './shapes.js';

/** A strategy written out as policy entries, innermost first. */
export interface Expansion {
  /** The entries, each with the strategy option it comes from (for error paths). */
  readonly entries: readonly { readonly entry: PolicyConfig; readonly source: string }[];
  /** Handlers the expansion adds (constant answers, the stale-value reader). */
  readonly handlers: Record<string, unknown>;
  /** Called with the built policies, to wire handlers that need one of them (the snapshot cache). */
  readonly bind?: (policies: readonly Policy<unknown>[]) => void;
}

const STALE = '$stale';
const DEFAULT = '$default';

function retryEntry(o: { maxAttempts?: number; backoff?: unknown; retryOn?: string }, extra: Record<string, unknown> = {}): PolicyConfig {
  return {
    type: 'retry',
    ...(o.maxAttempts !== undefined ? { maxAttempts: o.maxAttempts } : {}),
    ...(o.backoff !== undefined ? { backoff: o.backoff } : {}),
    ...(o.retryOn !== undefined ? { handle: o.retryOn } : {}),
    ...extra,
  } as PolicyConfig;
}

/** The adaptive limiter entry a strategy's `concurrency` option asks for, if any. */
function limiterEntries(c: boolean | Record<string, unknown> | undefined): { entry: PolicyConfig; source: string }[] {
  if (c === undefined || c === false) return [];
  return [{ entry: { type: 'adaptiveLimiter', ...(c === true ? {} : c) } as PolicyConfig, source: 'concurrency' }];
}

/** A cache that records the last good value per key, and a fallback handler that answers from it. */
function snapshot(ttlMs: number, index: number): Pick<Expansion, 'handlers' | 'bind'> & { entry: PolicyConfig } {
  const holder: { cache?: CachePolicy } = {};
  return {
    entry: { type: 'cache', ttlMs, name: 'snapshot' },
    handlers: { [STALE]: (error: unknown, ctx: ExecutionContext) => staleFallback(holder.cache!)(error, ctx) },
    bind: (policies) => {
      holder.cache = policies[index] as CachePolicy;
    },
  };
}

/**
 * Writes a strategy out as its policy entries (strategies.md: chains are
 * innermost first). The same entries drive `strategies.<name>()`,
 * `fromConfig({ strategy })` and hot reload.
 */
export function expand(s: StrategyConfig): Expansion {
  switch (s.strategy) {
    case 'failFast':
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.timeoutMs }, source: 'timeoutMs' },
          { entry: { type: 'adaptiveBreaker', ...s.breaker }, source: 'breaker' },
        ],
        handlers: {},
      };
    case 'boundedRetry':
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.attemptTimeoutMs, name: 'attemptTimeout' }, source: 'attemptTimeoutMs' },
          { entry: retryEntry(s), source: 'maxAttempts' },
          { entry: { type: 'timeout', ms: s.totalTimeoutMs, name: 'totalTimeout' }, source: 'totalTimeoutMs' },
        ],
        handlers: {},
      };
    case 'budgetedRetry':
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.timeoutMs }, source: 'timeoutMs' },
          { entry: retryEntry(s, { budget: s.budget }), source: 'budget' },
        ],
        handlers: {},
      };
    case 'standard':
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.timeoutMs }, source: 'timeoutMs' },
          ...limiterEntries(s.concurrency),
          { entry: retryEntry(s, s.budget === false ? {} : { budget: s.budget }), source: 'maxAttempts' },
          { entry: { type: 'adaptiveBreaker', ...s.breaker }, source: 'breaker' },
          { entry: { type: 'fallback', handler: s.fallback }, source: 'fallback' },
        ],
        handlers: {},
      };
    case 'guardedRetry':
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.timeoutMs }, source: 'timeoutMs' },
          { entry: { type: 'circuitBreaker', strategy: 'errorRatio', ...s.breaker } as PolicyConfig, source: 'breaker' },
          { entry: retryEntry(s), source: 'maxAttempts' },
        ],
        handlers: {},
      };
    case 'slowCallShield': {
      const snap = snapshot(s.cacheTtlMs, 1);
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.timeoutMs }, source: 'timeoutMs' },
          { entry: snap.entry, source: 'cacheTtlMs' },
          { entry: { type: 'circuitBreaker', strategy: 'slowCallRatio', slowCallMs: s.slowCallMs, ...s.breaker } as PolicyConfig, source: 'breaker' },
          { entry: { type: 'fallbackChain', handlers: s.fallback ? [STALE, s.fallback] : [STALE] }, source: 'fallback' },
        ],
        handlers: snap.handlers,
        bind: snap.bind,
      };
    }
    case 'errorCountTrip':
      return {
        entries: [
          { entry: { type: 'circuitBreaker', strategy: 'consecutiveFailures', threshold: s.threshold, ...s.breaker } as PolicyConfig, source: 'breaker' },
          { entry: { type: 'fallback', handler: s.fallback ?? DEFAULT }, source: 'fallback' },
        ],
        handlers: s.fallback ? {} : { [DEFAULT]: () => s.defaultValue },
      };
    case 'idempotentRetry':
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.timeoutMs }, source: 'timeoutMs' },
          { entry: retryEntry(s), source: 'maxAttempts' },
          { entry: { type: 'idempotent', ...s.idempotent }, source: 'idempotent' },
        ],
        handlers: {},
      };
    case 'fallbackChain': {
      const snap = snapshot(s.cacheTtlMs, 1);
      const last = s.defaultValue === undefined ? [] : [DEFAULT];
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.timeoutMs }, source: 'timeoutMs' },
          { entry: snap.entry, source: 'cacheTtlMs' },
          { entry: { type: 'adaptiveBreaker', ...s.breaker }, source: 'breaker' },
          { entry: { type: 'fallbackChain', handlers: [STALE, ...s.fallbacks, ...last] }, source: 'fallbacks' },
        ],
        handlers: { ...snap.handlers, ...(s.defaultValue === undefined ? {} : { [DEFAULT]: () => s.defaultValue }) },
        bind: snap.bind,
      };
    }
    case 'layeredBreakers':
      return {
        entries: [
          { entry: { type: 'timeout', ms: s.timeoutMs }, source: 'timeoutMs' },
          { entry: { type: 'keyedBreaker', metaKey: s.methodKey, name: 'methodBreakers', ...(s.method ? { defaults: s.method } : {}) }, source: 'method' },
          { entry: { type: 'keyedBreaker', metaKey: s.serviceKey, name: 'serviceBreakers', ...(s.service ? { defaults: s.service } : {}) }, source: 'service' },
          { entry: { type: 'fallback', handler: s.fallback }, source: 'fallback' },
        ],
        handlers: {},
      };
    case 'adaptiveDegrade': {
      const guard: PolicyConfig = s.rateLimiter ? { type: 'rateLimiter', algorithm: s.rateLimiter.algorithm } : { type: 'bulkhead', limit: 100, ...s.bulkhead };
      return {
        entries: [
          { entry: guard, source: s.rateLimiter ? 'rateLimiter' : 'bulkhead' },
          {
            entry: { type: 'degrade', when: { decisionTree: s.thresholds ?? {} }, to: s.fallback, ...(s.signals ? { signals: s.signals } : {}) },
            source: 'thresholds',
          },
          { entry: { type: 'fallback', handler: s.fallback }, source: 'fallback' },
        ],
        handlers: {},
      };
    }
  }
}
