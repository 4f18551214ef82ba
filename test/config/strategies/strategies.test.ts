import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { AdaptiveLimiterPolicy, ConfigError, constant, exponential, RetryPolicy, strategies, TimeoutPolicy, tokenBudget, type RetryBudget } from '../../../api/index.js';
import { fromConfig, PipelineConfigSchema } from '../../../api/config.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { collect } from '../../helpers/breakers.js';
import { track } from '../../helpers/track.js';

const START = 1_700_000_000_000;
const T0 = START;

const never = () => new Promise<never>(() => {});

/** Runs a call that always fails and returns the clock times (from START) of its attempts. */
async function attempts(p: { execute: (op: () => Promise<never>, o?: { key: string }) => Promise<unknown> }, clock: TestClock): Promise<number[]> {
  const at: number[] = [];
  const r = p
    .execute(
      () => {
        at.push(clock.now() - START);
        return Promise.reject(new Error('down'));
      },
      { key: 'k' },
    )
    .catch(() => undefined);
  await clock.advance(1_000);
  await r;
  return at;
}

describe('strategies (the code form)', () => {
  const withRetry = {
    boundedRetry: (o: object) => strategies.boundedRetry(o),
    budgetedRetry: (o: object) => strategies.budgetedRetry(o),
    standard: (o: object) => strategies.standard({ ...o, fallback: () => null }),
    guardedRetry: (o: object) => strategies.guardedRetry(o),
    idempotentRetry: (o: object) => strategies.idempotentRetry(o),
  };

  it.each(Object.entries(withRetry))('%s takes a backoff object, and a backoff function, as retry() does', async (_, make) => {
    let clock = new TestClock(START);
    expect(await attempts(make({ clock, maxAttempts: 3, backoff: constant(30) }), clock)).toEqual([0, 30, 60]);
    clock = new TestClock(START);
    expect(await attempts(make({ clock, maxAttempts: 3, backoff: exponential({ initial: 10, jitter: 'none' }) }), clock)).toEqual([0, 10, 30]);
    clock = new TestClock(START);
    expect(await attempts(make({ clock, maxAttempts: 3, backoff: (retry: number) => retry * 7 }), clock)).toEqual([0, 7, 21]);
    // the data form still works
    clock = new TestClock(START);
    expect(await attempts(make({ clock, maxAttempts: 2, backoff: { kind: 'constant', ms: 5 } }), clock)).toEqual([0, 5]);
  });

  it('budgetedRetry uses the budget object itself: one budget shared by two pipelines is one budget', async () => {
    const clock = new TestClock(START);
    // one retry per 10 s between them, whatever the traffic
    const shared = tokenBudget({ ratio: 0, minPerSecond: 0.1, windowMs: 10_000 });
    const a = strategies.budgetedRetry({ clock, budget: shared, backoff: constant(0) });
    const b = strategies.budgetedRetry({ clock, budget: shared, backoff: constant(0) });
    expect(await attempts(a, clock)).toEqual([0, 0]);
    const later = clock.now() - START;
    expect(await attempts(b, clock)).toEqual([later]);

    const seen: string[] = [];
    const spy: RetryBudget = {
      onCall: () => void seen.push('call'),
      tryRetry: () => {
        seen.push('retry?');
        return false;
      },
    };
    await attempts(strategies.budgetedRetry({ clock, budget: spy }), clock);
    expect(seen).toEqual(['call', 'retry?']);
  });

  it('a backoff or budget object given to a strategy without that option is an unknown option', () => {
    expect(() => strategies.failFast({ backoff: constant(10) } as never)).toThrow(/backoff: unknown option/);
    expect(() => strategies.guardedRetry({ budget: tokenBudget() } as never)).toThrow(/budget: unknown option/);
    expect(() => strategies.standard({ backoff: { kind: 'constant', ms: -1 }, fallback: () => null })).toThrow(ConfigError);
  });

  it('the config form keeps data only', () => {
    const config = { strategy: 'standard', backoff: constant(10), fallback: 'none' };
    expect(PipelineConfigSchema.safeParse(config).success).toBe(false);
    expect(() => fromConfig(config, { none: () => null })).toThrow(/backoff/);
    expect(() => fromConfig({ strategy: 'budgetedRetry', budget: tokenBudget() })).toThrow(/budget/);
  });

  /** Runs 300 calls a second for `seconds` through `p` against a dependency failing each attempt with probability `errorRate` (20 ms each); counts first attempts, retries and answers. */
  async function traffic(p: { execute: (op: (ctx: { attempt: number }) => Promise<string>) => Promise<unknown> }, clock: TestClock, errorRate: number, seconds: number) {
    const random = seededRandom(7);
    const seen = { first: 0, retries: 0, real: 0, calls: 0 };
    const pending: Promise<unknown>[] = [];
    const op = (ctx: { attempt: number }) => {
      if (ctx.attempt === 1) seen.first++;
      else seen.retries++;
      const fails = random() < errorRate;
      return new Promise<string>((resolve, reject) => clock.setTimeout(() => (fails ? reject(new Error('503')) : resolve('real')), 20));
    };
    for (let ms = 0; ms < seconds * 1_000; ms += 10) {
      for (let i = 0; i < 3; i++) {
        seen.calls++;
        pending.push(p.execute(op).then((v) => v === 'real' && seen.real++));
      }
      await clock.advance(10);
    }
    await clock.advance(5_000);
    await Promise.all(pending);
    return seen;
  }

  it('standard carries a retry budget: retries stay within half the first attempts plus 10 a second, unless budget is false', async () => {
    const clock = new TestClock(START);
    const budgeted = await traffic(strategies.standard({ clock, random: seededRandom(1), timeoutMs: 300, fallback: () => 'fallback' }), clock, 0.8, 8);
    // 8 s of traffic fit in one 10 s window of the budget: retries ≤ 0.5 × first attempts + 10/s × 10 s.
    expect(budgeted.retries).toBeLessThanOrEqual(0.5 * budgeted.first + 100);
    expect(budgeted.retries).toBeGreaterThan(0.4 * budgeted.first);
    const free = await traffic(strategies.standard({ clock, random: seededRandom(1), timeoutMs: 300, budget: false, fallback: () => 'fallback' }), clock, 0.8, 8);
    expect(free.retries).toBeGreaterThan(0.5 * free.first + 100);
    const strict = await traffic(
      strategies.standard({ clock, random: seededRandom(1), timeoutMs: 300, budget: { kind: 'token', ratio: 0.1, minPerSecond: 0 }, fallback: () => 'fallback' }),
      clock,
      0.8,
      8,
    );
    expect(strict.retries).toBeLessThanOrEqual(0.1 * strict.first + 1);
  });

  it("standard's budget in data: a budget's own mistake is reported at its path; false is the only other value", () => {
    expect(() => fromConfig({ strategy: 'standard', budget: { kind: 'token', ratio: -1 }, fallback: 'f' }, { f: () => null })).toThrow(/budget\.ratio/);
    expect(PipelineConfigSchema.safeParse({ strategy: 'standard', budget: true, fallback: 'f' }).success).toBe(false);
    expect(PipelineConfigSchema.safeParse({ strategy: 'standard', budget: false, fallback: 'f' }).success).toBe(true);
  });

  it("standard's default budget lets independent 30 % errors through: ≥ 97 % real answers at ≤ 1.45 attempts per call", async () => {
    const clock = new TestClock(START);
    const seen = await traffic(strategies.standard({ clock, random: seededRandom(2), timeoutMs: 300, fallback: () => 'fallback' }), clock, 0.3, 20);
    expect(seen.real / seen.calls).toBeGreaterThanOrEqual(0.97);
    expect((seen.first + seen.retries) / seen.calls).toBeLessThanOrEqual(1.45);
  });

  it('standard takes concurrency: an adaptive limit per attempt, around the timeout and under the retry', async () => {
    const clock = new TestClock(START);
    const p = strategies.standard({ timeoutMs: 30, concurrency: { initialLimit: 2, name: 'users' }, fallback: () => 'fallback', clock });
    const [inner, limiter, retry] = p.pipeline.policies;
    expect(inner).toBeInstanceOf(TimeoutPolicy);
    expect(limiter).toBeInstanceOf(AdaptiveLimiterPolicy);
    expect(retry).toBeInstanceOf(RetryPolicy);
    expect((limiter as AdaptiveLimiterPolicy).limit).toBe(2);
    // Two calls hold both slots; the third is shed at once, not retried, and answered by the fallback.
    let calls = 0;
    const hold = () => {
      calls++;
      return new Promise<string>((resolve) => clock.setTimeout(() => resolve('real'), 10));
    };
    const held = [p.execute(hold), p.execute(hold)];
    await expect(p.execute(hold)).resolves.toBe('fallback');
    expect(calls).toBe(2);
    await clock.advance(10);
    await expect(Promise.all(held)).resolves.toEqual(['real', 'real']);
    for (const concurrency of [true, undefined]) {
      expect(strategies.standard({ concurrency, fallback: () => null }).pipeline.policies[1]).toBeInstanceOf(AdaptiveLimiterPolicy);
    }
    expect(strategies.standard({ concurrency: false, fallback: () => null }).pipeline.policies.some((x) => x instanceof AdaptiveLimiterPolicy)).toBe(false);
  });

  it("standard's concurrency in data: isOverload by handler name, and the limiter's rules under the option", () => {
    const p = fromConfig({ strategy: 'standard', concurrency: { algorithm: 'aimd', isOverload: 'is503' }, fallback: 'f' }, { is503: () => true, f: () => null });
    expect(p.pipeline.policies[1]).toBeInstanceOf(AdaptiveLimiterPolicy);
    expect(() => fromConfig({ strategy: 'standard', concurrency: { initialLimit: 500 }, fallback: 'f' }, { f: () => null })).toThrow(/concurrency\.initialLimit: must be between/);
    expect(() => fromConfig({ strategy: 'standard', concurrency: { isOverload: 'nope' }, fallback: 'f' }, { f: () => null })).toThrow(/no handler named "nope"/);
    expect(PipelineConfigSchema.safeParse({ strategy: 'standard', concurrency: { limit: 3 }, fallback: 'f' }).success).toBe(false);
  });
});

