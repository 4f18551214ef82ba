import { getEventListeners } from 'node:events';
import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { deadlineTimerOf, systemClock } from '../../lib/clock.js';
import { cancelledByCaller, Context, executeWith, Guard, hardAborted, isTimeoutReason, RACE_ALL, RACE_CALLER, RACE_OWN, runNext, Scope, toContext } from '../../lib/context.js';
import { pipe } from '../../lib/pipe.js';
import { RUN, type ExecutionContext, type Policy } from '../../lib/policy.js';
import { circuitBreaker, constant, fallback, policy, retry, sreBreaker, timeout, type PolicyEvent } from '../../api/index.js';
import { ConfigError, TimeoutError } from '../../lib/errors.js';
import { TestClock } from '../../lib/testing.js';
import { deferred, rejection, track } from '../helpers/track.js';

const START = 1_700_000_000_000;

describe('Scope', () => {
  it('a scope made under a cooperatively aborted parent still hears a later hard abort', () => {
    const ac = new AbortController();
    const root = new Scope(undefined, ac.signal, Infinity, undefined, 'root', false);
    const coop = new Scope(root, undefined, Infinity, undefined, 'coop', true);
    coop.abort(new TimeoutError('coop'), false, true);
    const late = new Scope(coop, undefined, Infinity, undefined, 'late', false);
    expect(late.aborted && late.cooperative).toBe(true);
    const reason = new Error('caller');
    ac.abort(reason);
    expect(late.cooperative).toBe(false);
    expect(late.reason).toBe(reason);
    expect(late.byCaller).toBe(true);
  });

  it('makes the AbortSignal only when read, and aborts it with the reason', async () => {
    const clock = new TestClock(START);
    const scope = new Scope(undefined, undefined, START + 10, deadlineTimerOf(clock), 'deadline', false);
    const ctx = new Context(clock, scope, START + 10, 1, undefined, {});
    await clock.advance(10);
    expect(scope.aborted).toBe(true);
    expect(ctx.signal.aborted).toBe(true);
    expect(ctx.signal.reason).toBeInstanceOf(TimeoutError);
  });

  it('dispose removes its listener from the caller signal and its timer entry', () => {
    const clock = new TestClock(START);
    const ac = new AbortController();
    const timer = deadlineTimerOf(clock);
    const scope = new Scope(undefined, ac.signal, START + 100, timer, 'x', false);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    expect(timer.size).toBe(1);
    scope.dispose();
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    expect(timer.size).toBe(0);
  });
});

describe('toContext: a context a user policy makes', () => {
  /** A user policy that narrows the deadline by spreading the context it got. */
  const narrowing = (ms: number): Policy<never> => ({
    name: 'narrowing',
    events$: EMPTY,
    execute: () => Promise.reject(new Error('only in a pipeline')),
    [RUN]: (op, ctx, next) => runNext(op, { ...ctx, deadline: ctx.clock.now() + ms }, next),
  });

  it('its nearer deadline is enforced: an inner timeout that defers to it still ends the call', async () => {
    const clock = new TestClock(START);
    const p = pipe(timeout({ ms: 60, clock }), narrowing(40));
    let deadline: number | undefined;
    const run = p.execute((ctx) => ((deadline = ctx.deadline), new Promise<string>(() => {})));
    const check = expect(run).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(40);
    await check;
    expect(deadline).toBe(START + 40);
  });

  it('every policy inside gets a usable context: a breaker, a fallback and a retry', async () => {
    const clock = new TestClock(START);
    const p = pipe(retry({ maxAttempts: 2, backoff: constant(0), clock }), sreBreaker({ clock }), fallback(() => 'fallback'), narrowing(1_000));
    let attempts = 0;
    await expect(p.execute(() => (attempts++, Promise.reject(new Error('down'))))).resolves.toBe('fallback');
    expect(attempts).toBe(2);
  });

  it("a spread context keeps the caller's abort", async () => {
    const clock = new TestClock(START);
    const p = pipe(timeout({ ms: 60, clock }), narrowing(1_000));
    const ac = new AbortController();
    let signal: AbortSignal | undefined;
    const run = p.execute((ctx) => ((signal = ctx.signal), new Promise<string>(() => {})), { signal: ac.signal });
    const check = expect(run).rejects.toThrow('caller gone');
    await clock.advance(10);
    ac.abort(new Error('caller gone'));
    await check;
    expect(signal!.aborted).toBe(true);
  });
});

