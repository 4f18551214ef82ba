import { getEventListeners } from 'node:events';
import {
  constant,
  memoryCacheStore,
  memoryStore,
  policy,
  sloBudget,
  strategies,
  tokenBudget,
  type Clock,
  type ExecutionContext,
  type Policy,
} from '../../lib/index.js';

/** Outcome kinds of the soak's operations, drawn from a seeded random source. */
export const KINDS = ['ok', 'slow', 'fail', 'hangCooperative', 'hangDeaf', 'throwSync', 'throwNonError'] as const;

/** An operation of kind `kind` on `clock`: succeeds, is slow, fails, hangs (honouring the signal or not), throws. */
export function operation(kind: number, clock: Clock) {
  return (ctx: ExecutionContext): Promise<string> | string => {
    switch (kind) {
      case 0:
        return 'ok';
      case 1:
        return new Promise((resolve) => clock.setTimeout(() => resolve('slow ok'), 10 + (kind % 7) * 5));
      case 2:
        return Promise.reject(new Error('fail'));
      case 3:
        return new Promise((_, reject) => {
          const signal = ctx.signal;
          const onAbort = () => reject(signal.reason);
          // a well-behaved operation: it also finishes on its own and removes its listener
          const t = clock.setTimeout(() => {
            signal.removeEventListener('abort', onAbort);
            reject(new Error('gave up'));
          }, 120);
          signal.addEventListener('abort', () => (clock.clearTimeout(t), onAbort()), { once: true });
        });
      case 4:
        return new Promise(() => {}); // hangs and ignores the signal: only a deadline ends it
      case 5:
        throw new Error('sync');
      default:
        return Promise.reject('a string, not an Error');
    }
  };
}

/**
 * One pipeline per policy family, each bounded by an aggressive timeout so
 * that an operation that ignores its signal still ends. Together they go
 * through every policy: timeout, retry (with token and SLO budgets),
 * fallback, fallbackChain, sreBreaker, circuitBreaker, keyedBreaker,
 * bulkhead, rateLimiter (three algorithms), idempotent (memory store),
 * hedge, chaos, cache, degrade, loadShedder.
 */
export function pipelines(clock: Clock, random: () => number, ms = 1): Policy<unknown>[] {
  const env = { clock, random };
  const t = (n: number) => n * ms;
  const keyOf = (ctx: ExecutionContext) => ctx.meta?.tenant ?? 'anonymous';
  return [
    policy(env).timeout(t(50)).retry({ maxAttempts: 3, backoff: constant(t(5)) }).fallback(() => 'fallback'),
    policy(env).retry({ maxAttempts: 2, backoff: constant(t(5)), budget: tokenBudget() }).timeout(t(80)),
    policy(env).timeout({ ms: t(30), mode: 'cooperative' }).retry({ maxAttempts: 2, budget: sloBudget() }).timeout(t(200)),
    policy(env).fallbackChain(() => { throw new Error('first handler fails'); }, () => 'second').sreBreaker({ windowMs: t(1_000), buckets: 10 }).timeout(t(60)),
    policy(env).circuitBreaker({ strategy: 'errorRatio', minRequests: 10, openMs: t(100), windowMs: t(1_000), buckets: 10 }).bulkhead({ limit: 20, queue: 20 }).timeout(t(60)),
    policy(env).circuitBreaker({ strategy: 'slowCallRatio', slowCallMs: t(20), minRequests: 10, openMs: t(100), windowMs: t(1_000), buckets: 10, probes: 2 }).timeout(t(60)),
    policy(env).keyedBreaker(keyOf, { defaults: { strategy: 'consecutiveFailures', threshold: 3, openMs: t(100) }, idleMs: t(2_000) }).rateLimiter({ algorithm: { kind: 'tokenBucket', rate: 200 / ms, burst: 50 } }).timeout(t(60)),
    policy(env).rateLimiter({ algorithm: { kind: 'slidingWindow', limit: 50, windowMs: t(100) } }).retry({ maxAttempts: 2, backoff: constant(t(3)) }).timeout(t(60)),
    policy(env).rateLimiter({ algorithm: { kind: 'leakyBucket', rate: 300 / ms, capacity: 20 } }).timeout(t(60)),
    policy(env).idempotent({ store: memoryStore({ clock }), ttlMs: t(300), leaseMs: t(100), pollMs: t(10) }).retry({ maxAttempts: 2, backoff: constant(t(2)) }).timeout(t(60)),
    policy(env).hedge({ delayMs: t(10), maxHedged: 2 }).timeout(t(60)),
    policy(env).chaos({ fault: new Error('chaos'), injectionRate: 0.2, random }).cache({ ttlMs: t(50), store: memoryCacheStore({ clock }), key: (ctx) => ctx.key }).timeout(t(60)),
    policy(env).chaos({ latency: t(15), injectionRate: 0.3, random }).timeout(t(60)),
    policy(env).degrade({ when: () => random() < 0.1, to: () => 'degraded' }).loadShedder({ cpu: () => random(), cpuThreshold: 0.8, windowMs: t(1_000), buckets: 10, coolOffMs: t(50) }).timeout(t(60)),
    // and every strategy (lib/strategies), each on the same clock and random source
    strategies.failFast({ timeoutMs: t(50), ...env }),
    strategies.boundedRetry({ attemptTimeoutMs: t(30), totalTimeoutMs: t(80), maxAttempts: 2, backoff: { kind: 'constant' as const, ms: t(3) }, ...env }),
    strategies.budgetedRetry({ timeoutMs: t(50), maxAttempts: 3, backoff: { kind: 'constant' as const, ms: t(3) }, ...env }),
    strategies.standard({ timeoutMs: t(50), maxAttempts: 2, backoff: { kind: 'constant' as const, ms: t(3) }, fallback: () => 'fallback', ...env }),
    strategies.guardedRetry({ timeoutMs: t(50), breaker: { minRequests: 10 }, maxAttempts: 2, backoff: { kind: 'constant' as const, ms: t(3) }, ...env }),
    strategies.slowCallShield({ timeoutMs: t(60), slowCallMs: t(20), breaker: { minRequests: 10 }, ...env }),
    // these two bound no call by themselves: an outer timeout does, as in a service
    policy(env).use(strategies.errorCountTrip({ defaultValue: 'default', breaker: { openMs: t(100) }, ...env })).timeout(t(100)),
    strategies.idempotentRetry({ idempotent: { leaseMs: t(100), pollMs: t(10), ttlMs: t(300) }, timeoutMs: t(50), maxAttempts: 2, backoff: { kind: 'constant' as const, ms: t(3) }, ...env }),
    strategies.fallbackChain({ timeoutMs: t(50), fallbacks: [() => Promise.reject(new Error('replica down'))], defaultValue: 'default', ...env }),
    strategies.layeredBreakers({ timeoutMs: t(50), fallback: () => 'fallback', ...env }),
    policy(env).use(strategies.adaptiveDegrade({ bulkhead: { limit: 20, queue: 20 }, signals: { qps: () => random() * 8_000, cpu: () => random() }, fallback: () => 'degraded', ...env })).timeout(t(100)),
  ] as unknown as Policy<unknown>[];
}

