import { describe, expect, it } from 'vitest';
import { ConfigError, isTimeoutError, policy, timeout, TimeoutError, type OutcomeEvent, type PolicyEvent } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { rejection, track } from '../../helpers/track.js';

const START = 1_700_000_000_000;
const never = <T>() => new Promise<T>(() => {});

describe('timeout', () => {
  it('aggressive: rejects exactly at the deadline while the operation is still pending', async () => {
    const clock = new TestClock(START);
    let seenSignal: AbortSignal | undefined;
    const p = timeout({ ms: 100, clock }).execute((ctx) => {
      seenSignal = ctx.signal;
      expect(ctx.deadline).toBe(START + 100);
      return never<number>();
    });
    const t = track(p, clock);
    await clock.advance(99);
    expect(t.now).toBeUndefined();
    expect(seenSignal!.aborted).toBe(false);
    await clock.advance(1);
    expect(await rejection(t)).toBeInstanceOf(TimeoutError);
    expect(t.now!.at).toBe(START + 100);
    expect(seenSignal!.aborted).toBe(true);
    expect(isTimeoutError(seenSignal!.reason)).toBe(true);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a late result is dropped and a late rejection is swallowed', async () => {
    const clock = new TestClock(START);
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const t = timeout({ ms: 10, clock });
      const late = track(t.execute(() => new Promise((_, reject) => clock.setTimeout(() => reject(new Error('late')), 50))), clock);
      const lateOk = track(t.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve('late'), 50))), clock);
      await clock.advance(10);
      expect(await rejection(late)).toBeInstanceOf(TimeoutError);
      expect(await rejection(lateOk)).toBeInstanceOf(TimeoutError);
      await clock.advance(50);
      await new Promise((r) => setImmediate(r));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('settles with the operation when it beats the deadline, and never aborts on success', async () => {
    const clock = new TestClock(START);
    let signal: AbortSignal | undefined;
    const r = await timeout({ ms: 100, clock }).execute((ctx) => {
      signal = ctx.signal;
      return 7;
    });
    expect(r).toBe(7);
    expect(signal!.aborted).toBe(false);
    await clock.advance(1_000);
    expect(signal!.aborted).toBe(false);
  });

  it('cooperative: aborts the signal at the deadline, waits, and rejects only if the operation rejects', async () => {
    const clock = new TestClock(START);
    const t = timeout({ ms: 100, mode: 'cooperative', clock });
    const honours = t.execute(
      (ctx) =>
        new Promise((_, reject) => {
          ctx.signal.addEventListener('abort', () => clock.setTimeout(() => reject(new Error('stopped')), 20));
        }),
    );
    const h = track(honours, clock);
    const finishes = t.execute(() => new Promise((resolve) => clock.setTimeout(() => resolve('done'), 150)));
    await clock.advance(100);
    expect(h.now).toBeUndefined();
    await clock.advance(20);
    const err = await rejection(h);
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).cause).toEqual(new Error('stopped'));
    expect(h.now!.at).toBe(START + 120);
    await clock.advance(30);
    await expect(finishes).resolves.toBe('done');
    expect(clock.pendingTimers).toBe(0);
  });

  it('an inner timeout never extends an outer deadline', async () => {
    const clock = new TestClock(START);
    let deadline: number | undefined;
    const p = policy({ clock })
      .timeout(1_000)
      .timeout(50)
      .execute((ctx) => {
        deadline = ctx.deadline;
        return never();
      });
    expect(deadline).toBe(START + 50);
    const t = track(p, clock);
    await clock.advance(50);
    expect(await rejection(t)).toBeInstanceOf(TimeoutError);
    expect(t.now!.at).toBe(START + 50);

    const viaOptions = policy({ clock }).timeout(1_000).execute((ctx) => ctx.deadline, { timeout: 20 });
    await expect(viaOptions).resolves.toBe(clock.now() + 20);
  });

  it('an execute deadline option bounds the call like an outer timeout', async () => {
    const clock = new TestClock(START);
    const p = track(timeout({ ms: 1_000, clock }).execute(() => never(), { deadline: START + 30 }), clock);
    await clock.advance(30);
    expect(await rejection(p)).toBeInstanceOf(TimeoutError);
    expect(p.now!.at).toBe(START + 30);
    expect(clock.pendingTimers).toBe(0);
  });

  it('shares one timer among many pending deadlines', async () => {
    const clock = new TestClock(START);
    const t = timeout({ ms: 100, clock });
    const calls = Array.from({ length: 1_000 }, (_, i) =>
      track(t.execute(() => new Promise((r) => clock.setTimeout(() => r(i), i % 2 ? 50 : 500))), clock).settled,
    );
    // 1,000 operation timers plus one shared deadline timer
    expect(clock.pendingTimers).toBe(1_001);
    await clock.advance(100);
    const results = await Promise.all(calls);
    expect(results.filter((r) => r.ok && r.at === START + 50)).toHaveLength(500);
    expect(results.filter((r) => !r.ok && r.error instanceof TimeoutError && r.at === START + 100)).toHaveLength(500);
    await clock.advance(400);
    expect(clock.pendingTimers).toBe(0);
  });

  it('the caller abort rejects at once with the reason, not a TimeoutError', async () => {
    const clock = new TestClock(START);
    const ac = new AbortController();
    const p = timeout({ ms: 100, clock }).execute(() => never(), { signal: ac.signal });
    const reason = new Error('caller gave up');
    ac.abort(reason);
    await expect(p).rejects.toBe(reason);
    expect(clock.pendingTimers).toBe(0);
  });

  it('emits timeout and outcome events only to subscribers', async () => {
    const clock = new TestClock(START);
    const t = timeout({ ms: 10, name: 'db', clock });
    const events: PolicyEvent[] = [];
    const sub = t.events$.subscribe((e) => events.push(e));
    await t.execute(() => 1);
    const p = track(t.execute(() => never()), clock);
    await clock.advance(10);
    await p.settled;
    sub.unsubscribe();
    expect(events.map((e) => e.type)).toEqual(['outcome', 'timeout', 'outcome']);
    expect((events[0] as OutcomeEvent).result).toBe('success');
    expect((events[2] as OutcomeEvent).result).toBe('timeout');
    expect((events[2] as OutcomeEvent).durationMs).toBe(10);
    expect(events.every((e) => e.policy === 'db')).toBe(true);
  });

  it.each([
    [-1, 'ms'],
    [0, 'ms'],
    [Number.NaN, 'ms'],
    [Number.POSITIVE_INFINITY, 'ms'],
    ['100', 'ms'],
  ])('rejects ms = %s with a ConfigError naming %s', (ms, path) => {
    const err = (() => {
      try {
        timeout(ms as number);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).issues[0]!.path).toBe(path);
  });

  it('rejects unknown keys and modes, naming them', () => {
    expect(() => timeout({ ms: 10, mod: 'x' } as never)).toThrow(/mod: unknown option/);
    expect(() => timeout({ ms: 10, mode: 'eager' } as never)).toThrow(/mode/);
  });

  it('an aggressive timeout inside an earlier cooperative deadline still ends a call whose operation ignores its signal', async () => {
    const clock = new TestClock(START);
    const run = track(policy({ clock }).timeout(200).timeout({ ms: 100, mode: 'cooperative' }).execute(never), clock);
    await clock.advance(100);
    expect(run.now).toBeUndefined();
    await clock.advance(100);
    const error = await rejection(run);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(run.now!.at).toBe(START + 200);
    expect(clock.pendingTimers).toBe(0);
  });

  it('per-attempt aggressive timeouts under a cooperative total: every attempt ends, then retry gives up at the total', async () => {
    const clock = new TestClock(START);
    const p = policy({ clock }).timeout(1_000).retry({ maxAttempts: 3 }).timeout({ ms: 1_500, mode: 'cooperative' });
    const events: PolicyEvent[] = [];
    p.events$.subscribe((e) => events.push(e));
    let attempts = 0;
    const run = track(p.execute(() => (attempts++, never())), clock);
    await clock.advance(1_000);
    expect(attempts).toBe(1);
    await clock.runAll();
    expect(await rejection(run)).toBeInstanceOf(TimeoutError);
    expect(attempts).toBe(2);
    // the second attempt ended at its own bound, a second after it started, and nothing is left armed
    expect(run.now!.at).toBeGreaterThan(START + 1_500);
    expect(run.now!.at).toBeLessThanOrEqual(START + 2_000 + 1_000);
    expect(events.filter((e) => e.type === 'giveUp')).toMatchObject([{ reason: 'deadline', attempts: 2 }]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('reports one outcome per call when an earlier enclosing deadline governs (and no timeout event of its own)', async () => {
    const clock = new TestClock(START);
    const inner = timeout({ ms: 100, clock, name: 'inner' });
    const events: PolicyEvent[] = [];
    inner.events$.subscribe((e) => events.push(e));
    const ok = await policy({ clock }).use(inner).timeout(50).execute(() => 'ok');
    expect(ok).toBe('ok');
    const run = track(policy({ clock }).use(inner).timeout(50).execute(never), clock);
    await clock.advance(50);
    expect(await rejection(run)).toBeInstanceOf(TimeoutError);
    expect(events.map((e) => [e.type, (e as OutcomeEvent).result, (e as OutcomeEvent).durationMs])).toEqual([
      ['outcome', 'success', 0],
      ['outcome', 'timeout', 50],
    ]);
  });
});
