import { describe, expect, it, vi } from 'vitest';
import { Context, Scope } from '../../lib/context.js';
import {
  BrokenCircuitError,
  BulkheadRejectedError,
  ConfigError,
  IdempotencyInProgressError,
  IdempotencyKeyMissingError,
  OverloadedError,
  ConcurrencyLimitedError,
  RateLimitedError,
  TimeoutError,
} from '../../lib/errors.js';
import type { OutcomeEvent, OutcomeResult } from '../../lib/events.js';
import {
  adaptiveLimiter,
  bulkhead,
  cache,
  chaos,
  circuitBreaker,
  constant,
  degrade,
  fallback,
  fallbackChain,
  hedge,
  idempotent,
  leakyBucket,
  loadShedder,
  rateLimiter,
  retry,
  sreBreaker,
  timeout,
  tokenBucket,
} from '../../api/index.js';
import type { ExecuteOptions, ExecutionContext, Policy } from '../../lib/policy.js';
import { isErrorOutcome, isTimedOutcome, OUTCOME_RESULTS, settledOutcome, thrownOutcome, valueOutcome } from '../../lib/outcome.js';
import { deadlineTimerOf, systemClock } from '../../lib/clock.js';
import { TestClock } from '../../lib/testing.js';
import { track } from '../helpers/track.js';

const START = 1_700_000_000_000;

function callerAborted(): Scope {
  const ac = new AbortController();
  const scope = new Scope(undefined, ac.signal, Infinity, undefined, 'test', false);
  ac.abort(new Error('client gone'));
  return scope;
}

function deadlinePassed(cooperative: boolean): { scope: Scope; clock: TestClock } {
  const clock = new TestClock(START);
  const scope = new Scope(undefined, undefined, START + 10, deadlineTimerOf(clock), 'test', cooperative);
  return { scope, clock };
}

function contextOf(scope: Scope | undefined): Context {
  return new Context(systemClock, scope, undefined, 1, undefined, {});
}

/** A context a user policy made itself: only its signal. */
function foreign(signal: AbortSignal): ExecutionContext {
  return { signal, deadline: undefined, attempt: 1, key: undefined, meta: {}, clock: systemClock };
}

describe('thrownOutcome', () => {
  it('counts anything thrown that breakwater did not throw as a failure', () => {
    for (const thrown of [new Error('down'), 'a string', undefined, null, 42, { code: 'ECONNRESET' }]) {
      expect(thrownOutcome(thrown, undefined)).toBe('failure');
    }
  });

  it("counts breakwater's own errors by what they mean: a timeout, a shed call, or a failure", () => {
    expect(thrownOutcome(new TimeoutError('t'), undefined)).toBe('timeout');
    for (const shed of [
      new BrokenCircuitError('b'),
      new RateLimitedError('r', 10),
      new BulkheadRejectedError('h'),
      new OverloadedError('s'),
      new ConcurrencyLimitedError('l', 20),
      new IdempotencyInProgressError('i', 'k'),
    ]) {
      expect(thrownOutcome(shed, undefined)).toBe('rejected');
    }
    expect(thrownOutcome(new IdempotencyKeyMissingError('i'), undefined)).toBe('failure');
    expect(thrownOutcome(new ConfigError('c', []), undefined)).toBe('failure');
  });

  it('reads the brand, so an error from another copy of the package counts the same', () => {
    const brand = Symbol.for('breakwater.error');
    expect(thrownOutcome({ [brand]: 'TIMEOUT' }, undefined)).toBe('timeout');
    expect(thrownOutcome({ [brand]: 'BREAKER_OPEN' }, undefined)).toBe('rejected');
  });

  it("counts a call its caller cancelled as cancelled, whatever was thrown", () => {
    const scope = callerAborted();
    for (const thrown of [scope.reason, new Error('down'), new TimeoutError('t'), new BrokenCircuitError('b')]) {
      expect(thrownOutcome(thrown, scope)).toBe('cancelled');
      expect(thrownOutcome(thrown, contextOf(scope))).toBe('cancelled');
    }
  });

  it('counts a call a deadline ended as a timeout, whatever was thrown (a cooperative deadline too)', async () => {
    for (const cooperative of [false, true]) {
      const { scope, clock } = deadlinePassed(cooperative);
      expect(thrownOutcome(new Error('down'), scope)).toBe('failure');
      await clock.advance(10);
      expect(scope.aborted).toBe(true);
      for (const thrown of [scope.reason, new Error('aborted'), new BrokenCircuitError('b')]) {
        expect(thrownOutcome(thrown, scope)).toBe('timeout');
        expect(thrownOutcome(thrown, contextOf(scope))).toBe('timeout');
      }
    }
  });

  it('judges by the thrown value alone while the call is not cancelled, or cannot be', () => {
    const ac = new AbortController();
    const live = new Scope(undefined, ac.signal, Infinity, undefined, 'test', false);
    expect(thrownOutcome(new Error('down'), live)).toBe('failure');
    expect(thrownOutcome(new RateLimitedError('r', 1), contextOf(live))).toBe('rejected');
    expect(thrownOutcome(new TimeoutError('t'), contextOf(undefined))).toBe('timeout');
    live.dispose();
  });

  it("never reads a breakwater context's signal (it would make an AbortController)", () => {
    const signal = vi.spyOn(Context.prototype, 'signal', 'get');
    thrownOutcome(new Error('down'), contextOf(undefined));
    thrownOutcome(new Error('down'), contextOf(callerAborted()));
    expect(signal).not.toHaveBeenCalled();
    signal.mockRestore();
  });

  it("reads a user policy's own context by its signal: a timeout's reason is a deadline, any other the caller", () => {
    const byCaller = new AbortController();
    byCaller.abort(new Error('client gone'));
    const byDeadline = new AbortController();
    byDeadline.abort(new TimeoutError('outer'));
    expect(thrownOutcome(new Error('x'), foreign(byCaller.signal))).toBe('cancelled');
    expect(thrownOutcome(new Error('x'), foreign(byDeadline.signal))).toBe('timeout');
    expect(thrownOutcome(new BrokenCircuitError('b'), foreign(new AbortController().signal))).toBe('rejected');
  });
});

