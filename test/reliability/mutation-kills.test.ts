/**
 * Tests written from Stryker's survivors (npm run mutate): each pins down a
 * behaviour the other tests left open (event contents, boundaries, hints).
 */
import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, constant, ConfigError, policy, retry, timeout, TimeoutError, type PolicyEvent, type RetryBudget } from '../../api/index.js';
import { TestClock } from '../../lib/testing.js';
import { deadlineTimerOf } from '../../lib/clock.js';

const T0 = 1_700_000_000_000;

function collect(p: { events$: import('rxjs').Observable<PolicyEvent> }): PolicyEvent[] {
  const out: PolicyEvent[] = [];
  p.events$.subscribe((e) => out.push(e));
  return out;
}

/** Fails `n` times (after `ms` each), then answers 'ok'. */
function flaky(clock: TestClock, n: number, ms = 10, error: unknown = new Error('flaky')) {
  let calls = 0;
  const op = () =>
    new Promise<string>((resolve, reject) => clock.setTimeout(() => (++calls <= n ? reject(error) : resolve('ok')), ms));
  return Object.assign(op, { calls: () => calls });
}

describe('retry: events and boundaries', () => {
  it('reports success with the attempt count and the whole duration', async () => {
    const clock = new TestClock(T0);
    const r = retry({ maxAttempts: 3, backoff: constant(5), clock });
    const events = collect(r);
    const run = r.execute(flaky(clock, 1));
    await clock.runAll();
    await expect(run).resolves.toBe('ok');
    expect(events).toEqual([
      expect.objectContaining({ type: 'retry', policy: 'retry', attempt: 2, delayMs: 5 }),
      { type: 'success', policy: 'retry', attempts: 2 },
      { type: 'outcome', policy: 'retry', result: 'success', durationMs: 25 },
    ]);
  });

  it.each([
    ['maxAttempts', {}, 'failure'],
    ['budget', { budget: { onCall() {}, tryRetry: () => false } satisfies RetryBudget }, 'failure'],
  ] as const)('gives up for %s with the reason, the error and the duration', async (reason, extra, result) => {
    const clock = new TestClock(T0);
    const error = new Error('down');
    const r = retry({ maxAttempts: 2, backoff: constant(5), clock, ...extra });
    const events = collect(r);
    const run = r.execute(flaky(clock, 9, 10, error)).catch((e) => e);
    await clock.runAll();
    expect(await run).toBe(error);
    const attempts = reason === 'budget' ? 1 : 2;
    expect(events.filter((e) => e.type === 'giveUp')).toEqual([{ type: 'giveUp', policy: 'retry', attempts, error, reason }]);
    expect(events.at(-1)).toEqual({ type: 'outcome', policy: 'retry', result, durationMs: attempts === 1 ? 10 : 25, error });
  });

  it('gives up with reason "deadline" when the sleep would reach the deadline (at it exactly, too)', async () => {
    const clock = new TestClock(T0);
    const r = retry({ maxAttempts: 5, backoff: constant(10), clock });
    const events = collect(r);
    // attempt 1 ends at 10; a 10 ms sleep would end at 20 = the deadline: no sleep
    const run = r.execute(flaky(clock, 9, 10), { timeout: 20 }).catch((e) => e);
    await clock.runAll();
    expect((await run).message).toBe('flaky');
    expect(events.find((e) => e.type === 'giveUp')).toMatchObject({ reason: 'deadline', attempts: 1 });
  });

  it('gives up with reason "notHandled" for an error handle refuses, and "rejected" for a shed rejection', async () => {
    const clock = new TestClock(T0);
    const r = retry({ maxAttempts: 3, handle: (e) => !(e instanceof TypeError), clock });
    const events = collect(r);
    await expect(r.execute(() => Promise.reject(new TypeError('no')))).rejects.toBeInstanceOf(TypeError);
    expect(events.find((e) => e.type === 'giveUp')).toMatchObject({ reason: 'notHandled', attempts: 1 });
    const shed = new BrokenCircuitError('b');
    await expect(r.execute(() => Promise.reject(shed))).rejects.toBe(shed);
    expect(events.at(-1)).toMatchObject({ type: 'outcome', result: 'rejected' });
  });

  it('gives up with reason "cancelled" when the caller aborts, and never sleeps after it', async () => {
    const clock = new TestClock(T0);
    const r = retry({ maxAttempts: 5, backoff: constant(50), clock });
    const events = collect(r);
    const ac = new AbortController();
    const op = flaky(clock, 9, 10);
    const run = r.execute(op, { signal: ac.signal }).catch((e) => e);
    await clock.advance(30); // attempt 1 failed at 10, sleeping until 60
    ac.abort(new Error('caller'));
    await clock.runAll();
    expect((await run).message).toBe('caller');
    expect(op.calls()).toBe(1);
    // with no sleep (delay 0) the abort is still seen before the next attempt
    const r0 = retry({ maxAttempts: 5, backoff: constant(0), clock });
    const ac0 = new AbortController();
    let calls = 0;
    const run0 = r0.execute(() => (++calls, ac0.abort(new Error('stop')), Promise.reject(new Error('x'))), { signal: ac0.signal }).catch((e) => e);
    await clock.runAll();
    await run0;
    expect(calls).toBe(1);
  });

  it.each([
    [0, 0],
    [7, 7],
    [-1, 5],
    [Number.NaN, 5],
    ['7', 5],
  ])('a retryAfterMs hint of %s gives a delay of %s (else the backoff)', async (hint, delay) => {
    const clock = new TestClock(T0);
    const r = retry({ maxAttempts: 2, backoff: constant(5), clock });
    const events = collect(r);
    const run = r.execute(flaky(clock, 1, 10, Object.assign(new Error('limited'), { retryAfterMs: hint })));
    await clock.runAll();
    await run;
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ delayMs: delay });
  });

  it.each([
    [0, 0],
    [3, 3],
  ])('a backoff function returning %s sleeps %s ms', async (d, delay) => {
    const clock = new TestClock(T0);
    const r = retry({ maxAttempts: 2, backoff: () => d, clock });
    const events = collect(r);
    const run = r.execute(flaky(clock, 1, 10));
    await clock.runAll();
    await run;
    expect(events.find((e) => e.type === 'retry')).toMatchObject({ delayMs: delay });
  });

  it('maxAttempts and reconfigure', async () => {
    const clock = new TestClock(T0);
    const r = retry({ maxAttempts: 2, backoff: constant(1), clock });
    expect(r.maxAttempts).toBe(2);
    r.reconfigure({ maxAttempts: 4, backoff: constant(1) });
    expect(r.maxAttempts).toBe(4);
    const op = flaky(clock, 3, 1);
    const run = r.execute(op);
    await clock.runAll();
    await expect(run).resolves.toBe('ok');
    expect(op.calls()).toBe(4);
    expect(() => r.reconfigure({ maxAttempts: 0 })).toThrow(ConfigError);
    expect(() => r.reconfigure({ clock } as never)).toThrow(ConfigError);
    expect(() => r.reconfigure({ random: Math.random } as never)).toThrow(ConfigError);
    expect(() => r.reconfigure({ name: 'other' } as never)).toThrow(ConfigError);
    expect(r.maxAttempts).toBe(4);
    expect(() => retry({ maxAttempts: 0 })).toThrow(expect.objectContaining({ policy: 'retry' }));
  });
});

