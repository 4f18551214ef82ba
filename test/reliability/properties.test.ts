import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { constant, policy, TimeoutError, type ExecutionContext, type RetryBudget } from '../../api/index.js';
import { seededRandom, TestClock } from '../../lib/testing.js';
import { runs } from '../helpers/fuzz.js';

const T0 = 1_700_000_000_000;

/** An operation that settles after `ms` on `clock` (ok or failing) and honours its signal, or ignores it (`deaf`). */
function timed(clock: TestClock, ms: number, ok: boolean, deaf = false) {
  return (ctx: ExecutionContext) =>
    new Promise<string>((resolve, reject) => {
      const t = clock.setTimeout(() => (ok ? resolve('ok') : reject(new Error('fail'))), ms);
      if (!deaf) ctx.signal.addEventListener('abort', () => (clock.clearTimeout(t), reject(ctx.signal.reason)), { once: true });
    });
}

describe('retry properties', () => {
  it('never exceeds maxAttempts, never starts an attempt at or after the deadline, and a refused budget means no extra call', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.record({ ms: fc.integer({ min: 0, max: 40 }), ok: fc.boolean() }), { minLength: 6, maxLength: 6 }),
        fc.integer({ min: 0, max: 50 }),
        fc.option(fc.integer({ min: 1, max: 200 }), { nil: undefined }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        async (maxAttempts, attempts, delay, timeout, grants) => {
          const clock = new TestClock(T0);
          const starts: number[] = [];
          let asked = 0;
          let refused = false;
          const budget: RetryBudget = {
            onCall() {},
            tryRetry() {
              const yes = grants[asked++]!;
              if (!yes) refused = true;
              return yes;
            },
          };
          const p = policy({ clock, random: seededRandom(1) }).retry({ maxAttempts, backoff: constant(delay), budget });
          const run = p
            .execute(
              (ctx) => {
                starts.push(clock.now());
                const a = attempts[starts.length - 1]!;
                return timed(clock, a.ms, a.ok)(ctx);
              },
              timeout === undefined ? {} : { timeout },
            )
            .then(
              () => 'ok',
              (e) => e,
            );
          await clock.runAll();
          const result = await run;
          expect(starts.length).toBeLessThanOrEqual(maxAttempts);
          if (timeout !== undefined) for (const s of starts) expect(s).toBeLessThan(T0 + timeout);
          // every retry was granted by the budget; after a refusal, nothing more ran
          expect(starts.length).toBe(1 + grants.slice(0, asked).filter(Boolean).length);
          if (refused) expect(grants[asked - 1]).toBe(false);
          // it stops only for a reason: success, maxAttempts, budget, deadline
          if (result !== 'ok' && !refused && starts.length < maxAttempts && timeout === undefined) expect.unreachable(`stopped after ${starts.length}`);
        },
      ),
      { numRuns: runs(300) },
    );
  });
});

describe('timeout properties', () => {
  it('an aggressive timeout never settles after its deadline, and passes through what settles before it', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 200 }),
        fc.boolean(),
        fc.boolean(),
        fc.option(fc.integer({ min: 1, max: 150 }), { nil: undefined }),
        async (ms, opMs, ok, deaf, outer) => {
          const clock = new TestClock(T0);
          let settledAt = NaN;
          const run = policy({ clock })
            .timeout(ms)
            .execute(timed(clock, opMs, ok, deaf), outer === undefined ? {} : { timeout: outer })
            .then(
              (v) => v,
              (e) => e,
            )
            .finally(() => (settledAt = clock.now()));
          await clock.runAll();
          const result = await run;
          const deadline = T0 + Math.min(ms, outer ?? Infinity);
          expect(settledAt).toBeLessThanOrEqual(deadline);
          if (opMs < Math.min(ms, outer ?? Infinity)) {
            if (ok) expect(result).toBe('ok');
            else expect((result as Error).message).toBe('fail');
          } else if (opMs > Math.min(ms, outer ?? Infinity)) expect(result).toBeInstanceOf(TimeoutError);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: runs(300) },
    );
  });
});

