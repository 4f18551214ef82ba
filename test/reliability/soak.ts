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
  Pipeline,
} from '../../api/index.js';

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

/** A pipeline of the soak, and what it answers in place of the operation's outcome. */
export interface SoakPipeline {
  /** Its policies' names, innermost first, or the strategy's name. */
  readonly label: string;
  readonly policy: Policy<unknown>;
  /** What it answers when the operation fails (its fallback's value); absent, it rejects with what the operation threw. */
  readonly onFailure?: string;
  /** What it answers when one of its own timeouts ends a call that hangs; absent, it rejects with a `TimeoutError`. */
  readonly onTimeout?: string;
  /** With `onTimeout`: when (ms after the call, at `ms` 1) its own timeouts end a call that hangs. */
  readonly ownTimeoutMs?: number;
}

function entry(policy: unknown, answers: { onFailure?: string; onTimeout?: string; ownTimeoutMs?: number } = {}): SoakPipeline {
  const p = policy as Policy<unknown>;
  const label = p instanceof Pipeline && p.name === 'pipeline' ? p.policies.map((x) => x.name).join(' → ') : p.name;
  return { label, policy: p, ...answers };
}

/**
 * One pipeline per policy family, each bounded by an aggressive timeout so
 * that an operation that ignores its signal still ends. Together they go
 * through every policy: timeout, retry (with token and SLO budgets),
 * fallback, fallbackChain, sreBreaker, circuitBreaker, keyedBreaker,
 * bulkhead, rateLimiter (three algorithms), idempotent (memory store),
 * hedge, chaos, cache, degrade, loadShedder.
 */