describe('valueOutcome', () => {
  it("is a success unless the policy's handleResult judges the value a failure (a throw inside it counts as yes)", () => {
    expect(valueOutcome({ status: 503 }, undefined)).toBe('success');
    const is5xx = (r: unknown) => (r as { status: number }).status >= 500;
    expect(valueOutcome({ status: 503 }, is5xx)).toBe('failure');
    expect(valueOutcome({ status: 200 }, is5xx)).toBe('success');
    expect(
      valueOutcome(1, () => {
        throw new Error('buggy predicate');
      }),
    ).toBe('failure');
  });
});

describe('settledOutcome', () => {
  it('classifies a thrown value as thrownOutcome does, under the same scope', () => {
    expect(settledOutcome(true, new Error('down'), undefined)).toBe('failure');
    expect(settledOutcome(true, new TimeoutError('t'), undefined)).toBe('timeout');
    expect(settledOutcome(true, new BulkheadRejectedError('h'), undefined)).toBe('rejected');
    expect(settledOutcome(true, new Error('down'), callerAborted())).toBe('cancelled');
    expect(settledOutcome(true, new Error('down'), contextOf(callerAborted()))).toBe('cancelled');
  });

  it('counts a returned value as a success, or a failure when handleResult judges it one', () => {
    // A returned error object is a value, not a throw.
    expect(settledOutcome(false, new TimeoutError('t'), callerAborted())).toBe('success');
    expect(settledOutcome(false, 503, undefined, (r) => r === 503)).toBe('failure');
    expect(settledOutcome(false, 200, undefined, (r) => r === 503)).toBe('success');
    expect(
      settledOutcome(false, 200, undefined, () => {
        throw new Error('buggy predicate');
      }),
    ).toBe('failure');
  });
});

describe('isErrorOutcome, isTimedOutcome, OUTCOME_RESULTS', () => {
  it('lists every result once', () => {
    expect([...OUTCOME_RESULTS].sort()).toEqual(['cancelled', 'failure', 'fallback', 'rejected', 'success', 'timeout']);
    expect(Object.isFrozen(OUTCOME_RESULTS)).toBe(true);
  });

  it('counts failures and timeouts as errors of the dependency, and nothing else', () => {
    expect(OUTCOME_RESULTS.filter(isErrorOutcome)).toEqual(['failure', 'timeout']);
  });

  it('times every call but a shed one', () => {
    expect(OUTCOME_RESULTS.filter((r) => !isTimedOutcome(r))).toEqual(['rejected']);
  });
});

// The same inner outcomes, through every policy: each policy's own `outcome` event must say the same.

type Inner = 'value' | 'error' | 'inner TimeoutError' | 'inner BrokenCircuitError' | 'inner RateLimitedError' | "caller's abort" | 'enclosing deadline';