describe('toContext: a user policy innermost, or one that builds its own context', () => {
  /** A user policy that hands the rest of the chain a context of its own making. */
  const userPolicy = (run: Policy<never>[typeof RUN]): Policy<never> => ({
    name: 'user',
    events$: EMPTY,
    execute: () => Promise.reject(new Error('only in a pipeline')),
    [RUN]: run,
  });

  it('innermost, a spread context still gives the operation a real signal and enforces the narrowed deadline', async () => {
    const clock = new TestClock(START);
    const narrowing = userPolicy((op, ctx, next) => runNext(op, { ...ctx, deadline: ctx.clock.now() + 40 }, next));
    const p = pipe(narrowing, timeout({ ms: 60, clock }));
    let seen: ExecutionContext | undefined;
    const run = track(p.execute((ctx) => ((seen = ctx), new Promise<string>(() => {}))), clock);
    await clock.advance(40);
    expect(await rejection(run)).toBeInstanceOf(TimeoutError);
    expect(seen!.signal).toBeInstanceOf(AbortSignal);
    expect(seen!.signal.aborted).toBe(true);
    expect(seen!.deadline).toBe(START + 40);
    expect(clock.pendingTimers).toBe(0);
  });

  it('cannot show the operation a deadline later than the enclosing one, spread or built by hand', async () => {
    const clock = new TestClock(START);
    const deadlines: (number | undefined)[] = [];
    const later = userPolicy((op, ctx, next) => runNext(op, { ...ctx, deadline: ctx.clock.now() + 5_000 }, next));
    const none = userPolicy((op, ctx, next) => runNext(op, { ...ctx, deadline: undefined }, next));
    const byHand = userPolicy((op, ctx, next) =>
      runNext(op, { signal: ctx.signal, deadline: undefined, attempt: ctx.attempt, key: ctx.key, meta: ctx.meta, clock: ctx.clock }, next),
    );
    for (const user of [later, none, byHand]) {
      const run = track(pipe(user, timeout({ ms: 100, clock })).execute((ctx) => (deadlines.push(ctx.deadline), new Promise(() => {}))), clock);
      await clock.advance(100);
      expect(await rejection(run)).toBeInstanceOf(TimeoutError);
    }
    expect(deadlines).toEqual([START + 100, START + 200, START + 300]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a narrowed deadline leaves no timer behind once the call has settled early', async () => {
    const clock = new TestClock(START);
    const narrowing = userPolicy((op, ctx, next) => runNext(op, { ...ctx, deadline: ctx.clock.now() + 1_000 }, next));
    await expect(pipe(retry({ maxAttempts: 1, clock }), narrowing).execute(() => 'ok')).resolves.toBe('ok');
    expect(clock.pendingTimers).toBe(0);
    expect(deadlineTimerOf(clock).size).toBe(0);
  });
});

describe('runNext', () => {
  it('does not start the operation once the caller has given up, even when a policy calls it late', async () => {
    const clock = new TestClock(START);
    const gate = deferred();
    // a user policy that awaits something of its own before calling on
    const slow: Policy<never> = {
      name: 'slow',
      events$: EMPTY,
      execute: () => Promise.reject(new Error('only in a pipeline')),
      [RUN]: async (op, ctx, next) => {
        await gate.promise;
        return runNext(op, ctx, next);
      },
    };
    const ac = new AbortController();
    let ran = 0;
    const run = track(pipe(slow).execute(() => ++ran, { signal: ac.signal }), clock);
    ac.abort(new Error('caller gone'));
    gate.resolve();
    expect(await rejection(run)).toMatchObject({ message: 'caller gone' });
    await clock.advance(0);
    expect(ran).toBe(0);
  });
});

describe('executeWith: the options of one call', () => {
  it("the operation sees the caller's very signal when nothing else can abort the call; under a deadline, breakwater's, which the deadline aborts", async () => {
    const clock = new TestClock(START);
    const ac = new AbortController();
    const signals: AbortSignal[] = [];
    const op = (ctx: ExecutionContext) => (signals.push(ctx.signal), new Promise<never>(() => {}));
    // A policy that only runs the operation.
    const bare = { name: 'bare', events$: EMPTY, execute: () => Promise.reject(new Error('unused')), [RUN]: runNext } as Policy<never>;
    const free = track(executeWith(bare, op, { signal: ac.signal }, clock), clock);
    const bounded = track(executeWith(bare, op, { signal: ac.signal, timeout: 50 }, clock), clock);
    await clock.advance(0);
    expect(signals[0]).toBe(ac.signal);
    expect(signals[1]).not.toBe(ac.signal);
    await clock.advance(50);
    expect(await rejection(bounded)).toBeInstanceOf(TimeoutError);
    expect(signals[1]!.aborted).toBe(true);
    expect(signals[1]!.reason).toBeInstanceOf(TimeoutError);
    expect(free.now).toBeUndefined();
    ac.abort(new Error('done'));
    expect(await rejection(free)).toHaveProperty('message', 'done');
  });

  const clock = () => new TestClock(START);

  it('a deadline already past, or timeout 0, rejects with a TimeoutError and runs nothing', async () => {
    for (const options of [{ deadline: START - 1 }, { deadline: START }, { timeout: 0 }, { timeout: 0, deadline: START + 100 }]) {
      const c = clock();
      let ran = 0;
      const events: PolicyEvent[] = [];
      const p = policy({ clock: c }).retry({ maxAttempts: 3 }).fallback(() => 'fallback');
      p.events$.subscribe((e) => events.push(e));
      const error = await p.execute(() => ++ran, options).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(options)).toBeInstanceOf(TimeoutError);
      expect(ran).toBe(0);
      expect(events).toEqual([]);
      expect(c.pendingTimers).toBe(0);
    }
  });

  it('a bad timeout, deadline, signal, key or meta rejects with a ConfigError naming it (never a synchronous throw)', async () => {
    const ms = 'expected a finite number of milliseconds >= 0, got';
    const at = 'expected a finite clock time in epoch milliseconds >= 0, got';
    const listens = { aborted: false, addEventListener: () => undefined, removeEventListener: () => undefined };
    const cases: [unknown, string, string][] = [
      [{ timeout: -5 }, 'execute.timeout', `${ms} -5`],
      [{ timeout: '100' }, 'execute.timeout', `${ms} the string '100'`],
      [{ timeout: Number.NaN }, 'execute.timeout', `${ms} NaN`],
      [{ timeout: Infinity }, 'execute.timeout', `${ms} Infinity`],
      [{ timeout: null }, 'execute.timeout', `${ms} null`],
      [{ deadline: -1 }, 'execute.deadline', `${at} -1`],
      [{ deadline: '2026-01-01' }, 'execute.deadline', `${at} the string '2026-01-01'`],
      [{ deadline: Infinity }, 'execute.deadline', `${at} Infinity`],
      [{ deadline: Number.NaN }, 'execute.deadline', `${at} NaN`],
      [{ deadline: {} }, 'execute.deadline', `${at} an object`],
      [{ signal: {} }, 'execute.signal', 'expected an AbortSignal, got an object'],
      [{ signal: null }, 'execute.signal', 'expected an AbortSignal, got null'],
      [{ signal: { ...listens, aborted: 'no' } }, 'execute.signal', 'expected an AbortSignal, got an object'],
      [{ signal: { ...listens, addEventListener: 1 } }, 'execute.signal', 'expected an AbortSignal, got an object'],
      [{ signal: { ...listens, removeEventListener: undefined } }, 'execute.signal', 'expected an AbortSignal, got an object'],
      [{ key: 42 }, 'execute.key', 'expected a string, got 42'],
      [{ meta: 'tenant' }, 'execute.meta', "expected an object of string labels, got the string 'tenant'"],
      [{ meta: null }, 'execute.meta', 'expected an object of string labels, got null'],
      [null, 'execute', 'expected an object of execute options, got null'],
      ['fast', 'execute', "expected an object of execute options, got the string 'fast'"],
    ];
    for (const [options, path, message] of cases) {
      let ran = 0;
      let result: Promise<unknown> | undefined;
      expect(() => (result = timeout({ ms: 100, clock: clock() }).execute(() => ++ran, options as never))).not.toThrow();
      const error = await result!.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, JSON.stringify(options)).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues, JSON.stringify(options)).toEqual([{ path, message }]);
      expect(ran).toBe(0);
    }
  });

  it('takes any object shaped like an AbortSignal, and hands meta and key to the operation', async () => {
    const c = clock();
    const listeners: unknown[] = [];
    const likeSignal = { aborted: false, reason: undefined, addEventListener: (_: string, l: unknown) => listeners.push(l), removeEventListener: () => listeners.pop() };
    let seen: ExecutionContext | undefined;
    const value = await policy({ clock: c })
      .retry()
      .execute((ctx) => ((seen = ctx), 'ok'), { signal: likeSignal as unknown as AbortSignal, timeout: 50, key: 'k1', meta: { tenant: 't' } });
    expect(value).toBe('ok');
    expect([seen!.key, seen!.meta, seen!.deadline]).toEqual(['k1', { tenant: 't' }, START + 50]);
    expect(listeners).toEqual([]);
  });

  it('a caller signal aborted before the call: the policy runs nothing and reports nothing', async () => {
    const c = clock();
    const events: PolicyEvent[] = [];
    const p = policy({ clock: c }).retry({ maxAttempts: 3 }).breaker();
    p.events$.subscribe((e) => events.push(e));
    const gone = new Error('gone');
    await expect(p.execute(() => 1, { signal: AbortSignal.abort(gone) })).rejects.toBe(gone);
    expect(events).toEqual([]);
  });

  it('with both a deadline and a timeout, the nearer governs', async () => {
    for (const [options, expected] of [
      [{ deadline: START + 100, timeout: 500 }, START + 100],
      [{ deadline: START + 500, timeout: 100 }, START + 100],
    ] as const) {
      const c = clock();
      let deadline: number | undefined;
      const run = track(policy({ clock: c }).retry({ maxAttempts: 1 }).execute((ctx) => ((deadline = ctx.deadline), new Promise(() => {})), options), c);
      await c.advance(99);
      expect(run.now).toBeUndefined();
      await c.advance(1);
      expect(await rejection(run)).toBeInstanceOf(TimeoutError);
      expect(deadline).toBe(expected);
    }
  });
});