export function pipelines(clock: Clock, random: () => number, ms = 1): SoakPipeline[] {
  const env = { clock, random };
  const t = (n: number) => n * ms;
  const keyOf = (ctx: ExecutionContext) => ctx.meta?.tenant ?? 'anonymous';
  const both = (value: string, ownTimeoutMs: number) => ({ onFailure: value, onTimeout: value, ownTimeoutMs });
  return [
    // three attempts of 50 ms, 5 ms apart: a hang ends at 160 ms
    entry(policy(env).timeout(t(50)).retry({ maxAttempts: 3, backoff: constant(t(5)) }).fallback(() => 'fallback'), both('fallback', 160)),
    entry(policy(env).retry({ maxAttempts: 2, backoff: constant(t(5)), budget: tokenBudget() }).timeout(t(80))),
    entry(policy(env).timeout({ ms: t(30), mode: 'cooperative' }).retry({ maxAttempts: 2, budget: sloBudget() }).timeout(t(200))),
    // the chain sits inside the timeout: it answers failures, not the timeout
    entry(policy(env).fallbackChain(() => { throw new Error('first handler fails'); }, () => 'second').sreBreaker({ windowMs: t(1_000), buckets: 10 }).timeout(t(60)), { onFailure: 'second' }),
    entry(policy(env).circuitBreaker({ strategy: 'errorRatio', minRequests: 10, openMs: t(100), windowMs: t(1_000), buckets: 10 }).bulkhead({ limit: 20, queue: 20 }).timeout(t(60))),
    entry(policy(env).circuitBreaker({ strategy: 'slowCallRatio', slowCallMs: t(20), minRequests: 10, openMs: t(100), windowMs: t(1_000), buckets: 10, probes: 2 }).timeout(t(60))),
    entry(policy(env).keyedBreaker(keyOf, { defaults: { strategy: 'consecutiveFailures', threshold: 3, openMs: t(100) }, idleMs: t(2_000) }).rateLimiter({ algorithm: { kind: 'tokenBucket', rate: 200 / ms, burst: 50 } }).timeout(t(60))),
    entry(policy(env).rateLimiter({ algorithm: { kind: 'slidingWindow', limit: 50, windowMs: t(100) } }).retry({ maxAttempts: 2, backoff: constant(t(3)) }).timeout(t(60))),
    entry(policy(env).rateLimiter({ algorithm: { kind: 'leakyBucket', rate: 300 / ms, capacity: 20 } }).timeout(t(60))),
    entry(policy(env).idempotent({ store: memoryStore({ clock }), ttlMs: t(300), leaseMs: t(100), pollMs: t(10) }).retry({ maxAttempts: 2, backoff: constant(t(2)) }).timeout(t(60))),
    entry(policy(env).hedge({ delayMs: t(10), maxHedged: 2 }).timeout(t(60))),
    entry(policy(env).chaos({ fault: new Error('chaos'), injectionRate: 0.2, random }).cache({ ttlMs: t(50), store: memoryCacheStore({ clock }), key: (ctx) => ctx.key }).timeout(t(60))),
    entry(policy(env).chaos({ latency: t(15), injectionRate: 0.3, random }).timeout(t(60))),
    entry(policy(env).degrade({ when: () => random() < 0.1, to: () => 'degraded' }).loadShedder({ cpu: () => random(), cpuThreshold: 0.8, windowMs: t(1_000), buckets: 10, coolOffMs: t(50) }).timeout(t(60))),
    // and every strategy (config/strategies), each on the same clock and random source
    entry(strategies.failFast({ timeoutMs: t(50), ...env })),
    entry(strategies.boundedRetry({ attemptTimeoutMs: t(30), totalTimeoutMs: t(80), maxAttempts: 2, backoff: { kind: 'constant' as const, ms: t(3) }, ...env })),
    entry(strategies.budgetedRetry({ timeoutMs: t(50), maxAttempts: 3, backoff: { kind: 'constant' as const, ms: t(3) }, ...env })),
    entry(strategies.standard({ timeoutMs: t(50), maxAttempts: 2, backoff: { kind: 'constant' as const, ms: t(3) }, fallback: () => 'fallback', ...env }), both('fallback', 103)),
    entry(strategies.guardedRetry({ timeoutMs: t(50), breaker: { minRequests: 10 }, maxAttempts: 2, backoff: { kind: 'constant' as const, ms: t(3) }, ...env })),
    // its stale-snapshot fallback has nothing to answer with on a first call: it rethrows
    entry(strategies.slowCallShield({ timeoutMs: t(60), slowCallMs: t(20), breaker: { minRequests: 10 }, ...env })),
    // these two bound no call by themselves: an outer timeout does, as in a service (so their fallbacks answer failures only)
    entry(policy(env).use(strategies.errorCountTrip({ defaultValue: 'default', breaker: { openMs: t(100) }, ...env })).timeout(t(100)), { onFailure: 'default' }),
    entry(strategies.idempotentRetry({ idempotent: { leaseMs: t(100), pollMs: t(10), ttlMs: t(300) }, timeoutMs: t(50), maxAttempts: 2, backoff: { kind: 'constant' as const, ms: t(3) }, ...env })),
    entry(strategies.fallbackChain({ timeoutMs: t(50), fallbacks: [() => Promise.reject(new Error('replica down'))], defaultValue: 'default', ...env }), both('default', 50)),
    entry(strategies.layeredBreakers({ timeoutMs: t(50), fallback: () => 'fallback', ...env }), both('fallback', 50)),
    entry(policy(env).use(strategies.adaptiveDegrade({ bulkhead: { limit: 20, queue: 20 }, signals: { qps: () => random() * 8_000, cpu: () => random() }, fallback: () => 'degraded', ...env })).timeout(t(100)), { onFailure: 'degraded' }),
  ];
}

/** What a soak run counted. */
export interface SoakResult {
  /** Calls made through the pipelines. */
  calls: number;
  /** Of those, the calls that settled (fulfilled or rejected). */
  settled: number;
  ok: number;
  failed: number;
  /** Writes made through writeBehind, and how many of them settled. */
  writes: number;
  writesSettled: number;
  /** Calls (and writes) still pending when their batch was over, by pipeline: none in a healthy run. */
  hung: Record<string, number>;
  /** Caller signals that still had an `abort` listener afterwards. */
  listenersLeft: number;
}