describe('config/strategies/strategies.ts: code options', () => {
  it('keeps an object defaultValue as given, and lifts functions into handlers', async () => {
    const { strategies } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    const d = new Date(0);
    const p = strategies.errorCountTrip({ defaultValue: d, clock });
    expect(await p.execute(() => Promise.reject(new Error('x')))).toBe(d);
    // an Observable (a class instance, not plain data) is passed on as itself, by a generated name
    const load = new BehaviorSubject(0);
    const ad = strategies.adaptiveDegrade({ fallback: () => 'f', signals: { cpu: load }, clock });
    expect(ad.config[1]).toMatchObject({ signals: { cpu: expect.stringMatching(/^\$fn/) } });
    // each function gets its own name, arrays included
    const chain = strategies.fallbackChain({ fallbacks: [() => Promise.reject(new Error('first')), () => 'second'], clock });
    expect(await chain.execute(() => Promise.reject(new Error('x')), { key: 'none' })).toBe('second');
    // the random source reaches the retry: full jitter of the default 100 ms backoff, at 0.5, is 50 ms
    const brClock = new TestClock(T0);
    const br = strategies.boundedRetry({ maxAttempts: 2, random: () => 0.5, clock: brClock });
    const brEvents = collect(br);
    const run = br.execute(() => Promise.reject(new Error('x'))).catch(() => undefined);
    await brClock.runAll();
    await run;
    expect(brEvents.filter((e) => e.type === 'retry').map((e) => (e as { delayMs: number }).delayMs)).toEqual([50]);
    const plain = { a: [1] };
    const q = strategies.fallbackChain({ defaultValue: plain, clock });
    expect(await q.execute(() => Promise.reject(new Error('x')))).toBe(plain);
    const s = strategies.standard({ timeoutMs: 5, maxAttempts: 1, fallback: (e) => `fb:${(e as Error).name}`, clock });
    const r = track(s.execute(never), clock);
    await clock.advance(5);
    expect(r.now).toEqual({ ok: true, value: 'fb:TimeoutError', at: T0 + 5 });
  });
});