const SAME: Record<Inner, OutcomeResult> = {
  value: 'success',
  error: 'failure',
  'inner TimeoutError': 'timeout',
  'inner BrokenCircuitError': 'rejected',
  'inner RateLimitedError': 'rejected',
  "caller's abort": 'cancelled',
  'enclosing deadline': 'timeout',
};

/** What a fallback makes of the same: it answers every failure, a deadline passing included, but the caller's abort. */
const ANSWERED: Record<Inner, OutcomeResult> = {
  ...SAME,
  error: 'fallback',
  'inner TimeoutError': 'fallback',
  'inner BrokenCircuitError': 'fallback',
  'inner RateLimitedError': 'fallback',
  'enclosing deadline': 'fallback',
};

interface Subject {
  readonly name: string;
  make(clock: TestClock): Policy<unknown>;
  readonly options?: ExecuteOptions;
  readonly expected: Record<Inner, OutcomeResult>;
  /** Cases left out, and why. */
  readonly without?: readonly Inner[];
  /**
   * Kinds of call that, having started with nobody listening, are passed
   * through unwatched (no handler on the success path): a subscriber that
   * joins meanwhile may see no outcome for them, never a false one.
   */
  readonly unwatched?: readonly ('value' | 'error')[];
}

const SUBJECTS: readonly Subject[] = [
  {
    name: 'timeout',
    make: (clock) => timeout({ ms: 1_000, clock }),
    // An enclosing deadline earlier than its own: the timeout defers to it, arms nothing, and still reports the call.
    expected: SAME,
  },
  { name: 'retry', make: (clock) => retry({ maxAttempts: 2, backoff: constant(0), clock }), expected: SAME, unwatched: ['value'] },
  { name: 'fallback', make: (clock) => fallback(() => 'fb', { clock }), expected: ANSWERED, unwatched: ['value'] },
  {
    name: 'fallbackChain',
    make: (clock) =>
      fallbackChain(
        () => {
          throw new Error('first handler down');
        },
        () => 'fb',
        { clock },
      ),
    expected: ANSWERED,
    unwatched: ['value'],
  },
  { name: 'sreBreaker', make: (clock) => sreBreaker({ clock }), expected: SAME },
  { name: 'circuitBreaker', make: (clock) => circuitBreaker({ strategy: 'consecutiveFailures', threshold: 5, openMs: 1_000, clock }), expected: SAME },
  { name: 'bulkhead', make: (clock) => bulkhead({ limit: 1, clock }), expected: SAME },
  {
    name: 'rateLimiter',
    make: (clock) => rateLimiter({ algorithm: tokenBucket({ rate: 10, burst: 10 }), clock }),
    expected: SAME,
    unwatched: ['value', 'error'],
  },
  { name: 'cache', make: (clock) => cache({ ttlMs: 1_000, clock }), options: { key: 'k' }, expected: SAME },
  { name: 'hedge', make: (clock) => hedge({ delayMs: 10_000, maxHedged: 1, clock }), expected: SAME },
  { name: 'chaos', make: (clock) => chaos({ fault: new Error('never'), injectionRate: 0, clock }), expected: SAME, unwatched: ['value', 'error'] },
  { name: 'idempotent', make: (clock) => idempotent({ clock }), options: { key: 'k' }, expected: SAME },
  { name: 'degrade', make: (clock) => degrade({ when: () => false, signals: { cpu: 0 }, to: () => 'degraded', clock }), expected: SAME },
  { name: 'loadShedder', make: (clock) => loadShedder({ cpu: 0, clock }), expected: SAME },
  { name: 'adaptiveLimiter', make: (clock) => adaptiveLimiter({ clock }), expected: SAME },
];

const INNER = Object.keys(SAME) as Inner[];
const never = (): Promise<never> => new Promise(() => {});

/** Runs one call through a fresh policy; returns that policy's outcome events and how the call settled. */
async function runThrough(subject: Subject, inner: Inner) {
  const clock = new TestClock(START);
  const p = subject.make(clock);
  const outcomes: OutcomeEvent[] = [];
  const sub = p.events$.subscribe((e) => e.type === 'outcome' && e.policy === p.name && outcomes.push(e));
  const ac = new AbortController();
  const options: ExecuteOptions = { ...subject.options };
  let op: () => Promise<unknown>;
  switch (inner) {
    case 'value':
      op = () => Promise.resolve('v');
      break;
    case 'error':
      op = () => Promise.reject(new Error('down'));
      break;
    case 'inner TimeoutError':
      op = () => Promise.reject(new TimeoutError('inner'));
      break;
    case 'inner BrokenCircuitError':
      op = () => Promise.reject(new BrokenCircuitError('inner'));
      break;
    case 'inner RateLimitedError':
      op = () => Promise.reject(new RateLimitedError('inner', 10));
      break;
    case "caller's abort":
      op = never;
      options.signal = ac.signal;
      break;
    case 'enclosing deadline':
      op = never;
      options.timeout = 100;
      break;
  }
  const call = track(p.execute(op, options), clock);
  await clock.advance(1);
  const gone = new Error('client gone');
  if (inner === "caller's abort") ac.abort(gone);
  await clock.advance(100);
  const settled = await call.settled;
  sub.unsubscribe();
  return { outcomes, settled, gone, clock };
}

