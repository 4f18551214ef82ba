import { handleAll, retry as cockatielRetry } from 'cockatiel';
import { EMPTY } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ConfigError, executeWith, fallback, isTimeoutError, pipe, policy, retry, RUN, runNext, systemClock, timeout, TimeoutError, constant, type Chain, type ExecutionContext, type Operation } from '../../api/index.js';
import { TestClock } from '../../lib/testing.js';
import { track } from '../helpers/track.js';

const START = 1_700_000_000_000;
const T0 = START;

const never = () => new Promise<never>(() => {});

describe('composition order', () => {
  it('timeout then retry gives each attempt its own timeout', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const p = policy({ clock }).timeout(100).retry({ maxAttempts: 3, backoff: constant(0) });
    const result = p.execute(() => {
      calls++;
      return calls < 3 ? new Promise<number>(() => {}) : 42;
    });
    await clock.advance(100);
    await clock.advance(100);
    await expect(result).resolves.toBe(42);
    expect(calls).toBe(3);
    expect(clock.now()).toBe(START + 200);
    expect(clock.pendingTimers).toBe(0);
  });

  it('retry then timeout bounds all attempts together', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const p = policy({ clock }).retry({ maxAttempts: 5, backoff: constant(30) }).timeout(100);
    const slow = policy({ clock }).retry({ maxAttempts: 5, backoff: constant(30) }).timeout(100);
    let slowCalls = 0;
    const slowResult = slow.execute(() => {
      slowCalls++;
      return new Promise<number>(() => {});
    });
    const slowSettled = expect(slowResult).rejects.toBeInstanceOf(TimeoutError);
    const result = p.execute(() => {
      calls++;
      return Promise.reject(new Error('boom'));
    });
    let settledAt = 0;
    result.catch(() => (settledAt = clock.now()));
    await clock.advance(100);
    // attempts at 0, 30, 60, 90; the sleep that would end at 120 is never
    // started: retry gives up at 90 with the last error (rule 4)
    await expect(result).rejects.toThrow('boom');
    expect(settledAt).toBe(START + 90);
    expect(calls).toBe(4);
    await slowSettled;
    expect(slowCalls).toBe(1);
    await clock.advance(100);
    expect(clock.pendingTimers).toBe(0);
  });

  it('pipe(a, b, c) is c wrapping b wrapping a, like the builder', async () => {
    const order: string[] = [];
    const tag = (name: string) =>
      fallback(
        (e) => {
          order.push(name);
          throw e;
        },
        { name },
      );
    const op = () => Promise.reject(new Error('x'));
    await expect(pipe(tag('a'), tag('b'), tag('c')).execute(op)).rejects.toThrow('x');
    expect(order).toEqual(['a', 'b', 'c']);
    order.length = 0;
    await expect(policy().use(tag('a')).use(tag('b')).use(tag('c')).execute(op)).rejects.toThrow('x');
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('the canonical chain answers from the fallback after retries time out', async () => {
    const clock = new TestClock(START);
    const p = pipe(timeout({ ms: 50, clock }), retry({ maxAttempts: 2, backoff: constant(10), clock }), fallback(() => 'stale' as const));
    const r = p.execute(() => new Promise<string>(() => {}));
    await clock.advance(50);
    await clock.advance(10);
    await clock.advance(50);
    await expect(r).resolves.toBe('stale');
    expect(clock.pendingTimers).toBe(0);
  });
});

const issuesOf = (build: () => unknown): readonly { path: string; message: string }[] => {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).issues;
  }
  return expect.unreachable('expected a ConfigError');
};

describe('pipe and policy() refuse what is not a policy', () => {
  it('a cockatiel policy is a ConfigError at construction naming its position and what it lacks', () => {
    const foreign = cockatielRetry(handleAll, { maxAttempts: 2 });
    expect(issuesOf(() => policy().timeout(10).use(foreign as never))).toEqual([
      {
        path: 'policies[1]',
        message: 'expected a breakwater Policy; missing: the [RUN] symbol method, events$ (an Observable), name (a string) (docs/composition.md shows how to write one)',
      },
    ]);
    expect(issuesOf(() => pipe(timeout(10), foreign as never))).toMatchObject([{ path: 'policies[1]' }]);
  });

  it('pipe(timeout(10), {}) throws when built, not at execute', () => {
    expect(issuesOf(() => pipe(timeout(10), {} as never, null as never))).toEqual([
      {
        path: 'policies[1]',
        message: 'expected a breakwater Policy; missing: the [RUN] symbol method, events$ (an Observable), name (a string), execute (a method) (docs/composition.md shows how to write one)',
      },
      { path: 'policies[2]', message: 'expected a breakwater Policy, got null' },
    ]);
    expect(() => pipe(timeout(10), {} as never)).toThrow(/invalid pipe options: policies\[1\]: expected a breakwater Policy/);
  });

  it('a policy a user wrote, with the four members, composes', async () => {
    class Tagged {
      readonly name = 'tagged';
      readonly events$ = EMPTY;
      execute<R>(op: Operation<R>): Promise<R> {
        return executeWith(this, op, undefined, systemClock);
      }
      async [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
        return runNext(op, ctx, next);
      }
    }
    await expect(pipe(timeout(10), new Tagged()).execute(() => 1)).resolves.toBe(1);
    await expect(policy().use(new Tagged()).timeout(10).execute(() => 2)).resolves.toBe(2);
  });

  it('policy(options) refuses an unknown option or an ill-typed one', () => {
    expect(issuesOf(() => policy({ clok: new TestClock(START) } as never))).toEqual([{ path: 'clok', message: 'unknown option' }]);
    expect(issuesOf(() => policy({ clock: Date, random: 0.5, name: '' } as never)).map((i) => i.path)).toEqual(['clock', 'random', 'name']);
  });
});

describe('lib/pipe.ts: composition', () => {
  it('pipe: the first policy is innermost; nested pipelines are flattened; the default name is "pipeline"', async () => {
    const clock = new TestClock(T0);
    const inner = pipe(timeout({ ms: 10, clock }), fallback(() => 'inner'));
    const p = pipe(inner, fallback(() => 'outer'));
    expect(p.name).toBe('pipeline');
    expect(p.policies.map((x) => x.name)).toEqual(['timeout', 'fallback', 'fallback']);
    expect(p.clock).toBe(clock);
    const r = track(p.execute(never), clock);
    await clock.advance(10);
    expect(r.now).toEqual({ ok: true, value: 'inner', at: T0 + 10 });
    // the other order: the fallback is inside the timeout and never sees it
    const q = pipe(fallback(() => 'inner'), timeout({ ms: 10, clock }));
    const s = track(q.execute(never), clock);
    await clock.advance(10);
    expect(s.now).toMatchObject({ ok: false, at: T0 + 20 });
    expect(isTimeoutError((s.now as { error: unknown }).error)).toBe(true);
  });

  it('pipe takes the clock of the first policy that has one', () => {
    const a = new TestClock(T0);
    const b = new TestClock(T0 + 1);
    expect(pipe(fallback(() => 1), timeout({ ms: 1, clock: a }), timeout({ ms: 1, clock: b })).clock).toBe(a);
  });
});