/** What a soak run counted. */
export interface SoakResult {
  calls: number;
  settled: number;
  ok: number;
  failed: number;
  /** Caller signals that still had an `abort` listener afterwards. */
  listenersLeft: number;
}

/**
 * Runs `calls` calls in batches of `batch` through {@link pipelines}, with a
 * seeded mix of kinds, per-call timeouts and caller aborts. `advance(ms)`
 * moves time (TestClock) or waits (system clock). Caller signals are checked
 * for leftover listeners in each batch, then dropped, so the heap measures
 * the library, not the test.
 */
export async function soak(options: { calls: number; clock: Clock; random: () => number; advance: (ms: number) => Promise<void>; batch?: number; ms?: number }): Promise<SoakResult> {
  const { calls, clock, random, advance, batch = 100, ms = 1 } = options;
  const chains = pipelines(clock, random, ms);
  // writeBehind (a writer, not a pipeline): every 10th call also writes through it, delivering with the same operation
  let writeKind = 0;
  const writer = strategies.writeBehind<number>({ deliver: (_, ctx) => operation(writeKind, clock)(ctx), keyOf: (n) => `w${n % 5}`, replayIntervalMs: 50 * ms, clock, random });
  const result: SoakResult = { calls, settled: 0, ok: 0, failed: 0, listenersLeft: 0 };
  const ok = () => void result.ok++;
  const failed = () => void result.failed++;
  for (let done = 0; done < calls; done += batch) {
    const signals: AbortSignal[] = [];
    const pending: Promise<unknown>[] = [];
    for (let i = 0; i < batch && done + i < calls; i++) {
      const kind = Math.floor(random() * KINDS.length);
      const chain = chains[(done + i) % chains.length]!;
      const ac = new AbortController();
      signals.push(ac.signal);
      const options = {
        signal: ac.signal,
        key: `k${Math.floor(random() * 40)}`,
        meta: { tenant: `t${Math.floor(random() * 8)}` },
        ...(random() < 0.3 ? { timeout: 40 * ms } : {}),
      };
      pending.push(chain.execute(operation(kind, clock), options).then(ok, failed));
      if ((done + i) % 10 === 0) {
        writeKind = kind === 4 ? 2 : kind; // a delivery that ignores its signal would never end: writeBehind has no deadline of its own
        pending.push(writer.write(done + i, { signal: ac.signal }).then(ok, failed));
      }
      if (random() < 0.2) clock.setTimeout(() => ac.abort(new Error('caller')), Math.floor(random() * 100 * ms));
    }
    await advance(400 * ms);
    await Promise.all(pending);
    result.settled += pending.length - Math.ceil(Math.min(batch, calls - done) / 10);
    for (const s of signals) if (getEventListeners(s, 'abort').length > 0) result.listenersLeft++;
  }
  writer.close();
  return result;
}
