import { describe, expect, it } from 'vitest';
import {
  cache,
  constant,
  decisionTree,
  policy,
  staleFallback,
  strategies,
  tokenBudget,
  type ExecutionContext,
  type Policy,
} from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';

const START = 1_700_000_000_000;

type Kind = 'ok' | 'slow' | 'fail' | 'hang';

/** One scripted run: 300 calls, 10 ms apart, against a dependency whose behaviour follows a seeded script. */
async function run(make: (clock: TestClock, random: () => number) => Policy<unknown>, hangs: boolean, keys: number, seed = 11) {
  const clock = new TestClock(START);
  const p = make(clock, seededRandom(seed));
  const script = seededRandom(seed + 1);
  const kinds: Kind[] = Array.from({ length: 400 }, (_, i) => {
    // a healthy start, a sick middle, a healthy end
    const sick = i >= 100 && i < 220;
    const r = script();
    if (sick) return r < 0.6 ? 'fail' : r < 0.8 ? (hangs ? 'hang' : 'fail') : 'slow';
    return r < 0.9 ? 'ok' : r < 0.95 ? 'slow' : 'fail';
  });
  let calls = 0;
  const op = (ctx: ExecutionContext) => {
    const kind = kinds[calls++ % kinds.length]!;
    if (kind === 'fail') return Promise.reject(new Error('dependency failed'));
    if (kind === 'hang') {
      return new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true }));
    }
    return new Promise((resolve) => clock.setTimeout(() => resolve(`v${calls}`), kind === 'slow' ? 150 : 5));
  };
  const results: string[] = [];
  const pending: Promise<void>[] = [];
  for (let i = 0; i < 300; i++) {
    const meta = { method: `m${i % 3}`, service: 'svc' };
    pending.push(
      p.execute(op, { key: `k${i % keys}`, meta }).then(
        (v) => void (results[i] = `ok:${String(v)}@${clock.now()}`),
        (e: unknown) => void (results[i] = `err:${(e as Error).name}:${(e as Error).message}@${clock.now()}`),
      ),
    );
    await clock.advance(10);
  }
  await clock.advance(60_000);
  await Promise.all(pending);
  return { results, calls, pendingTimers: clock.pendingTimers };
}

/** A chain with no timeout must not meet an operation that never settles. */
async function same(a: Parameters<typeof run>[0], b: Parameters<typeof run>[0], hangs = true, keys = 7) {
  const x = await run(a, hangs, keys);
  const y = await run(b, hangs, keys);
  expect(x.results).toHaveLength(300);
  expect(y).toEqual(x);
  // the dependency was really exercised through its sick period
  expect(x.calls).toBeGreaterThanOrEqual(100);
  return x;
}

const backoff = { kind: 'constant' as const, ms: 10 };