describe('a caller signal that aborts with a timeout reason (AbortSignal.timeout)', () => {
  /** What `AbortSignal.timeout(ms)` aborts with when it fires. */
  const timedOut = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');

  it('rejects with a breakwater TimeoutError whose cause is the reason', async () => {
    const c = new TestClock(START);
    const ac = new AbortController();
    const run = track(policy({ clock: c }).retry({ maxAttempts: 3 }).execute(() => new Promise(() => {}), { signal: ac.signal }), c);
    const reason = timedOut();
    ac.abort(reason);
    const error = await rejection(run);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).cause).toBe(reason);
    // already aborted before the call: the same, and nothing runs
    let ran = 0;
    const before = await policy({ clock: c }).retry().execute(() => ++ran, { signal: AbortSignal.abort(reason) }).catch((e: unknown) => e);
    expect(before).toBeInstanceOf(TimeoutError);
    expect((before as Error).cause).toBe(reason);
    expect(ran).toBe(0);
  });

  it('counts as a timeout failure in a breaker, ends retrying with reason deadline, and a fallback answers it', async () => {
    const c = new TestClock(START);
    const breaker = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock: c });
    const r = retry({ maxAttempts: 3, backoff: constant(10), clock: c });
    const events: PolicyEvent[] = [];
    const p = pipe(r, breaker, fallback((error, ctx) => (ctx.signal.aborted && error instanceof TimeoutError ? 'answered' : 'wrong')));
    p.events$.subscribe((e) => events.push(e));
    const ac = new AbortController();
    const run = track(p.execute(() => new Promise(() => {}), { signal: ac.signal }), c);
    await c.advance(5);
    ac.abort(timedOut());
    expect(await run.settled).toMatchObject({ ok: true, value: 'answered' });
    expect(breaker.state).toBe('open');
    expect(events.filter((e) => e.type === 'giveUp')).toMatchObject([{ reason: 'deadline', attempts: 1 }]);
    expect(events.find((e) => e.type === 'outcome' && e.policy === breaker.name)).toMatchObject({ result: 'timeout' });
  });

  it("any other reason stays the caller's own cancellation: nothing recorded, nothing answered", async () => {
    const c = new TestClock(START);
    const breaker = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock: c });
    const p = pipe(breaker, fallback(() => 'answered'));
    const ac = new AbortController();
    const run = track(p.execute(() => new Promise(() => {}), { signal: ac.signal }), c);
    ac.abort(new DOMException('shutting down', 'AbortError'));
    expect(await rejection(run)).toMatchObject({ name: 'AbortError' });
    expect(breaker.state).toBe('closed');
  });

  it('ctx.deadline is not derived from such a signal', async () => {
    const c = new TestClock(START);
    let deadline: number | undefined = 0;
    await policy({ clock: c }).retry().execute((ctx) => ((deadline = ctx.deadline), 1), { signal: new AbortController().signal });
    expect(deadline).toBeUndefined();
  });
});