describe.each(SUBJECTS)('$name: one classification of a settled call', (subject) => {
  it.each(INNER.filter((i) => !subject.without?.includes(i)))('%s', async (inner) => {
    const { outcomes, settled, gone } = await runThrough(subject, inner);
    expect(outcomes.map((e) => e.result)).toEqual([subject.expected[inner]]);
    if (inner === "caller's abort") expect(settled).toMatchObject({ ok: false, error: gone });
    if (inner === 'enclosing deadline') expect(settled).toMatchObject({ ok: subject.expected[inner] === 'fallback', at: START + 100 });
  });

  it.each(['value', 'error'] as const)('a subscriber that joins mid-call sees the true duration (%s)', async (kind) => {
    const clock = new TestClock(START);
    const p = subject.make(clock);
    const settleAt = START + 100;
    const op = (): Promise<string> => {
      const now = clock.now();
      if (now >= settleAt) return kind === 'value' ? Promise.resolve('v') : Promise.reject(new Error('down'));
      return new Promise((resolve, reject) =>
        clock.setTimeout(() => (kind === 'value' ? resolve('v') : reject(new Error('down'))), settleAt - now),
      );
    };
    // A caller signal that never aborts: the call is cancellable, as a served request's is.
    const call = track(p.execute(op, { ...subject.options, signal: new AbortController().signal }), clock);
    await clock.advance(40);
    const durations: number[] = [];
    const sub = p.events$.subscribe((e) => e.type === 'outcome' && e.policy === p.name && durations.push(e.durationMs));
    await clock.advance(60);
    await call.settled;
    sub.unsubscribe();
    if (subject.unwatched?.includes(kind)) expect(durations.filter((d) => d !== 100)).toEqual([]);
    else expect(durations).toEqual([100]);
  });
});

describe('a subscriber that joins while a call waits', () => {
  async function lateDurations(p: Policy<unknown>, clock: TestClock, start: () => Promise<unknown>): Promise<number[]> {
    const call = track(start(), clock);
    await clock.advance(40);
    const durations: number[] = [];
    const sub = p.events$.subscribe((e) => e.type === 'outcome' && durations.push(e.durationMs));
    await clock.advance(60);
    await call.settled;
    sub.unsubscribe();
    return durations;
  }

  it('sees the true duration of a call that waited its turn in a leaky bucket', async () => {
    const clock = new TestClock(START);
    const limiter = rateLimiter({ algorithm: leakyBucket({ rate: 10, capacity: 5 }), clock });
    await limiter.execute(() => 'first');
    expect(await lateDurations(limiter, clock, () => limiter.execute(() => 'second'))).toEqual([100]);
  });

  it('sees the true duration of a call chaos delayed', async () => {
    const clock = new TestClock(START);
    const monkey = chaos({ latency: 100, injectionRate: 1, clock });
    expect(await lateDurations(monkey, clock, () => monkey.execute(() => 'late'))).toEqual([100]);
  });
});

describe('degrade: a call it answers', () => {
  it("is a fallback; its `to` handler throwing is that throw's outcome", async () => {
    const clock = new TestClock(START);
    const results: OutcomeResult[] = [];
    const answered = degrade({ when: () => true, signals: { cpu: 0 }, to: () => 'degraded', clock });
    const broken = degrade({
      when: () => true,
      signals: { cpu: 0 },
      to: () => {
        throw new Error('no cached page');
      },
      clock,
    });
    for (const d of [answered, broken]) d.events$.subscribe((e) => e.type === 'outcome' && results.push(e.result));
    await expect(answered.execute(() => 'real')).resolves.toBe('degraded');
    await expect(broken.execute(() => 'real')).rejects.toThrow('no cached page');
    expect(results).toEqual(['fallback', 'failure']);
  });
});