describe('each strategy equals its written-out builder chain', () => {
  it('failFast', async () => {
    await same(
      (clock, random) => strategies.failFast({ timeoutMs: 100, clock, random }),
      (clock, random) => policy({ clock, random }).timeout(100).breaker(),
    );
  });

  it('boundedRetry', async () => {
    await same(
      (clock, random) => strategies.boundedRetry({ attemptTimeoutMs: 50, totalTimeoutMs: 200, maxAttempts: 3, backoff, clock, random }),
      (clock, random) =>
        policy({ clock, random })
          .timeout({ ms: 50, name: 'attemptTimeout' })
          .retry({ maxAttempts: 3, backoff: constant(10) })
          .timeout({ ms: 200, name: 'totalTimeout' }),
    );
  });

  it('budgetedRetry', async () => {
    await same(
      (clock, random) => strategies.budgetedRetry({ timeoutMs: 50, maxAttempts: 3, backoff, clock, random }),
      (clock, random) =>
        policy({ clock, random })
          .timeout(50)
          .retry({ maxAttempts: 3, backoff: constant(10), budget: tokenBudget({ ratio: 0.1, minPerSecond: 10, windowMs: 10_000 }) }),
    );
  });

  it('standard', async () => {
    const x = await same(
      (clock, random) => strategies.standard({ timeoutMs: 50, maxAttempts: 2, backoff, fallback: () => 'fallback', clock, random }),
      (clock, random) =>
        policy({ clock, random })
          .timeout(50)
          .retry({ maxAttempts: 2, backoff: constant(10) })
          .breaker()
          .fallback(() => 'fallback'),
    );
    expect(x.results.some((r) => r.startsWith('ok:fallback'))).toBe(true);
  });

  it('guardedRetry', async () => {
    await same(
      (clock, random) => strategies.guardedRetry({ timeoutMs: 50, breaker: { minRequests: 10 }, maxAttempts: 2, backoff, clock, random }),
      (clock, random) =>
        policy({ clock, random })
          .timeout(50)
          .circuitBreaker({ strategy: 'errorRatio', minRequests: 10 })
          .retry({ maxAttempts: 2, backoff: constant(10) }),
    );
  });

  it('slowCallShield', async () => {
    await same(
      (clock, random) => strategies.slowCallShield({ timeoutMs: 200, slowCallMs: 100, breaker: { minRequests: 10 }, clock, random }),
      (clock, random) => {
        const snapshot = cache({ ttlMs: 1, name: 'snapshot', clock });
        return policy({ clock, random })
          .timeout(200)
          .use(snapshot)
          .circuitBreaker({ strategy: 'slowCallRatio', slowCallMs: 100, minRequests: 10 })
          .fallbackChain(staleFallback(snapshot));
      },
    );
  });

  it('errorCountTrip', async () => {
    await same(
      (clock, random) => strategies.errorCountTrip({ defaultValue: 'default', breaker: { openMs: 200 }, clock, random }),
      (clock, random) =>
        policy({ clock, random })
          .circuitBreaker({ strategy: 'consecutiveFailures', threshold: 5, openMs: 200 })
          .fallback(() => 'default'),
      false,
    );
  });

  it('idempotentRetry', async () => {
    await same(
      (clock, random) => strategies.idempotentRetry({ timeoutMs: 50, maxAttempts: 2, backoff, clock, random }),
      (clock, random) => policy({ clock, random }).timeout(50).retry({ maxAttempts: 2, backoff: constant(10) }).idempotent({}),
      true,
      250, // mostly distinct keys, some repeated: repeats are served from the store
    );
  });

  it('fallbackChain', async () => {
    await same(
      (clock, random) => strategies.fallbackChain({ timeoutMs: 50, fallbacks: [() => Promise.reject(new Error('replica down'))], defaultValue: 'default', clock, random }),
      (clock, random) => {
        const snapshot = cache({ ttlMs: 1, name: 'snapshot', clock });
        return policy({ clock, random })
          .timeout(50)
          .use(snapshot)
          .breaker()
          .fallbackChain(staleFallback(snapshot), () => Promise.reject(new Error('replica down')), () => 'default');
      },
    );
  });

  it('layeredBreakers', async () => {
    await same(
      (clock, random) => strategies.layeredBreakers({ timeoutMs: 50, fallback: () => 'fallback', clock, random }),
      (clock, random) =>
        policy({ clock, random })
          .timeout(50)
          .keyedBreaker((ctx) => ctx.meta.method ?? '', { name: 'methodBreakers' })
          .keyedBreaker((ctx) => ctx.meta.service ?? '', { name: 'serviceBreakers' })
          .fallback(() => 'fallback'),
    );
  });

  it('adaptiveDegrade', async () => {
    // downstream health flips every half second: degrade half of the time
    const signals = (clock: TestClock) => ({ qps: 6_000, cpu: 0.2, health: () => ((clock.now() - START) % 1_000 < 500 ? 1 : 0.5) });
    await same(
      (clock, random) => strategies.adaptiveDegrade({ bulkhead: { limit: 5, queue: 5 }, signals: signals(clock), fallback: () => 'degraded', clock, random }),
      (clock, random) =>
        policy({ clock, random })
          .bulkhead({ limit: 5, queue: 5 })
          .degrade({ when: decisionTree(), signals: signals(clock), to: () => 'degraded' })
          .fallback(() => 'degraded'),
      false,
    );
  });
});
