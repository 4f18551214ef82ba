import { describe, expect, it } from 'vitest';
import { PolicyBase, refuseAborted, shareEventSource } from '../../lib/base.js';
import type { Clock } from '../../lib/clock.js';
import { Context, EMPTY_META, runNext, Scope } from '../../lib/context.js';
import { isTimeoutError } from '../../lib/errors.js';
import { EventSource, type OutcomeResult, type PolicyEvent } from '../../lib/events.js';
import { pipe } from '../../lib/pipe.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { TestClock } from '../../lib/testing.js';

/** The smallest policy the base allows: it writes only its [RUN], and reports each call as `result`. */
class Counting extends PolicyBase {
  runs = 0;
  constructor(
    clock: Clock,
    private readonly result: OutcomeResult = 'success',
  ) {
    super('counting', clock);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    this.runs++;
    const refused = refuseAborted(ctx);
    if (refused !== undefined) return refused;
    const start = this.clock.now();
    return runNext(op, ctx, next).then((value) => {
      if (this.events.observed) this.outcome(this.result, start);
      return value;
    });
  }

  /** Test access to the protected members. */
  get listening(): boolean {
    return this.events.observed;
  }
}

/** A policy with no clock of its own (as `fallback` without one). */
class Clockless extends PolicyBase<never, PolicyEvent, Clock | undefined> {
  constructor() {
    super('clockless', undefined);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    return runNext(op, ctx, next);
  }
}

describe('PolicyBase', () => {
  it('runs an operation through the subclass’s [RUN] and answers its value', async () => {
    const p = new Counting(new TestClock());
    await expect(p.execute(() => 42)).resolves.toBe(42);
    await expect(p.execute(async () => 'a', { key: 'k' })).resolves.toBe('a');
    expect(p.runs).toBe(2);
    expect(p.name).toBe('counting');
  });

  it('refuses a call whose signal already aborted without running [RUN], with the signal’s reason', async () => {
    const p = new Counting(new TestClock());
    const reason = new Error('gone');
    await expect(p.execute(() => 1, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    expect(p.runs).toBe(0);
  });

  it('runs the execute timeout on the policy’s own clock', async () => {
    const clock = new TestClock();
    const p = new Counting(clock);
    const call = p.execute((ctx) => new Promise((_, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason))), { timeout: 50 });
    const settled = call.then(
      () => 'resolved',
      (e: unknown) => (isTimeoutError(e) ? 'timeout' : 'other'),
    );
    await clock.advance(49);
    await clock.advance(1);
    await expect(settled).resolves.toBe('timeout');
  });

  it('falls back to the system clock when it has none, and leaves a pipeline to find a clock elsewhere', async () => {
    const p = new Clockless();
    await expect(p.execute(() => 7)).resolves.toBe(7);
    const clock = new TestClock(1_000);
    const other = new Counting(clock);
    // A pipeline takes the first clock its policies hold: the clockless one holds none.
    expect(pipe(p, other).clock).toBe(clock);
  });

  it('reports outcome events only while someone listens, timed on its clock', async () => {
    const clock = new TestClock(100);
    const p = new Counting(clock, 'failure');
    expect(p.listening).toBe(false);
    await p.execute(() => 1);
    const events: PolicyEvent[] = [];
    const sub = p.events$.subscribe((e) => events.push(e));
    expect(p.listening).toBe(true);
    let finish!: (v: number) => void;
    const call = p.execute(() => new Promise<number>((r) => (finish = r)));
    await clock.advance(30);
    finish(1);
    await call;
    sub.unsubscribe();
    expect(p.listening).toBe(false);
    await p.execute(() => 1);
    expect(events).toEqual([{ type: 'outcome', policy: 'counting', result: 'failure', durationMs: 30, error: undefined }]);
  });

  it('hands out one events$ however often it is read', () => {
    const p = new Counting(new TestClock());
    expect(p.events$).toBe(p.events$);
  });
});

describe('shareEventSource', () => {
  it('makes a policy emit to a shared source', async () => {
    const shared = new EventSource();
    const a = new Counting(new TestClock());
    const b = new Counting(new TestClock());
    shareEventSource(a, shared);
    shareEventSource(b, shared);
    const seen: string[] = [];
    shared.events$.subscribe((e) => seen.push(e.type));
    await a.execute(() => 1);
    await b.execute(() => 1);
    expect(seen).toEqual(['outcome', 'outcome']);
    expect(a.events$).toBe(shared.events$);
  });
});

describe('refuseAborted', () => {
  const clock = new TestClock();
  const ctxOf = (scope: Scope | undefined) => new Context(clock, scope, undefined, 1, undefined, EMPTY_META);

  it('lets a call with nothing to cancel it, or a live scope, go on', () => {
    expect(refuseAborted(ctxOf(undefined))).toBeUndefined();
    expect(refuseAborted(ctxOf(new Scope(undefined, undefined, Infinity, undefined, 't', false)))).toBeUndefined();
  });

  it('refuses a hard-aborted scope with its reason', async () => {
    const scope = new Scope(undefined, undefined, Infinity, undefined, 't', false);
    const reason = new Error('stop');
    scope.abort(reason, true, false);
    await expect(refuseAborted(ctxOf(scope))).rejects.toBe(reason);
  });

  it('lets a call go on after a cooperative abort, which only asks', () => {
    const scope = new Scope(undefined, undefined, Infinity, undefined, 't', true);
    scope.abort(new Error('please stop'), false, true);
    expect(refuseAborted(ctxOf(scope))).toBeUndefined();
  });

  it('reads a user-made context’s own signal', async () => {
    const reason = new Error('mine');
    const user: ExecutionContext = { signal: AbortSignal.abort(reason), deadline: undefined, attempt: 1, key: undefined, meta: {}, clock };
    await expect(refuseAborted(user)).rejects.toBe(reason);
    expect(refuseAborted({ ...user, signal: new AbortController().signal })).toBeUndefined();
  });
});