describe('timeout: events and boundaries', () => {
  it('ms, mode, reconfigure (number or options), and the name in errors', async () => {
    const t = timeout({ ms: 10, mode: 'cooperative' });
    expect([t.ms, t.mode]).toEqual([10, 'cooperative']);
    t.reconfigure(20);
    expect([t.ms, t.mode]).toEqual([20, 'aggressive']);
    t.reconfigure({ ms: 30, mode: 'cooperative' });
    expect([t.ms, t.mode]).toEqual([30, 'cooperative']);
    expect(() => t.reconfigure({ ms: 5, name: 'x' } as never)).toThrow(ConfigError);
    expect(() => t.reconfigure(-1)).toThrow(expect.objectContaining({ policy: 'timeout' }));
    expect([t.ms, t.mode]).toEqual([30, 'cooperative']);
    expect(() => timeout(0)).toThrow(expect.objectContaining({ policy: 'timeout' }));
  });

  it('reports success, failure and timeout outcomes with durations', async () => {
    const clock = new TestClock(T0);
    const t = timeout({ ms: 50, clock, name: 't' });
    const events = collect(t);
    const ok = t.execute(() => new Promise((r) => clock.setTimeout(() => r('ok'), 10)));
    await clock.advance(10);
    await ok;
    const boom = new Error('boom');
    const bad = t.execute(() => new Promise((_, no) => clock.setTimeout(() => no(boom), 20))).catch((e) => e);
    await clock.advance(20);
    await bad;
    const sync = new Error('sync');
    await expect(t.execute(() => { throw sync; })).rejects.toBe(sync);
    const slow = t.execute(() => new Promise(() => {})).catch((e) => e);
    await clock.advance(50);
    expect(await slow).toBeInstanceOf(TimeoutError);
    expect(events).toEqual([
      { type: 'outcome', policy: 't', result: 'success', durationMs: 10, error: undefined },
      { type: 'outcome', policy: 't', result: 'failure', durationMs: 20, error: boom },
      { type: 'outcome', policy: 't', result: 'failure', durationMs: 0, error: sync },
      { type: 'timeout', policy: 't', timeoutMs: 50, mode: 'aggressive' },
      { type: 'outcome', policy: 't', result: 'timeout', durationMs: 50, error: expect.any(TimeoutError) },
    ]);
  });

  it('cooperative: an operation that gives up after the deadline is a TimeoutError caused by its error', async () => {
    const clock = new TestClock(T0);
    const t = timeout({ ms: 20, mode: 'cooperative', clock });
    const events = collect(t);
    const late = new Error('late');
    const run = t.execute((ctx) => new Promise((_, no) => ctx.signal.addEventListener('abort', () => clock.setTimeout(() => no(late), 5)))).catch((e) => e);
    await clock.advance(30);
    const e = await run;
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as Error).cause).toBe(late);
    expect(events.map((x) => x.type)).toEqual(['timeout', 'outcome']);
  });

  it('an enclosing deadline at or before its own makes it add nothing (same TimeoutError source)', async () => {
    const clock = new TestClock(T0);
    const inner = timeout({ ms: 50, clock, name: 'inner' });
    const events = collect(inner);
    // enclosing deadline exactly at inner's: inner arms nothing and reports only the call's outcome
    const run = policy({ clock }).use(inner).execute(() => new Promise(() => {}), { timeout: 50 }).catch((e) => e);
    expect(deadlineTimerOf(clock).size).toBe(1);
    await clock.advance(50);
    expect(await run).toBeInstanceOf(TimeoutError);
    expect(events).toEqual([{ type: 'outcome', policy: 'inner', result: 'timeout', durationMs: 50, error: await run }]);
    events.length = 0;
    // a later enclosing deadline: inner governs and reports
    const run2 = policy({ clock }).use(inner).execute(() => new Promise(() => {}), { timeout: 51 }).catch((e) => e);
    await clock.advance(51);
    expect(await run2).toBeInstanceOf(TimeoutError);
    expect(events.map((x) => x.type)).toEqual(['timeout', 'outcome']);
  });
});

