import { getEventListeners } from 'node:events';
import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { deadlineTimerOf } from '../../lib/clock.js';
import { Context, runNext, Scope } from '../../lib/context.js';
import { pipe } from '../../lib/pipe.js';
import { RUN, type Policy } from '../../lib/policy.js';
import { constant, fallback, retry, sreBreaker, timeout } from '../../lib/index.js';
import { TimeoutError } from '../../lib/errors.js';
import { TestClock } from '../../lib/testing.js';

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
