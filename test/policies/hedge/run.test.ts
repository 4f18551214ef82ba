import { describe, expect, it } from 'vitest';
import { deadlineTimerOf } from '../../../lib/clock.js';
import { Context, Scope } from '../../../lib/context.js';
import { OverloadedError } from '../../../lib/errors.js';
import type { ExecutionContext, Operation } from '../../../lib/policy.js';
import { TestClock } from '../../../lib/testing.js';
import { HedgeRun, type HedgeOwner } from '../../../policies/hedge/run.js';

const T0 = 1_700_000_000_000;

interface Tuning {
  maxHedged?: number;
  delay?: number | ((n: number) => number);
  handle?: (e: unknown) => boolean;
  handleResult?: (r: unknown) => boolean;
}

/** A hedge policy stand-in on `clock`: its tuning, and a log of what the run reports. */
function owner(clock: TestClock, t: Tuning = {}) {
  const log: unknown[][] = [];
  const delay = t.delay ?? 20;
  const o: HedgeOwner = {
    name: 'hedge',
    maxHedged: t.maxHedged ?? 1,
    clock,
    timer: deadlineTimerOf(clock),
    handle: t.handle,
    handleResult: t.handleResult,
    delayFor: (n: number, _ctx: ExecutionContext) => (typeof delay === 'number' ? delay : delay(n)),
    hedged: (attempt, delayMs) => void log.push(['hedged', attempt, delayMs]),
    won: (attempt) => void log.push(['won', attempt]),
    settled: (start, won, thrown, outcome, scope) => void log.push(['settled', start, won, thrown, outcome, scope]),
  };
  return { o, log };
}

/** A run whose attempts are held: answer or fail each by its number. */
function held(clock: TestClock, t: Tuning = {}, scope?: Scope) {
  const { o, log } = owner(clock, t);
  const attempts: { ctx: ExecutionContext; resolve: (v: unknown) => void; reject: (e: unknown) => void }[] = [];
  const op: Operation<unknown> = (ctx) => new Promise((resolve, reject) => attempts.push({ ctx, resolve, reject }));
  const ctx = new Context(clock, scope, undefined, 1, 'k', { m: '1' });
  const run = new HedgeRun(o, op, ctx, undefined, T0);
  const promise = run.begin();
  const settled = promise.then(
    (value) => ({ ok: true, value }),
    (error: unknown) => ({ ok: false, error }),
  );
  return { log, attempts, settled, scope };
}

describe('HedgeRun', () => {
  it('a primary that answers before the delay wins alone: no hedge, the timer is disarmed', async () => {
    const clock = new TestClock(T0);
    const r = held(clock);
    expect(r.attempts).toHaveLength(1);
    r.attempts[0]!.resolve('v');
    expect(await r.settled).toEqual({ ok: true, value: 'v' });
    expect(r.log).toEqual([['won', 1], ['settled', T0, true, false, 'v', undefined]]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('after the delay a hedge starts beside the primary; the first answer wins and the loser is aborted', async () => {
    const clock = new TestClock(T0);
    const r = held(clock);
    await clock.advance(20);
    expect(r.attempts).toHaveLength(2);
    expect(r.log).toEqual([['hedged', 2, 20]]);
    r.attempts[1]!.resolve('hedge');
    expect(await r.settled).toEqual({ ok: true, value: 'hedge' });
    expect(r.log.slice(1)).toEqual([['won', 2], ['settled', T0, true, false, 'hedge', undefined]]);
    const primary = r.attempts[0]!.ctx.signal;
    expect(primary.aborted).toBe(true);
    expect((primary.reason as DOMException).name).toBe('AbortError');
    expect((primary.reason as DOMException).message).toBe('another hedged attempt won');
    expect(r.attempts[1]!.ctx.signal.aborted).toBe(false);
  });

  it('each attempt carries the call’s key and meta, and an attempt number after the call’s own', async () => {
    const clock = new TestClock(T0);
    const r = held(clock, { delay: 0, maxHedged: 2 });
    expect(r.attempts.map((a) => [a.ctx.attempt, a.ctx.key, a.ctx.meta])).toEqual([
      [1, 'k', { m: '1' }],
      [2, 'k', { m: '1' }],
      [3, 'k', { m: '1' }],
    ]);
    // a delay of 0 starts every hedge at once
    expect(r.log).toEqual([['hedged', 2, 0], ['hedged', 3, 0]]);
    r.attempts[2]!.resolve('third');
    expect(await r.settled).toEqual({ ok: true, value: 'third' });
  });

  it('a handled failure starts the next hedge at once; when every allowed attempt failed, the last failure is thrown', async () => {
    const clock = new TestClock(T0);
    const r = held(clock, { delay: Infinity, maxHedged: 2 });
    r.attempts[0]!.reject(new Error('1'));
    await clock.advance(0);
    r.attempts[1]!.reject(new Error('2'));
    await clock.advance(0);
    const last = new Error('3');
    r.attempts[2]!.reject(last);
    expect(await r.settled).toEqual({ ok: false, error: last });
    expect(r.log).toEqual([['hedged', 2, 0], ['hedged', 3, 0], ['settled', T0, false, true, last, undefined]]);
  });

  it('a failure the owner does not handle ends the call at once, with that error; the others are aborted', async () => {
    const clock = new TestClock(T0);
    const fatal = new Error('fatal');
    const r = held(clock, { handle: (e) => e !== fatal });
    await clock.advance(20);
    r.attempts[0]!.reject(fatal);
    expect(await r.settled).toEqual({ ok: false, error: fatal });
    expect(r.attempts[1]!.ctx.signal.aborted).toBe(true);
    expect(r.log.at(-1)).toEqual(['settled', T0, false, true, fatal, undefined]);
  });

  it('a result handleResult refuses is a failure; if every attempt’s is refused, the last result is the answer', async () => {
    const clock = new TestClock(T0);
    const r = held(clock, { handleResult: (v) => v === 503 });
    r.attempts[0]!.resolve(503);
    await clock.advance(0);
    expect(r.log).toEqual([['hedged', 2, 0]]);
    r.attempts[1]!.resolve(503);
    expect(await r.settled).toEqual({ ok: true, value: 503 });
    expect(r.log.at(-1)).toEqual(['settled', T0, false, false, 503, undefined]);
  });

  it('a load-shedding rejection starts no hedge at once: it would be shed too', async () => {
    const clock = new TestClock(T0);
    const r = held(clock, { delay: 50 });
    const shed = new OverloadedError('shedder');
    r.attempts[0]!.reject(shed);
    await clock.advance(0);
    expect(r.attempts).toHaveLength(1);
    expect(await r.settled).toEqual({ ok: false, error: shed });
  });

  it('the caller’s abort ends the call with its reason, whatever the attempts do', async () => {
    const clock = new TestClock(T0);
    const scope = new Scope(undefined, undefined, Infinity, undefined, 'caller', false);
    const r = held(clock, {}, scope);
    const gone = new Error('gone');
    scope.abort(gone, true, false);
    // the attempt sees its signal abort and rejects with it
    r.attempts[0]!.reject(gone);
    expect(await r.settled).toEqual({ ok: false, error: gone });
    await clock.advance(100);
    expect(r.attempts).toHaveLength(1);
    expect(r.log).toEqual([['settled', T0, false, true, gone, scope]]);
  });
});
