import { describe, expect, it } from 'vitest';
import { policy } from '../../api/builder.js';
import { constant } from '../../policies/retry/index.js';
import { TestClock } from '../../lib/testing.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { CallerGaveUp, deadlineBlind } from '../../lab/naive.js';

describe('deadlineBlind (the naive client)', () => {
  it('retries at once and goes on after the caller gave up, without its deadline or signal', async () => {
    const clock = new TestClock(1_000_000);
    const attempts: { at: number; deadline: number | undefined }[] = [];
    // every attempt hangs until the 300 ms attempt timeout
    const op = (ctx: ExecutionContext) => {
      attempts.push({ at: clock.now(), deadline: ctx.deadline });
      return new Promise<never>((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
    };
    const orphans: Promise<unknown>[] = [];
    const naive = deadlineBlind(policy({ clock }).timeout(300).retry({ maxAttempts: 3, backoff: constant(0) }), clock, (w) => orphans.push(w));
    const answer = naive.execute(op, { timeout: 500 });
    const settled = answer.then(
      () => 'answered',
      (e: unknown) => e,
    );
    await clock.advance(500);
    expect(await settled).toBeInstanceOf(CallerGaveUp);
    // the work A left behind is handed over, still running
    expect(orphans).toHaveLength(1);
    let orphanEnded = false;
    orphans[0]!.then(
      () => (orphanEnded = true),
      () => (orphanEnded = true),
    );
    expect(attempts.map((a) => a.at - 1_000_000)).toEqual([0, 300]);
    await clock.advance(1_000);
    // the third attempt starts at once after the second, for nobody; each bounded only by its own timeout
    expect(attempts.map((a) => a.at - 1_000_000)).toEqual([0, 300, 600]);
    expect(orphanEnded).toBe(true);
    // each attempt's deadline is its own 300 ms, past the caller's 500 ms: the caller's deadline never reached it
    expect(attempts.map((a) => (a.deadline ?? 0) - 1_000_000)).toEqual([300, 600, 900]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('answers what the policy answers in time', async () => {
    const clock = new TestClock(0);
    const naive = deadlineBlind(policy({ clock }).retry({ maxAttempts: 2, backoff: constant(0) }), clock);
    await expect(naive.execute(() => Promise.resolve(42), { timeout: 500 })).resolves.toBe(42);
    await expect(naive.execute(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(clock.pendingTimers).toBe(0);
  });
});