describe('sreBreaker: from the survivors', () => {
  it('reports isolation and reset as state changes with their reasons', async () => {
    const { sreBreaker } = await import('../../api/index.js');
    const b = sreBreaker({ clock: new TestClock(T0) });
    const events = collect(b);
    const h = b.isolate();
    b.reset();
    h.dispose();
    expect(events.filter((e) => e.type === 'stateChange')).toEqual([
      { type: 'stateChange', policy: 'breaker', from: 'closed', to: 'open', reason: 'isolated', figure: undefined },
      { type: 'stateChange', policy: 'breaker', from: 'open', to: 'closed', reason: 'reset', figure: undefined },
    ]);
  });

  it('reconfigure keeps clock and random, and names what cannot change', async () => {
    const { sreBreaker } = await import('../../api/index.js');
    let t = T0;
    let draws = 0;
    const clock = { now: () => t, setTimeout: () => 0, clearTimeout: () => {} };
    const b = sreBreaker({ clock, random: () => (draws++, 0), protection: 0, forcePassMs: 1e9, windowMs: 1_000, buckets: 10 });
    b.reconfigure({ protection: 0, forcePassMs: 1e9, windowMs: 1_000, buckets: 10 });
    let shed = 0;
    for (let i = 0; i < 8; i++) {
      try {
        b.allow().failure();
      } catch (e) {
        expect(e).toBeInstanceOf(BrokenCircuitError);
        shed++;
      }
      t += 1; // the injected clock is still the one read
    }
    expect(shed).toBeGreaterThan(0);
    expect(draws).toBe(shed); // the injected random (always 0) decided every shed
    try {
      b.reconfigure({ windowMs: 2_000, buckets: 10 });
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).issues).toEqual([{ path: 'windowMs', message: expect.stringContaining('cannot change in place') }]);
    }
    expect(() => sreBreaker({ k: -1 })).toThrow(expect.objectContaining({ policy: 'breaker' }));
  });
});

describe('circuitBreaker: from the survivors', () => {
  it('isolate/reset reasons, reconfigure refusing shape changes, a restored isolation reported as such', async () => {
    const { circuitBreaker } = await import('../../api/index.js');
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'errorRatio', clock });
    const events = collect(b);
    b.isolate();
    const restored = circuitBreaker({ strategy: 'errorRatio', clock, initialState: JSON.parse(JSON.stringify(b.snapshot())) });
    expect(restored.snapshot()).toMatchObject({ isolated: true, state: 'open', retryAt: null });
    b.reset();
    expect(events.filter((e) => e.type === 'stateChange').map((e) => (e as { reason: string }).reason)).toEqual(['isolated', 'reset']);
    for (const change of [{ strategy: 'errorCount' }, { strategy: 'errorRatio', windowMs: 20_000 }, { strategy: 'errorRatio', buckets: 20 }]) {
      try {
        b.reconfigure(change as never);
        expect.unreachable();
      } catch (e) {
        expect((e as ConfigError).issues[0]).toMatchObject({ path: Object.keys(change).find((k) => k !== 'strategy') ?? 'strategy', message: expect.stringContaining('cannot change in place') });
      }
    }
    expect(() => circuitBreaker({ strategy: 'errorRatio', threshold: 2 })).toThrow(expect.objectContaining({ policy: 'circuitBreaker' }));
  });
});