/**
 * Runs `calls` calls in batches of `batch` through {@link pipelines}, with a
 * seeded mix of kinds, per-call timeouts and caller aborts. `advance(ms)`
 * moves time (TestClock) or waits (system clock) past every bound of the
 * pipelines; calls still pending then get `patience(all)` more (it resolves
 * when `all` of the batch has settled or it gives up; by default one
 * event-loop turn, enough on virtual time), then count as hung (by
 * pipeline) and are left behind: a hung call is a reported finding, not a
 * test stalled until its timeout. Caller signals are checked for
 * leftover listeners in each batch, then dropped, so the heap measures the
 * library, not the test. `checkpoint(done)` runs after every
 * `checkpointEvery` calls (a heap reading after letting time pass, say).
 */
export async function soak(options: {
  calls: number;
  clock: Clock;
  random: () => number;
  advance: (ms: number) => Promise<void>;
  patience?: (all: Promise<unknown>) => Promise<unknown>;
  batch?: number;
  ms?: number;
  checkpointEvery?: number;
  checkpoint?: (done: number) => Promise<void>;
}): Promise<SoakResult> {
  const { calls, clock, random, advance, batch = 100, ms = 1, checkpointEvery = Infinity, checkpoint } = options;
  const patience = options.patience ?? ((all: Promise<unknown>) => Promise.race([all, new Promise<void>((r) => setImmediate(r))]));
  const chains = pipelines(clock, random, ms);
  // writeBehind (a writer, not a pipeline): every 10th call also writes through it, delivering with the same operation
  let writeKind = 0;
  const writer = strategies.writeBehind<number>({ deliver: (_, ctx) => operation(writeKind, clock)(ctx), keyOf: (n) => `w${(n / 10) % 5}`, replayIntervalMs: 50 * ms, clock, random });
  const result: SoakResult = { calls, settled: 0, ok: 0, failed: 0, writes: 0, writesSettled: 0, hung: {}, listenersLeft: 0 };
  const ok = () => void (result.settled++, result.ok++);
  const failed = () => void (result.settled++, result.failed++);
  const written = () => void result.writesSettled++;
  for (let done = 0; done < calls; done += batch) {
    const signals: AbortSignal[] = [];
    const pending: { label: string; settled: boolean }[] = [];
    const all: Promise<void>[] = [];
    const track = (label: string, p: Promise<unknown>, onOk: () => void, onError: () => void) => {
      const t = { label, settled: false };
      pending.push(t);
      all.push(p.then(onOk, onError).then(() => void (t.settled = true)));
    };
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
      track(chain.label, chain.policy.execute(operation(kind, clock), options), ok, failed);
      if ((done + i) % 10 === 0) {
        writeKind = kind === 4 ? 2 : kind; // a delivery that ignores its signal would never end: writeBehind has no deadline of its own
        result.writes++;
        track('writeBehind', writer.write(done + i, { signal: ac.signal }), written, written);
      }
      if (random() < 0.2) clock.setTimeout(() => ac.abort(new Error('caller')), Math.floor(random() * 100 * ms));
    }
    await advance(400 * ms);
    if (pending.some((t) => !t.settled)) await patience(Promise.all(all));
    for (const t of pending) if (!t.settled) result.hung[t.label] = (result.hung[t.label] ?? 0) + 1;
    for (const s of signals) if (getEventListeners(s, 'abort').length > 0) result.listenersLeft++;
    const reached = Math.min(done + batch, calls);
    if (checkpoint !== undefined && Math.floor(reached / checkpointEvery) > Math.floor(done / checkpointEvery)) {
      // deliveries succeed from here to the next batch, so the queue drains while the checkpoint lets time pass:
      // writes queued behind a failing delivery are the writer's state, not a leak
      writeKind = 0;
      await checkpoint(reached);
    }
  }
  writer.close();
  return result;
}