describe('a caller signal shared by many calls', () => {
  it('gets at most one listener from breakwater however many calls share it, and none once they settle', async () => {
    const c = new TestClock(START);
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const shutdown = new AbortController();
      const p = policy({ clock: c }).timeout(1_000).retry({ maxAttempts: 2 });
      const gates = Array.from({ length: 500 }, () => deferred<number>());
      const runs = gates.map((g) => p.execute(() => g.promise, { signal: shutdown.signal, timeout: 5_000 }));
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
      gates.forEach((g, i) => g.resolve(i));
      expect(await Promise.all(runs)).toEqual(gates.map((_, i) => i));
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
      // and all of them still hear it when it aborts
      const hanging = Array.from({ length: 50 }, () => track(p.execute(() => new Promise(() => {}), { signal: shutdown.signal }), c));
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
      shutdown.abort(new Error('shutdown'));
      for (const h of hanging) expect(await rejection(h)).toMatchObject({ message: 'shutdown' });
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('Scope: deadlines of the chain', () => {
  it('limit is the earliest deadline of the chain, hardLimit the earliest aggressive one', () => {
    const clock = new TestClock(START);
    const timer = deadlineTimerOf(clock);
    const root = new Scope(undefined, undefined, START + 500, timer, 'root', false);
    const coop = new Scope(root, undefined, START + 100, timer, 'coop', true);
    const inner = new Scope(coop, undefined, START + 300, timer, 'inner', false);
    const later = new Scope(inner, undefined, START + 900, timer, 'later', false);
    expect([root.limit, root.hardLimit]).toEqual([START + 500, START + 500]);
    expect([coop.limit, coop.hardLimit]).toEqual([START + 100, START + 500]);
    expect([inner.limit, inner.hardLimit]).toEqual([START + 100, START + 300]);
    expect([later.limit, later.hardLimit]).toEqual([START + 100, START + 300]);
    for (const s of [later, inner, coop, root]) s.dispose();
    expect(timer.size).toBe(0);
  });

  it("a cooperative abort from above keeps a scope's own aggressive deadline armed, which then ends it hard", async () => {
    const clock = new TestClock(START);
    const timer = deadlineTimerOf(clock);
    const coop = new Scope(undefined, undefined, START + 100, timer, 'coop', true);
    const hard = new Scope(coop, undefined, START + 200, timer, 'hard', false);
    await clock.advance(100);
    expect([hard.aborted, hard.cooperative, hard.expired]).toEqual([true, true, false]);
    expect(timer.size).toBe(1);
    await clock.advance(100);
    expect([hard.aborted, hard.cooperative, hard.expired]).toEqual([true, false, true]);
    expect((hard.reason as TimeoutError).policy).toBe('hard');
    expect(timer.size).toBe(0);
    coop.dispose();
  });

  it('knows the signals of its chain: its own, an enclosing one, the caller’s; not another', () => {
    const ac = new AbortController();
    const root = new Scope(undefined, ac.signal, Infinity, undefined, 'root', false);
    const child = new Scope(root, undefined, Infinity, undefined, 'child', false);
    const own = child.signal;
    expect(child.knows(own)).toBe(true);
    expect(child.knows(ac.signal)).toBe(true);
    expect(root.knows(own)).toBe(false);
    expect(child.knows(new AbortController().signal)).toBe(false);
    // a root scope with no deadline of its own hands out the caller's signal itself
    expect(root.signal).toBe(ac.signal);
    child.dispose();
    root.dispose();
  });
});

describe('Context.withScope', () => {
  it('shows the nearer of its deadline and the scope’s', () => {
    const clock = new TestClock(START);
    const scope = (at: number) => new Scope(undefined, undefined, at, undefined, 's', false);
    const ctx = new Context(clock, undefined, START + 100, 2, 'k', { a: 'b' });
    expect(ctx.withScope(scope(START + 50)).deadline).toBe(START + 50);
    expect(ctx.withScope(scope(START + 150)).deadline).toBe(START + 100);
    expect(ctx.withScope(scope(Infinity)).deadline).toBe(START + 100);
    const none = new Context(clock, undefined, undefined, 1, undefined, {});
    expect(none.withScope(scope(Infinity)).deadline).toBeUndefined();
    expect(none.withScope(scope(START + 7)).deadline).toBe(START + 7);
    const moved = ctx.withScope(scope(START + 50));
    expect([moved.attempt, moved.key, moved.meta, moved.clock]).toEqual([2, 'k', { a: 'b' }, clock]);
    expect(ctx.withAttempt(2)).toBe(ctx);
    expect(ctx.withAttempt(3).attempt).toBe(3);
  });
});

describe('toContext: what it keeps of a context it does not know', () => {
  it('keeps attempt, key, meta and clock, and replaces what is not of their kind', () => {
    const clock = new TestClock(START);
    const kept = toContext({ signal: new AbortController().signal, deadline: undefined, attempt: 3, key: 'k', meta: { t: '1' }, clock });
    expect([kept.attempt, kept.key, kept.meta, kept.clock, kept.deadline]).toEqual([3, 'k', { t: '1' }, clock, undefined]);
    const odd = toContext({ deadline: Number.NaN, attempt: 0, key: 5, meta: null, clock: {} } as never);
    expect([odd.attempt, odd.key, odd.meta, odd.clock, odd.deadline, odd.scope]).toEqual([1, undefined, {}, systemClock, undefined, undefined]);
    const ours = new Context(clock, undefined, undefined, 1, undefined, {});
    expect(toContext(ours)).toBe(ours);
  });

  it("links a signal of the user's own beside the spread scope: either aborts the call", async () => {
    const clock = new TestClock(START);
    const mine = new AbortController();
    const withMine: Policy<never> = {
      name: 'mine',
      events$: EMPTY,
      execute: () => Promise.reject(new Error('only in a pipeline')),
      [RUN]: (op, ctx, next) => runNext(op, { ...ctx, signal: mine.signal }, next),
    };
    const caller = new AbortController();
    const run = track(pipe(withMine).execute(() => new Promise(() => {}), { signal: caller.signal }), clock);
    expect(getEventListeners(mine.signal, 'abort')).toHaveLength(1);
    mine.abort(new Error('mine'));
    expect(await rejection(run)).toMatchObject({ message: 'mine' });
    expect(getEventListeners(mine.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(caller.signal, 'abort')).toHaveLength(0);
  });

  it('a user policy that throws synchronously inside an adopted context rejects, leaving nothing behind', async () => {
    const clock = new TestClock(START);
    const narrowing: Policy<never> = {
      name: 'narrowing',
      events$: EMPTY,
      execute: () => Promise.reject(new Error('only in a pipeline')),
      [RUN]: (op, ctx, next) => runNext(op, { ...ctx, deadline: ctx.clock.now() + 50 }, next),
    };
    const throwing: Policy<never> = {
      name: 'throwing',
      events$: EMPTY,
      execute: () => Promise.reject(new Error('only in a pipeline')),
      [RUN]: () => {
        throw new Error('sync');
      },
    };
    await expect(policy({ clock }).use(throwing).use(narrowing).execute(() => 1, { timeout: 1_000 })).rejects.toThrow('sync');
    expect(clock.pendingTimers).toBe(0);
    expect(deadlineTimerOf(clock).size).toBe(0);
  });
});

describe('cancelledByCaller and hardAborted', () => {
  it('read a Context through its scope, and any other context through its signal', () => {
    const clock = new TestClock(START);
    const foreign = (reason: unknown) => ({ signal: AbortSignal.abort(reason), deadline: undefined, attempt: 1, key: undefined, meta: {}, clock });
    expect(cancelledByCaller(foreign(new Error('gone')))).toBe(true);
    expect(cancelledByCaller(foreign(new TimeoutError('t')))).toBe(false);
    expect(cancelledByCaller(foreign(new DOMException('t', 'TimeoutError')))).toBe(false);
    expect(hardAborted(foreign(new Error('gone')))).toBe(true);
    const idle = { ...foreign(undefined), signal: new AbortController().signal };
    expect([cancelledByCaller(idle), hardAborted(idle)]).toEqual([false, false]);
    const ac = new AbortController();
    const scope = new Scope(undefined, ac.signal, Infinity, undefined, 'x', false);
    const ctx = new Context(clock, scope, undefined, 1, undefined, {});
    expect([cancelledByCaller(ctx), hardAborted(ctx)]).toEqual([false, false]);
    ac.abort(new Error('gone'));
    expect([cancelledByCaller(ctx), hardAborted(ctx)]).toEqual([true, true]);
    const coop = new Scope(undefined, undefined, Infinity, undefined, 'c', true);
    coop.abort(new TimeoutError('c'), false, true);
    const coopCtx = new Context(clock, coop, undefined, 1, undefined, {});
    expect([cancelledByCaller(coopCtx), hardAborted(coopCtx)]).toEqual([false, false]);
    const none = new Context(clock, undefined, undefined, 1, undefined, {});
    expect([cancelledByCaller(none), hardAborted(none)]).toEqual([false, false]);
  });

  it('isTimeoutReason: a breakwater TimeoutError or a DOMException named TimeoutError, nothing else', () => {
    expect(isTimeoutReason(new TimeoutError('t'))).toBe(true);
    expect(isTimeoutReason(new DOMException('t', 'TimeoutError'))).toBe(true);
    expect(isTimeoutReason(new DOMException('a', 'AbortError'))).toBe(false);
    expect(isTimeoutReason(Object.assign(new Error('t'), { name: 'TimeoutError' }))).toBe(false);
    expect(isTimeoutReason(undefined)).toBe(false);
  });
});

describe('Guard modes', () => {
  const settleOf = async (mode: number, abort: (s: Scope) => void) => {
    const clock = new TestClock(START);
    const scope = new Scope(undefined, undefined, START + 100, deadlineTimerOf(clock), 'own', false);
    const inner = deferred<string>();
    const guarded = track(new Guard<string>(scope, true, mode).watch(inner.promise), clock);
    abort(scope);
    await clock.advance(0);
    const early = guarded.now;
    inner.resolve('inner');
    return { early, late: await guarded.settled };
  };

  it('RACE_ALL ends at any hard abort; RACE_OWN at its own deadline or the caller; RACE_CALLER at the caller only', async () => {
    const byCaller = (s: Scope) => s.abort(new Error('caller'), true, false);
    const byEnclosing = (s: Scope) => s.abort(new TimeoutError('outer'), false, false);
    const byOwn = (s: Scope) => s.expire();
    const cooperatively = (s: Scope) => s.abort(new TimeoutError('coop'), false, true);
    const ended = async (mode: number, how: (s: Scope) => void) => (await settleOf(mode, how)).early !== undefined;
    expect(await Promise.all([byCaller, byEnclosing, byOwn, cooperatively].map((how) => ended(RACE_ALL, how)))).toEqual([true, true, true, false]);
    expect(await Promise.all([byCaller, byEnclosing, byOwn, cooperatively].map((how) => ended(RACE_OWN, how)))).toEqual([true, false, true, false]);
    expect(await Promise.all([byCaller, byEnclosing, byOwn, cooperatively].map((how) => ended(RACE_CALLER, how)))).toEqual([true, false, false, false]);
    // not raced: the value settles it
    expect((await settleOf(RACE_CALLER, byEnclosing)).late).toMatchObject({ ok: true, value: 'inner' });
  });

  it('a guard an abort has settled hands the value nothing when it settles later', async () => {
    const clock = new TestClock(START);
    const seen: unknown[] = [];
    class Mapped<R> extends Guard<R> {
      protected override settleOk(value: R): void {
        seen.push(['ok', value]);
        super.settleOk(value);
      }
      protected override settleErr(error: unknown): void {
        seen.push(['err', error]);
        super.settleErr(error);
      }
    }
    for (const end of ['resolve', 'reject'] as const) {
      const scope = new Scope(undefined, undefined, Infinity, undefined, 's', false);
      const inner = deferred<string>();
      const guarded = track(new Mapped<string>(scope, false, RACE_ALL).watch(inner.promise), clock);
      scope.abort(new Error('caller'), true, false);
      expect(await rejection(guarded)).toHaveProperty('message', 'caller');
      if (end === 'resolve') inner.resolve('late');
      else inner.reject(new Error('late'));
      await clock.advance(0);
    }
    expect(seen).toEqual([]);
  });

  it('a scope already aborted when watching starts: raced at once, or left to the value', async () => {
    const clock = new TestClock(START);
    const scope = new Scope(undefined, undefined, Infinity, undefined, 's', false);
    scope.abort(new TimeoutError('outer'), false, false);
    const raced = track(new Guard<string>(scope, false, RACE_ALL).watch(Promise.reject(new Error('late'))), clock);
    const left = track(new Guard<string>(scope, false, RACE_CALLER).watch(Promise.resolve('value')), clock);
    expect(await rejection(raced)).toBeInstanceOf(TimeoutError);
    expect(await left.settled).toMatchObject({ ok: true, value: 'value' });
  });
});

describe('Scope: listeners and repeated aborts', () => {
  it('a child removed from the middle of its parent’s listeners hears nothing; the others do', () => {
    const parent = new Scope(undefined, undefined, Infinity, undefined, 'p', false);
    const kids = [0, 1, 2, 3].map((i) => new Scope(parent, undefined, Infinity, undefined, `k${i}`, false));
    kids[1]!.dispose();
    kids[2]!.dispose();
    parent.abort(new Error('stop'), true, false);
    expect(kids.map((k) => k.aborted)).toEqual([true, false, false, true]);
  });

  it('removing a listener it never had changes nothing; the others still hear the abort', () => {
    const scope = new Scope(undefined, undefined, Infinity, undefined, 's', false);
    const heard: string[] = [];
    const listener = (name: string) => ({ onAbort: () => heard.push(name) });
    const [a, b, c] = [listener('a'), listener('b'), listener('c')];
    scope.add(a);
    scope.add(b);
    scope.add(c);
    scope.remove(listener('stranger'));
    scope.remove(b);
    scope.remove(b);
    scope.abort(new Error('stop'), true, false);
    expect(heard.sort()).toEqual(['a', 'c']);
  });

  it('keeps its first hard reason; a cooperative abort can only be hardened, never repeated', () => {
    const scope = new Scope(undefined, undefined, Infinity, undefined, 's', false);
    const seen: unknown[] = [];
    scope.add({ onAbort: (s) => seen.push([s.reason, s.cooperative]) });
    const ask = new TimeoutError('ask');
    scope.abort(ask, false, true);
    scope.abort(new TimeoutError('ask again'), false, true);
    expect(seen).toEqual([[ask, true]]);
    const hard = new Error('hard');
    scope.abort(hard, true, false);
    scope.abort(new Error('later'), true, false);
    expect([scope.reason, scope.byCaller, scope.cooperative]).toEqual([hard, true, false]);
  });

  it('a guard that saw a cooperative abort still settles at a later hard one', async () => {
    const clock = new TestClock(START);
    const scope = new Scope(undefined, undefined, Infinity, undefined, 's', false);
    const guarded = track(new Guard<string>(scope, true, RACE_ALL).watch(new Promise(() => {})), clock);
    scope.abort(new TimeoutError('ask'), false, true);
    await clock.advance(0);
    expect(guarded.now).toBeUndefined();
    scope.abort(new Error('hard'), true, false);
    expect(await rejection(guarded)).toMatchObject({ message: 'hard' });
  });

  it('a shared caller signal keeps its one listener while any call is pending, and reaches those left', async () => {
    const c = new TestClock(START);
    const shared = new AbortController();
    const p = policy({ clock: c }).retry({ maxAttempts: 1 });
    const gates = [0, 1, 2, 3].map(() => deferred<number>());
    const runs = gates.map((g) => track(p.execute(() => g.promise, { signal: shared.signal }), c));
    gates[0]!.resolve(0);
    gates[1]!.resolve(1);
    await c.advance(0);
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(1);
    shared.abort(new Error('shutdown'));
    expect(await runs[0]!.settled).toMatchObject({ ok: true, value: 0 });
    expect(await rejection(runs[2]!)).toMatchObject({ message: 'shutdown' });
    expect(await rejection(runs[3]!)).toMatchObject({ message: 'shutdown' });
    expect(getEventListeners(shared.signal, 'abort')).toHaveLength(0);
  });

  it("the operation's signal under a user's own signal aborts with either it or the caller's", async () => {
    const clock = new TestClock(START);
    const mine = new AbortController();
    const withMine: Policy<never> = {
      name: 'mine',
      events$: EMPTY,
      execute: () => Promise.reject(new Error('only in a pipeline')),
      [RUN]: (op, ctx, next) => runNext(op, { ...ctx, signal: mine.signal }, next),
    };
    const caller = new AbortController();
    let signal: AbortSignal | undefined;
    const run = track(pipe(withMine).execute((ctx) => ((signal = ctx.signal), new Promise(() => {})), { signal: caller.signal }), clock);
    expect(signal).not.toBe(mine.signal);
    caller.abort(new Error('caller'));
    expect(await rejection(run)).toMatchObject({ message: 'caller' });
    expect(signal!.aborted).toBe(true);
    expect(getEventListeners(mine.signal, 'abort')).toHaveLength(0);
  });
});