describe('cache properties', () => {
  it("answers a key only with that key's value: the stored one while fresh (no call), a new one once expired, and calls at most once per key per ttlMs", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 100 }),
        fc.integer({ min: 0, max: 100 }),
        fc.array(fc.record({ key: fc.constantFrom('a', 'b', 'c'), wait: fc.integer({ min: 0, max: 80 }), together: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        async (ttlMs, staleWhileRevalidateMs, requests) => {
          const clock = new TestClock(T0);
          const p = policy({ clock }).cache({ ttlMs, staleWhileRevalidateMs });
          /** Clock times of each key's real calls. */
          const real: Record<string, number[]> = { a: [], b: [], c: [] };
          // requests marked `together` arrive at the same instant as the one before, concurrently
          const groups: (typeof requests)[] = [];
          for (const r of requests) {
            if (r.together && groups.length > 0) groups[groups.length - 1]!.push(r);
            else groups.push([r]);
          }
          for (const group of groups) {
            await clock.advance(group[0]!.wait);
            const now = clock.now();
            const last = Object.fromEntries(Object.entries(real).map(([k, at]) => [k, at.at(-1)]));
            const made = Object.fromEntries(Object.entries(real).map(([k, at]) => [k, at.length]));
            const answers = await Promise.all(
              group.map((r) =>
                p.execute(
                  () => {
                    real[r.key]!.push(clock.now());
                    return Promise.resolve(`${r.key}@${clock.now()}`);
                  },
                  { key: r.key },
                ),
              ),
            );
            group.forEach((r, i) => {
              const [key, at] = answers[i]!.split('@');
              expect(key).toBe(r.key);
              const before = last[r.key];
              const age = before === undefined ? Infinity : now - before;
              const callsNow = real[r.key]!.length - made[r.key]!;
              if (age < ttlMs) {
                expect(Number(at), `fresh ${r.key} answered from the store`).toBe(before);
                expect(callsNow, `fresh ${r.key} called`).toBe(0);
              } else if (age >= ttlMs + staleWhileRevalidateMs) {
                expect(Number(at), `expired ${r.key} answered with a new value`).toBe(now);
                expect(callsNow, `concurrent callers of ${r.key} share one call`).toBe(1);
              } else {
                // stale: the old value is answered while at most one call refreshes it
                expect([before, now]).toContain(Number(at));
                expect(callsNow).toBeLessThanOrEqual(1);
              }
            });
          }
          for (const [key, at] of Object.entries(real)) {
            for (let i = 1; i < at.length; i++) expect(at[i]! - at[i - 1]!, `${key} called twice within ttlMs`).toBeGreaterThanOrEqual(ttlMs);
          }
          await clock.runAll();
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: runs(200) },
    );
  });
});

describe('chaos properties', () => {
  it('injects never at rate 0 or when disabled, always at rate 1, and otherwise answers with the fault or the real result', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(0, 1, 0.5), fc.boolean(), fc.integer(), fc.integer({ min: 1, max: 30 }), async (injectionRate, enabled, seed, n) => {
        const fault = new Error('injected');
        const p = policy().chaos({ fault, injectionRate, enabled, random: seededRandom(seed) });
        let real = 0;
        let injected = 0;
        for (let i = 0; i < n; i++) {
          const r = await p.execute(() => (real++, 'real')).catch((e) => e);
          if (r === fault) injected++;
          else expect(r).toBe('real');
        }
        if (!enabled || injectionRate === 0) expect(injected).toBe(0);
        if (enabled && injectionRate === 1) expect(injected).toBe(n);
        expect(real + injected).toBe(n);
      }),
      { numRuns: runs(200) },
    );
  });
});

describe('degrade properties', () => {
  it('when the predicate holds, answers from the handler without calling; otherwise calls once and passes the result through', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.boolean(), { minLength: 1, maxLength: 30 }), async (decisions) => {
        let i = 0;
        let calls = 0;
        const p = policy().degrade({ when: () => decisions[i]!, to: () => 'degraded' });
        for (; i < decisions.length; i++) {
          const before = calls;
          const r = await p.execute(() => (calls++, 'real'));
          expect(r).toBe(decisions[i] ? 'degraded' : 'real');
          expect(calls - before).toBe(decisions[i] ? 0 : 1);
        }
      }),
      { numRuns: runs(200) },
    );
  });
});

describe('hedge properties', () => {
  it('makes at most 1 + maxHedged calls, answers with some attempt\'s result, and leaves no timer', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 30 }),
        fc.array(fc.record({ ms: fc.integer({ min: 0, max: 60 }), ok: fc.boolean() }), { minLength: 4, maxLength: 4 }),
        async (maxHedged, delayMs, attempts) => {
          const clock = new TestClock(T0);
          let n = 0;
          const run = policy({ clock })
            .hedge({ delayMs, maxHedged })
            .execute((ctx) => {
              const i = n++;
              const a = attempts[i]!;
              return timed(clock, a.ms, a.ok)(ctx).then((v) => `${v}${i + 1}`);
            })
            .catch((e) => e);
          await clock.runAll();
          const r = await run;
          expect(n).toBeLessThanOrEqual(1 + maxHedged);
          if (typeof r === 'string') expect(r).toMatch(/^ok[1-4]$/);
          else expect(r).toBeInstanceOf(Error);
          expect(clock.pendingTimers).toBe(0);
        },
      ),
      { numRuns: runs(200) },
    );
  });
});
