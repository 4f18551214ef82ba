import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { breaker, constant, executeWith, fallback, pipe, policy, retry, RUN, runNext, systemClock, timeout, TimeoutError } from '../../api/index.js';
import type { Chain, ExecuteOptions, ExecutionContext, Operation, Policy, PolicyEvent } from '../../api/index.js';
import { PolicyBase } from '../../lib/base.js';
import type { Clock } from '../../lib/clock.js';
import { sleep } from '../../lib/sleep.js';
import { TestClock } from '../../lib/testing.js';
import { userPolicy } from '../helpers/user-policy.js';

const START = 1_700_000_000_000;

/** The canonical chain on `clock`, each policy named after its layer. */
function canonical(clock: Clock) {
  return pipe(
    timeout({ ms: 100, clock, name: 'timeout' }),
    retry({ maxAttempts: 3, backoff: constant(10), clock, name: 'retry' }),
    breaker({ clock, name: 'breaker' }),
    fallback(() => 'answered' as const, { name: 'fallback' }),
  );
}

/** Every event of `p`'s policies as `policy:type[:result]`, in the order they came. */
function record(p: { policies: readonly Policy<unknown>[] }): string[] {
  const seen: string[] = [];
  for (const q of p.policies) {
    q.events$.subscribe((e: PolicyEvent) => seen.push(`${e.policy}:${e.type}${e.type === 'outcome' ? `:${e.result}` : ''}`));
  }
  return seen;
}

/** A clock that counts its reads. */
class CountingClock extends TestClock {
  reads = 0;
  override now(): number {
    this.reads++;
    return super.now();
  }
}

