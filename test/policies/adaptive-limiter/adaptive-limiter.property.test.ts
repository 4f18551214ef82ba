import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { adaptiveLimiter, TimeoutError, type LimitChangedEvent, type PolicyEvent } from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { simulate, uniform } from '../../helpers/dependency.js';
import { runs } from '../../helpers/fuzz.js';

const START = 1_700_000_000_000;

/** The limiter's `limitChanged` events, collected as they come. */
function changesOf(events$: { subscribe(f: (e: PolicyEvent) => void): unknown }): LimitChangedEvent[] {
  const out: LimitChangedEvent[] = [];
  events$.subscribe((e) => e.type === 'limitChanged' && out.push(e));
  return out;
}

describe('adaptiveLimiter properties', () => {
  // concurrency-limits #137: a dependency that always times out at the same deadline has a steady
  // "response time"; Gradient2 saw no gradient and grew the limit to its maximum.
  it('stable timeouts never raise the limit, let alone to its maximum', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('gradient', 'aimd', 'vegas' as const),
        fc.integer({ min: 20, max: 100 }),
        fc.integer({ min: 100, max: 1_000 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        async (algorithm, initialLimit, timeoutMs, seed) => {
          const clock = new TestClock(START);
          const limiter = adaptiveLimiter({ algorithm, initialLimit, maxLimit: 400, clock });
          const changes = changesOf(limiter.events$);
          // Answers come long after the deadline; demand is twice the initial limit.
          const model = { slots: 1_000, service: uniform(seededRandom(seed), 1, 5), latency: 10 * timeoutMs, timeoutMs };
          const run = await simulate(limiter, clock, model, { rate: (2 * initialLimit * 1000) / timeoutMs, durationMs: 12_000 });
          expect(run.answered).toBe(0);
          expect(run.timedOut).toBeGreaterThan(0);
          for (const c of changes) expect(c.to).toBeLessThan(c.from);
          expect(Math.max(...run.limits)).toBe(initialLimit);
          expect(limiter.limit).toBeLessThan(initialLimit);
          expect(run.shedBelowLimit).toBe(0);
        },
      ),
      { numRuns: runs(12) },
    );
  });

  // concurrency-limits #35: Vegas grew by a step per update and took minutes to reach a high limit.
  it('slow start reaches a stable limit around the capacity in bounded time, and stays', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('gradient', 'vegas' as const),
        fc.integer({ min: 50, max: 400 }),
        fc.integer({ min: 100, max: 200 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        async (algorithm, slots, serviceMs, seed) => {
          const clock = new TestClock(START);
          const limiter = adaptiveLimiter({ algorithm, initialLimit: 10, maxLimit: 1_000, clock });
          const model = { slots, service: uniform(seededRandom(seed), 0.8 * serviceMs, 1.2 * serviceMs), latency: 0, timeoutMs: 60_000 };
          // Offered at more than the dependency serves: the limit, not the demand, decides.
          const run = await simulate(limiter, clock, model, { rate: (1.25 * slots * 1000) / serviceMs, durationMs: 12_000, sampleEveryMs: 100 });
          // Windows last twice the fastest answer, up to 480 ms: a step of 4 per window would need up to
          // 150 windows (a minute) to reach 600; doubling from 10 needs 6, and the overshoot settles in a few more.
          const settled = run.limits.slice(50);
          // Below the capacity the dependency would idle; far above it, calls would queue: the stable band.
          expect(Math.min(...settled)).toBeGreaterThanOrEqual(slots);
          expect(Math.max(...settled)).toBeLessThanOrEqual(2 * slots + 12);
          expect(run.timedOut).toBe(0);
          expect(run.shedBelowLimit).toBe(0);
        },
      ),
      { numRuns: runs(10) },
    );
  }, 60_000);

  // failsafe-go #127: during a long incident the baseline (a moving average) climbed to the incident's own
  // response times, until they looked normal and the limit grew back into the overload.
  it('the no-load baseline stays put through an incident many times longer than its memory', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 8 }),
        fc.integer({ min: 20, max: 40 }),
        fc.integer({ min: 20, max: 60 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        async (slots, serviceMs, baselineWindows, seed) => {
          const clock = new TestClock(START);
          const limiter = adaptiveLimiter({ algorithm: { kind: 'gradient', baselineWindows }, clock });
          const model = { slots: 1_000, service: uniform(seededRandom(seed), 0.8 * serviceMs, 1.2 * serviceMs), latency: 0, timeoutMs: 60_000 };
          const healthyMs = 5_000;
          // Windows last 100 ms here (at least 10 calls, at least twice the fastest answer, under 100 ms), at
          // most 200: the incident spans at least five times the baseline's memory.
          const incidentMs = 5 * baselineWindows * 200;
          let healthy: number | undefined;
          const baselines: number[] = [];
          const rtts: number[] = [];
          const run = await simulate(limiter, clock, model, {
            rate: (2 * slots * 1000) / serviceMs,
            durationMs: healthyMs + incidentMs,
            sampleEveryMs: 500,
            phases: [{ at: healthyMs, apply: (m) => ((healthy = limiter.stats().baselineMs), (m.slots = slots)) }],
            onSample: () => {
              if (healthy === undefined) return;
              baselines.push(limiter.stats().baselineMs!);
              rtts.push(limiter.stats().rttMs!);
            },
          });
          expect(healthy).toBeGreaterThan(0.8 * serviceMs);
          expect(healthy).toBeLessThan(1.2 * serviceMs);
          // The baseline may only come down (a noisy window), never climb with the incident.
          expect(Math.max(...baselines)).toBeLessThanOrEqual(healthy! * 1.05);
          // And the limit stays near what the dependency serves without queueing (1.5 × slots, give or take a growth
          // step), so the incident's answers keep coming without a queue: the mean response time stays near 1.5 × the baseline.
          const during = run.limits.slice(run.limits.length - baselines.length + 4);
          expect(Math.max(...during)).toBeLessThanOrEqual(3 * slots + 8);
          expect(rtts.reduce((a, b) => a + b, 0) / rtts.length).toBeLessThanOrEqual(3 * healthy!);
          expect(run.shedBelowLimit).toBe(0);
        },
      ),
      { numRuns: runs(10) },
    );
  }, 60_000);

  // concurrency-limits #234: admissions that read the in-flight count and increment it apart let concurrent
  // callers all pass at the limit. Here admission is one synchronous step, and the limit moves at almost every
  // completion: no interleaving of admissions, completions, limit changes and hot reloads admits a call at the limit.
  it('no interleaving of calls, permits, limit changes and reloads admits a call at the limit', async () => {
    const reload = fc.record({
      at: fc.integer({ min: 0, max: 200 }),
      algorithm: fc.constantFrom('gradient', 'aimd', 'vegas' as const),
      minLimit: fc.integer({ min: 1, max: 6 }),
      maxLimit: fc.integer({ min: 6, max: 12 }),
    });
    const call = fc.record({
      at: fc.integer({ min: 0, max: 200 }),
      dur: fc.integer({ min: 0, max: 40 }),
      end: fc.constantFrom('answer', 'fail', 'timeout', 'abort', 'overload'),
      permit: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('gradient', 'aimd', 'vegas' as const),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(call, { minLength: 50, maxLength: 300 }),
        fc.array(reload, { maxLength: 4 }),
        async (algorithm, initialLimit, minSamples, calls, reloads) => {
          const clock = new TestClock(START);
          const overload = new Error('overloaded');
          const limiter = adaptiveLimiter({ algorithm, initialLimit, maxLimit: 12, windowMs: 1, maxWindowMs: 50, minSamples, isOverload: (e) => e === overload, clock });
          const changes = changesOf(limiter.events$);
          let held = 0;
          let admittedAtLimit = 0;
          let shedBelowLimit = 0;
          let lost = 0;
          let shed = 0;
          const settled: Promise<unknown>[] = [];
          let outOfBounds = 0;
          const admit = () => {
            held++;
            const limit = limiter.limit;
            if (held > limit) admittedAtLimit++;
            if (!(Number.isInteger(limit) && limit >= 1 && limit <= 12)) outOfBounds++;
          };
          let reloadsOff = 0;
          for (const r of reloads) {
            clock.setTimeout(() => {
              const before = limiter.inFlight;
              limiter.reconfigure({ algorithm: r.algorithm, initialLimit: r.minLimit, minLimit: r.minLimit, maxLimit: r.maxLimit, windowMs: 1, maxWindowMs: 50, minSamples });
              if (limiter.inFlight !== before || limiter.limit < r.minLimit || limiter.limit > r.maxLimit) reloadsOff++;
            }, r.at);
          }
          for (const c of calls) {
            clock.setTimeout(() => {
              const before = limiter.inFlight;
              const limit = limiter.limit;
              if (before !== held) lost++;
              if (c.permit) {
                let permit: ReturnType<typeof limiter.allow>;
                try {
                  permit = limiter.allow();
                } catch {
                  shed++;
                  if (before < limit) shedBelowLimit++;
                  return;
                }
                admit();
                clock.setTimeout(() => {
                  held--;
                  if (c.end === 'answer') permit.success();
                  else if (c.end === 'abort') permit.release();
                  else permit.failure(c.end === 'timeout' ? new TimeoutError('attempt') : c.end === 'overload' ? overload : new Error('boom'));
                }, c.dur);
                return;
              }
              const ac = new AbortController();
              let started = false;
              const p = limiter.execute(
                () => {
                  started = true;
                  admit();
                  // The operation ignores its signal: its slot stays held until it settles.
                  return new Promise<void>((resolve, reject) =>
                    clock.setTimeout(() => {
                      held--;
                      if (c.end === 'answer' || c.end === 'timeout' || c.end === 'abort') resolve();
                      else reject(c.end === 'overload' ? overload : new Error('boom'));
                    }, c.dur),
                  );
                },
                c.end === 'timeout' ? { timeout: Math.max(1, c.dur - 1) } : { signal: ac.signal },
              );
              if (c.end === 'abort') clock.setTimeout(() => ac.abort(new Error('caller left')), c.dur / 2);
              if (!started) shed++;
              if (!started && before < limit) shedBelowLimit++;
              settled.push(p.catch(() => undefined));
            }, c.at);
          }
          await clock.runAll();
          await Promise.all(settled);
          expect(admittedAtLimit).toBe(0);
          expect(reloadsOff).toBe(0);
          expect(outOfBounds).toBe(0);
          expect(shedBelowLimit).toBe(0);
          expect(lost).toBe(0);
          expect(held).toBe(0);
          expect(limiter.inFlight).toBe(0);
          expect(clock.pendingTimers).toBe(0);
          for (const ch of changes) {
            expect(ch.to).toBeGreaterThanOrEqual(1);
            expect(ch.to).toBeLessThanOrEqual(12);
          }
        },
      ),
      { numRuns: runs(150) },
    );
  });

  it('a healthy dependency is never throttled: the limit only grows, and soon no call is shed', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('gradient', 'aimd', 'vegas' as const),
        fc.integer({ min: 1, max: 20 }),
        fc.integer({ min: 5, max: 100 }),
        fc.integer({ min: 50, max: 600 }),
        fc.integer({ min: 0, max: 2 ** 31 }),
        async (algorithm, initialLimit, serviceMs, rate, seed) => {
          const clock = new TestClock(START);
          const limiter = adaptiveLimiter({ algorithm, initialLimit, clock });
          const changes = changesOf(limiter.events$);
          // As many slots as calls could ever be in flight, service times within ±25 %: nothing queues.
          const model = { slots: 10_000, service: uniform(seededRandom(seed), 0.75 * serviceMs, 1.25 * serviceMs), latency: 0, timeoutMs: 60_000 };
          const warm = await simulate(limiter, clock, model, { rate, durationMs: 3_000 });
          const steady = await simulate(limiter, clock, model, { rate, durationMs: 6_000 });
          for (const c of changes) expect(c.to).toBeGreaterThan(c.from);
          expect(warm.shedBelowLimit + steady.shedBelowLimit).toBe(0);
          // Each shed call shows a full window, which raises the limit: after the warm-up, sheds are rare
          // (Vegas grows by one per window once a noisy window has ended its slow start).
          expect(steady.shed).toBeLessThanOrEqual(steady.offered / 1_000);
          expect(steady.answered).toBeGreaterThan(0);
        },
      ),
      { numRuns: runs(15) },
    );
  });
});
