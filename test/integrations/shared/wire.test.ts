import { describe, expect, it } from 'vitest';
import {
  Incoming,
  incomingDeadline,
  isDownstreamFailure,
  isNoRetryError,
  markDownstream,
  noteDownstreamFailure,
  NoRetryError,
  parseAttempt,
  parseCriticality,
  parseRemainingMs,
  remainingMs,
  WIRE_HEADERS,
  wireHeaders,
} from '../../../integrations/shared/wire.js';
import { BrokenCircuitError, isOverloadedError, isShedRejection, OverloadedError, TimeoutError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { fallback } from '../../../policies/fallback/index.js';
import { retry } from '../../../policies/retry/index.js';

describe('wireHeaders', () => {
  it('gives the defaults, overridden one by one and lower-cased', () => {
    expect(wireHeaders(undefined)).toEqual({
      deadline: 'x-breakwater-timeout-ms',
      criticality: 'x-breakwater-criticality',
      attempt: 'x-breakwater-attempt',
      noRetry: 'x-breakwater-no-retry',
    });
    expect(wireHeaders({ deadline: 'X-Timeout-Ms' })).toEqual({ ...WIRE_HEADERS, deadline: 'x-timeout-ms' });
  });
});

describe('remainingMs', () => {
  it("is the whole ms left on the context's clock, less the margin, rounded down and never below 0", () => {
    const clock = new TestClock(1_000);
    expect(remainingMs({ deadline: undefined, clock })).toBeUndefined();
    expect(remainingMs({ deadline: 2_234.9, clock })).toBe(1_234);
    expect(remainingMs({ deadline: 2_234.9, clock }, 200)).toBe(1_034);
    expect(remainingMs({ deadline: 1_000.5, clock })).toBe(0);
    expect(remainingMs({ deadline: 900, clock })).toBe(0);
    expect(remainingMs({ deadline: 1_100, clock }, 500)).toBe(0);
  });
});

describe('parsing what arrives', () => {
  it('parseRemainingMs takes decimal digits only (the first of repeated headers), else nothing', () => {
    expect(parseRemainingMs('250')).toBe(250);
    expect(parseRemainingMs(' 0 ')).toBe(0);
    expect(parseRemainingMs(['40', '90'])).toBe(40);
    for (const bad of [undefined, null, '', '-5', '1.5', '1e3', 'soon', '1234567890123']) expect(parseRemainingMs(bad)).toBeUndefined();
  });

  it('parseAttempt takes an integer >= 1, else 1', () => {
    expect(parseAttempt('3')).toBe(3);
    expect(parseAttempt(['2'])).toBe(2);
    for (const bad of [undefined, null, '0', '-1', 'two', '1.5']) expect(parseAttempt(bad)).toBe(1);
  });

  it('parseCriticality honours a known criticality from a trusted caller only', () => {
    expect(parseCriticality('critical', true)).toBe('critical');
    expect(parseCriticality(' Sheddable ', true)).toBe('sheddable');
    expect(parseCriticality('critical', false)).toBe('default');
    expect(parseCriticality('urgent', true)).toBe('default');
    expect(parseCriticality(undefined, true)).toBe('default');
  });

  it('incomingDeadline: expired at 0, clamped to the maximum, the maximum without one, none without either', () => {
    expect(incomingDeadline(0, 100, 5_000)).toBe('expired');
    expect(incomingDeadline(0, undefined, 5_000)).toBe('expired');
    expect(incomingDeadline(250, undefined, 5_000)).toBe(5_250);
    expect(incomingDeadline(250, 100, 5_000)).toBe(5_100);
    expect(incomingDeadline(50, 100, 5_000)).toBe(5_050);
    expect(incomingDeadline(undefined, 100, 5_000)).toBe(5_100);
    expect(incomingDeadline(undefined, undefined, 5_000)).toBeUndefined();
  });
});

describe('Incoming', () => {
  it('gives a context with the deadline and criticality, and learns of a failed call made under it by its meta', () => {
    const incoming = new Incoming(undefined, 'sheddable', 2);
    expect(incoming.ctx).toMatchObject({ deadline: undefined, attempt: 1, callerAttempt: 2, criticality: 'sheddable', meta: { criticality: 'sheddable' } });
    noteDownstreamFailure({ meta: { criticality: 'sheddable' } });
    expect(incoming.downstreamFailed).toBe(false);
    noteDownstreamFailure(undefined);
    noteDownstreamFailure({ meta: incoming.ctx.meta });
    expect(incoming.downstreamFailed).toBe(true);
    incoming.end();
  });

  it('aborts its signal with a TimeoutError at the deadline, and never for one past the longest timer', async () => {
    const near = new Incoming(Date.now() + 5, 'default', 1);
    const far = new Incoming(Date.now() + 3_000_000_000, 'default', 1);
    await new Promise((r) => near.ctx.signal.addEventListener('abort', r));
    await new Promise((r) => setTimeout(r, 5));
    expect(near.ctx.signal.reason).toBeInstanceOf(TimeoutError);
    expect(far.ctx.signal.aborted).toBe(false);
    far.end();
  });

  it('cancel aborts the signal with the reason given; end leaves it alone', () => {
    const a = new Incoming(Date.now() + 60_000, 'default', 1);
    a.end();
    expect(a.ctx.signal.aborted).toBe(false);
    const b = new Incoming(Date.now() + 60_000, 'default', 1);
    const reason = new Error('gone');
    b.cancel(reason);
    expect(b.ctx.signal.reason).toBe(reason);
  });
});

describe('downstream failures', () => {
  it('markDownstream marks an error object; shed rejections count without a mark', () => {
    const e = new Error('fetch failed');
    expect(isDownstreamFailure(e)).toBe(false);
    markDownstream(e);
    expect(isDownstreamFailure(e)).toBe(true);
    expect(isDownstreamFailure(new BrokenCircuitError('b'))).toBe(true);
    expect(isDownstreamFailure(new TimeoutError('t'))).toBe(false);
    markDownstream('a string');
    markDownstream(Object.freeze(new Error('frozen')));
    expect(isDownstreamFailure('a string')).toBe(false);
    expect(isDownstreamFailure(null)).toBe(false);
  });
});

describe('NoRetryError', () => {
  it('is an overload with its status and cause; isNoRetryError wants both the brand and noRetry', () => {
    const cause = new Error('HTTP 503');
    const e = new NoRetryError('resilientFetch', 503, 'gave up below', { cause });
    expect([e.name, e.code, e.status, e.noRetry, e.cause, e.policy]).toEqual(['NoRetryError', 'OVERLOADED', 503, true, cause, 'resilientFetch']);
    expect(isOverloadedError(e) && isShedRejection(e) && isNoRetryError(e)).toBe(true);
    expect(isNoRetryError(new OverloadedError('shedder'))).toBe(false);
    expect(isNoRetryError({ noRetry: true })).toBe(false);
  });

  it('is not retried by retry, and a fallback still answers it', async () => {
    let calls = 0;
    const failing = () => {
      calls++;
      throw new NoRetryError('resilientFetch', 503, 'gave up below');
    };
    await expect(retry({ maxAttempts: 3 }).execute(failing)).rejects.toBeInstanceOf(NoRetryError);
    expect(calls).toBe(1);
    await expect(fallback(() => 'cached').execute(failing)).resolves.toBe('cached');
  });
});