describe('one settlement per call across the layers', () => {
  it('a success reaches every layer, innermost first, and each reports one outcome', async () => {
    const clock = new TestClock(START);
    const p = canonical(clock);
    const seen = record(p);
    await expect(p.execute(() => Promise.resolve(7))).resolves.toBe(7);
    expect(seen).toEqual(['timeout:outcome:success', 'retry:success', 'retry:outcome:success', 'breaker:outcome:success', 'fallback:outcome:success']);
  });

  it('a failed first attempt is retried inside the same call; the breaker and the fallback see one outcome', async () => {
    const clock = new TestClock(START);
    const p = canonical(clock);
    const seen = record(p);
    let calls = 0;
    const r = p.execute(() => (++calls === 1 ? Promise.reject(new Error('first')) : Promise.resolve('second')));
    await clock.advance(10);
    await expect(r).resolves.toBe('second');
    expect(calls).toBe(2);
    expect(seen).toEqual([
      'timeout:outcome:failure',
      'retry:retry',
      'timeout:outcome:success',
      'retry:success',
      'retry:outcome:success',
      'breaker:outcome:success',
      'fallback:outcome:success',
    ]);
  });

  it('an attempt cut off by its aggressive timeout is retried, and the call settles with the next one', async () => {
    const clock = new TestClock(START);
    const p = canonical(clock);
    const seen = record(p);
    let calls = 0;
    const r = p.execute(() => (++calls === 1 ? new Promise<string>(() => {}) : 'late'));
    await clock.advance(100);
    await clock.advance(10);
    await expect(r).resolves.toBe('late');
    expect(calls).toBe(2);
    expect(seen.slice(0, 3)).toEqual(['timeout:timeout', 'timeout:outcome:timeout', 'retry:retry']);
    expect(seen.filter((e) => e.startsWith('breaker:'))).toEqual(['breaker:outcome:success']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('when every attempt fails the fallback answers, and the breaker records one failure', async () => {
    const clock = new TestClock(START);
    const p = canonical(clock);
    const seen = record(p);
    const r = p.execute(() => Promise.reject(new Error('down')));
    await clock.advance(10);
    await clock.advance(10);
    await expect(r).resolves.toBe('answered');
    expect(seen.filter((e) => e.startsWith('breaker:') || e.startsWith('fallback:'))).toEqual(['breaker:outcome:failure', 'fallback:fallback', 'fallback:outcome:fallback']);
  });

  it('without a fallback, the last error reaches the caller unchanged, and a timeout as a TimeoutError', async () => {
    const clock = new TestClock(START);
    const boom = new Error('boom');
    const p = policy({ clock }).timeout(100).retry({ maxAttempts: 2, backoff: constant(0) }).breaker();
    await expect(p.execute(() => Promise.reject(boom))).rejects.toBe(boom);
    const hung = p.execute(() => new Promise<never>(() => {}));
    const settled = expect(hung).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(100);
    await clock.advance(100);
    await settled;
    expect(clock.pendingTimers).toBe(0);
  });

  it("a user policy between breakwater's layers sees the outcome before the layers around it", async () => {
    const clock = new TestClock(START);
    const order: string[] = [];
    // Hands back the very promise it got, with a handler of its own on it.
    const watching = userPolicy('watching', (op, ctx, next) => {
      const inner = runNext(op, ctx, next);
      inner.then(
        () => order.push('user policy'),
        () => order.push('user policy'),
      );
      return inner;
    });
    const b = breaker({ clock, name: 'breaker' });
    b.events$.subscribe((e) => e.type === 'outcome' && order.push('breaker'));
    const t = timeout({ ms: 100, clock, name: 'timeout' });
    t.events$.subscribe((e) => e.type === 'outcome' && order.push('timeout'));
    const p = pipe(t, watching, b);
    await expect(p.execute(() => Promise.resolve(1))).resolves.toBe(1);
    expect(order).toEqual(['timeout', 'user policy', 'breaker']);
  });

  it('reads the clock once for a healthy unobserved call, shared by every layer', async () => {
    const clock = new CountingClock(START);
    const p = canonical(clock);
    await p.execute(() => 1); // the breaker's first call times itself
    clock.reads = 0;
    for (let i = 0; i < 10; i++) await p.execute(() => i);
    expect(clock.reads).toBe(10);
  });

  it('a layer that waits before calling runNext gives the layers inside a fresh start', async () => {
    const clock = new TestClock(START);
    let deadline: number | undefined;
    const waits = userPolicy('waits', async (op, ctx, next) => {
      await sleep(clock, 30, undefined);
      return runNext(op, ctx, next);
    });
    const p = pipe(timeout({ ms: 100, clock }), waits, fallback(() => 0));
    const r = p.execute((ctx) => {
      deadline = ctx.deadline;
      return 1;
    });
    await clock.advance(30);
    await expect(r).resolves.toBe(1);
    expect(deadline).toBe(START + 30 + 100);
  });
});

describe('policies written to the documented contract (docs/composition.md) keep working', () => {
  it("lib/policy.ts's Logged: an async [RUN] with executeWith, alone and inside the canonical chain", async () => {
    const logged: number[] = [];
    class Logged implements Policy<never> {
      readonly name = 'logged';
      readonly events$ = EMPTY;
      execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R> {
        return executeWith(this, op, options, systemClock) as Promise<R>;
      }
      async [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
        logged.push(ctx.attempt);
        return runNext(op, ctx, next);
      }
    }
    await expect(new Logged().execute(() => 'alone')).resolves.toBe('alone');
    const clock = new TestClock(START);
    let calls = 0;
    const p = pipe(timeout({ ms: 100, clock }), new Logged(), retry({ maxAttempts: 2, backoff: constant(0), clock }), breaker({ clock }), fallback(() => 'fb'));
    await expect(p.execute(() => (++calls === 1 ? Promise.reject(new Error('x')) : 'ok'))).resolves.toBe('ok');
    expect(logged).toEqual([1, 1, 2]);
  });

  it("lib/base.ts's Logged: a PolicyBase subclass whose [RUN] times the call with .finally", async () => {
    const clock = new TestClock(START);
    class Logged extends PolicyBase {
      constructor() {
        super('logged', clock);
      }
      [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
        const start = this.clock.now();
        return runNext(op, ctx, next).finally(() => this.events.observed && this.outcome('success', start));
      }
    }
    const l = new Logged();
    const seen: string[] = [];
    l.events$.subscribe((e) => seen.push(`${e.policy}:${e.type}`));
    const p = pipe(timeout({ ms: 100, clock }), l, retry({ maxAttempts: 2, backoff: constant(0), clock }), fallback(() => 'fb'));
    await expect(p.execute(() => 5)).resolves.toBe(5);
    await expect(pipe(l, timeout({ ms: 100, clock })).execute(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(seen).toEqual(['logged:outcome', 'logged:outcome']);
  });

  it('a policy that narrows the deadline with { ...ctx, deadline } inside the canonical chain: the narrowed deadline is enforced', async () => {
    const clock = new TestClock(START);
    const narrowing = userPolicy('narrowing', (op, ctx, next) => runNext(op, { ...ctx, deadline: ctx.clock.now() + 40 }, next));
    const p = pipe(narrowing, timeout({ ms: 100, clock }), retry({ maxAttempts: 1, clock }), breaker({ clock }), fallback((e) => (e instanceof TimeoutError ? 'deadline' : 'other')));
    let seen: number | undefined;
    const r = p.execute((ctx) => {
      seen = ctx.deadline;
      return new Promise<string>(() => {});
    }, { timeout: 1_000 });
    await clock.advance(40);
    await expect(r).resolves.toBe('deadline');
    expect(seen).toBe(START + 40);
    expect(clock.pendingTimers).toBe(0);
  });
});
