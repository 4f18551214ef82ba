import { describe, expect, it } from 'vitest';
import { Context } from '../../../lib/context.js';
import { TimeoutError } from '../../../lib/errors.js';
import type { ExecutionContext } from '../../../lib/policy.js';
import { TestClock } from '../../../lib/testing.js';
import { ANSWERED, DROPPED, IGNORED, LimitedCall, LimiterPermit, type LimiterCore, type Measure } from '../../../policies/adaptive-limiter/call.js';

const T0 = 1_700_000_000_000;

/** A limiter stand-in: timeouts are drops, everything else measures nothing; it logs what it is told. */
function core() {
  const log: unknown[][] = [];
  const c: LimiterCore = {
    settle: (start, inFlight, measure, error, result) => void log.push(['settle', start, inFlight, measure, error, result]),
    release: () => void log.push(['release']),
    measureOf: (error: unknown, at: ExecutionContext | undefined): Measure => {
      log.push(['measureOf', error, at]);
      return error instanceof TimeoutError ? DROPPED : IGNORED;
    },
  };
  return { c, log };
}

const ctx = () => new Context(new TestClock(T0), undefined, undefined, 1, undefined, {});

describe('the measures', () => {
  it('are three distinct values', () => {
    expect(new Set([ANSWERED, DROPPED, IGNORED]).size).toBe(3);
  });
});

describe('LimitedCall', () => {
  it('ok: measured as answered with its start and calls in flight, reported a success, then the slot is free', () => {
    const { c, log } = core();
    new LimitedCall(c, () => 1, T0, 3, ctx()).ok();
    expect(log).toEqual([['settle', T0, 3, ANSWERED, undefined, 'success'], ['release']]);
  });

  it('err: the limiter judges the error from the call’s context; a timeout is a drop reported as a timeout', () => {
    const { c, log } = core();
    const at = ctx();
    const late = new TimeoutError('t');
    new LimitedCall(c, () => 1, T0, 2, at).err(late);
    expect(log).toEqual([['measureOf', late, at], ['settle', T0, 2, DROPPED, late, 'timeout'], ['release']]);
    const other = core();
    const boom = new Error('boom');
    new LimitedCall(other.c, () => 1, T0, 2, at).err(boom);
    expect(other.log.slice(1)).toEqual([['settle', T0, 2, IGNORED, boom, 'failure'], ['release']]);
  });

  it('an operation still running keeps the slot after the chain settled, until it settles too', async () => {
    const { c, log } = core();
    let finish!: (v: string) => void;
    const call = new LimitedCall(c, () => new Promise<string>((r) => (finish = r)), T0, 1, ctx());
    const running = call.op(ctx());
    call.ok();
    expect(log.map((e) => e[0])).toEqual(['settle']);
    finish('late');
    expect(await running).toBe('late');
    expect(log.map((e) => e[0])).toEqual(['settle', 'release']);
  });

  it('a value or a throw at once is counted out at once; after the slot is free, calls run uncounted', () => {
    const { c, log } = core();
    const boom = new Error('sync');
    let n = 0;
    const call = new LimitedCall(
      c,
      () => {
        if (++n === 2) throw boom;
        return n;
      },
      T0,
      1,
      ctx(),
    );
    expect(call.op(ctx())).toBe(1);
    expect(() => call.op(ctx())).toThrow(boom);
    call.ok();
    expect(log.map((e) => e[0])).toEqual(['settle', 'release']);
    expect(call.op(ctx())).toBe(3);
    expect(log.map((e) => e[0])).toEqual(['settle', 'release']);
  });
});

describe('LimiterPermit', () => {
  it('success: answered, a success, the slot freed', () => {
    const { c, log } = core();
    new LimiterPermit(c, T0, 4).success();
    expect(log).toEqual([['settle', T0, 4, ANSWERED, undefined, 'success'], ['release']]);
  });

  it('failure: judged without a context; a TimeoutError is a drop, another error measures nothing', () => {
    const a = core();
    const late = new TimeoutError('t');
    new LimiterPermit(a.c, T0, 1).failure(late);
    expect(a.log).toEqual([['measureOf', late, undefined], ['settle', T0, 1, DROPPED, late, 'timeout'], ['release']]);
    const b = core();
    new LimiterPermit(b.c, T0, 1).failure();
    expect(b.log.slice(1)).toEqual([['settle', T0, 1, IGNORED, undefined, 'failure'], ['release']]);
  });

  it('release: measures nothing, reported cancelled', () => {
    const { c, log } = core();
    new LimiterPermit(c, T0, 1).release();
    expect(log).toEqual([['settle', T0, 1, IGNORED, undefined, 'cancelled'], ['release']]);
  });

  it('settles once: later calls of any of the three do nothing', () => {
    const { c, log } = core();
    const p = new LimiterPermit(c, T0, 1);
    p.success();
    p.failure(new Error('x'));
    p.release();
    p.success();
    expect(log.map((e) => e[0])).toEqual(['settle', 'release']);
  });
});
