import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../lib/errors.js';
import type { PolicyEvent } from '../../../lib/events.js';
import { TestClock } from '../../../lib/testing.js';
import { constant } from '../../../policies/retry/backoff.js';
import { retry, type RetryOptions } from '../../../policies/retry/index.js';

const T0 = 1_700_000_000_000;

/** The events of retry's own types (not outcome) that one call emits. */
async function eventsOf(options: RetryOptions, op: (attempt: number) => Promise<unknown>, run: { timeout?: number; signal?: AbortSignal } = {}, clock = new TestClock(T0)) {
  const r = retry({ clock, backoff: constant(10), ...options });
  const seen: PolicyEvent[] = [];
  r.events$.subscribe((e) => {
    if (e.type !== 'outcome') seen.push(e);
  });
  let n = 0;
  const call = r.execute(() => op(++n), run).then(
    (v) => ({ ok: true as const, v }),
    (e: unknown) => ({ ok: false as const, e }),
  );
  await clock.runAll();
  return { seen, result: await call };
}

describe('retry events', () => {
  it('retry: the attempt about to start, the delay and the failed attempt’s error; success: attempts in all', async () => {
    const boom = new Error('boom');
    const { seen, result } = await eventsOf({ maxAttempts: 3 }, (n) => (n < 3 ? Promise.reject(boom) : Promise.resolve('ok')));
    expect(result).toEqual({ ok: true, v: 'ok' });
    expect(seen).toEqual([
      { type: 'retry', policy: 'retry', attempt: 2, delayMs: 10, error: boom },
      { type: 'retry', policy: 'retry', attempt: 3, delayMs: 10, error: boom },
      { type: 'success', policy: 'retry', attempts: 3 },
    ]);
  });

  it('retry carries a result judged a failure as its error', async () => {
    const { seen } = await eventsOf({ maxAttempts: 2, handleResult: (v) => v === 503 }, (n) => Promise.resolve(n === 1 ? 503 : 200));
    expect(seen).toEqual([
      { type: 'retry', policy: 'retry', attempt: 2, delayMs: 10, error: 503 },
      { type: 'success', policy: 'retry', attempts: 2 },
    ]);
  });

  it('giveUp: attempts, the last error and the reason maxAttempts or notHandled', async () => {
    const last = new Error('last');
    const a = await eventsOf({ maxAttempts: 2, name: 'r' }, () => Promise.reject(last));
    expect(a.seen.at(-1)).toEqual({ type: 'giveUp', policy: 'r', attempts: 2, error: last, reason: 'maxAttempts' });
    const fatal = new Error('fatal');
    const b = await eventsOf({ handle: (e) => e !== fatal }, () => Promise.reject(fatal));
    expect(b.seen).toEqual([{ type: 'giveUp', policy: 'retry', attempts: 1, error: fatal, reason: 'notHandled' }]);
  });

  it('giveUp reason maxDelay: the server asks for a longer wait than maxDelayMs', async () => {
    const busy = Object.assign(new Error('busy'), { retryAfterMs: 5_000 });
    const { seen } = await eventsOf({ maxDelayMs: 1_000 }, () => Promise.reject(busy));
    expect(seen).toEqual([{ type: 'giveUp', policy: 'retry', attempts: 1, error: busy, reason: 'maxDelay' }]);
  });

  it('giveUp reason invalidBackoff: the error is a ConfigError naming backoff', async () => {
    const { seen, result } = await eventsOf({ backoff: () => Number.NaN }, () => Promise.reject(new Error('x')));
    expect(seen).toEqual([{ type: 'giveUp', policy: 'retry', attempts: 1, error: expect.any(ConfigError), reason: 'invalidBackoff' }]);
    expect(result.ok ? undefined : result.e).toBe((seen[0] as { error: unknown }).error);
  });

  it('giveUp reason deadline: the next wait would end past the call’s deadline', async () => {
    const boom = new Error('boom');
    const { seen } = await eventsOf({ maxAttempts: 5 }, () => Promise.reject(boom), { timeout: 25 });
    // attempt 1 fails at once, waits 10; attempt 2 fails at 10, waits to 20; at 20 a wait of 10 would reach the deadline
    expect(seen).toEqual([
      { type: 'retry', policy: 'retry', attempt: 2, delayMs: 10, error: boom },
      { type: 'retry', policy: 'retry', attempt: 3, delayMs: 10, error: boom },
      { type: 'giveUp', policy: 'retry', attempts: 3, error: boom, reason: 'deadline' },
    ]);
  });

  it('giveUp reason budget: the budget refuses the retry', async () => {
    const budget = { onCall: () => {}, tryRetry: () => false };
    const boom = new Error('boom');
    const { seen } = await eventsOf({ budget }, () => Promise.reject(boom));
    expect(seen).toEqual([{ type: 'giveUp', policy: 'retry', attempts: 1, error: boom, reason: 'budget' }]);
  });

  it('giveUp reason cancelled: the caller aborts during the wait; the error is the abort’s reason', async () => {
    const clock = new TestClock(T0);
    const controller = new AbortController();
    const stop = new Error('stop');
    clock.setTimeout(() => controller.abort(stop), 5);
    const { seen, result } = await eventsOf({}, () => Promise.reject(new Error('boom')), { signal: controller.signal }, clock);
    expect(seen.at(-1)).toEqual({ type: 'giveUp', policy: 'retry', attempts: 1, error: stop, reason: 'cancelled' });
    expect(result).toEqual({ ok: false, e: stop });
  });
});
