/**
 * The count-based window (`window: { type: 'count', size }`) against resilience4j's COUNT_BASED sliding window:
 * the last `size` calls, whatever their age; `minimumNumberOfCalls` cut to the window's size
 * (resilience4j `CircuitBreakerMetrics`); the window emptied when the breaker closes.
 */
import { describe, expect, it } from 'vitest';
import { circuitBreaker, type CircuitBreakerOptions } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { CountWindow, restoreCountWindow, snapshotCountWindow } from '../../../policies/circuit-breaker/count-window.js';
import { breakerRegistry } from '../../../policies/breaker-registry/index.js';
import { T0 } from '../../helpers/breakers.js';
import { issuesOf } from '../../helpers/config-issues.js';

type B = ReturnType<typeof circuitBreaker>;
function setup(options: CircuitBreakerOptions) {
  const clock = new TestClock(T0);
  return { clock, b: circuitBreaker({ clock, ...options } as CircuitBreakerOptions) };
}
const succeed = (b: B, n = 1) => {
  for (let i = 0; i < n; i++) b.allow().success();
};
const fail = (b: B, n = 1) => {
  for (let i = 0; i < n; i++) b.allow().failure();
};

describe('CountWindow', () => {
  it('holds the last size outcomes: a record past size pushes the oldest out of the sums', () => {
    const w = new CountWindow(3);
    w.add(true, false);
    w.add(false, true);
    expect([w.total, w.failures, w.slow]).toEqual([2, 1, 1]);
    w.add(true, true);
    expect([w.total, w.failures, w.slow]).toEqual([3, 2, 2]);
    w.add(false, false); // the first failure leaves
    expect([w.total, w.failures, w.slow]).toEqual([3, 1, 2]);
    w.add(false, false); // the slow success leaves
    expect([w.total, w.failures, w.slow]).toEqual([3, 1, 1]);
    expect(w.outcomes()).toEqual([3, 0, 0]);
  });

  it('clear empties it, and it fills again from the start', () => {
    const w = new CountWindow(2);
    w.add(true, false);
    w.add(true, false);
    w.add(true, false);
    w.clear();
    expect([w.total, w.failures, w.slow]).toEqual([0, 0, 0]);
    expect(w.outcomes()).toEqual([]);
    w.add(false, true);
    expect(w.outcomes()).toEqual([2]);
    expect([w.total, w.failures, w.slow]).toEqual([1, 0, 1]);
  });

  it('keeps the same sums as a recount of the last size outcomes, over a long random run', () => {
    let seed = 7;
    const next = () => (seed = (seed * 48_271) % 2_147_483_647) / 2_147_483_647;
    for (const size of [1, 2, 5, 17]) {
      const w = new CountWindow(size);
      const all: number[] = [];
      for (let i = 0; i < 500; i++) {
        const failed = next() < 0.4;
        const slow = next() < 0.3;
        w.add(failed, slow);
        all.push((failed ? 1 : 0) | (slow ? 2 : 0));
        const last = all.slice(-size);
        expect(w.outcomes()).toEqual(last);
        expect([w.total, w.failures, w.slow]).toEqual([last.length, last.filter((v) => v & 1).length, last.filter((v) => v & 2).length]);
      }
    }
  });

  it('round-trips through its snapshot, order included', () => {
    const w = new CountWindow(4);
    for (const [f, s] of [[true, false], [false, true], [false, false], [true, true], [true, false]] as const) w.add(f, s);
    const again = restoreCountWindow(snapshotCountWindow(w));
    expect(snapshotCountWindow(again)).toEqual({ size: 4, outcomes: [2, 0, 3, 1] });
    again.add(false, false); // the slow success leaves, as it would from the original
    w.add(false, false);
    expect([again.total, again.failures, again.slow]).toEqual([w.total, w.failures, w.slow]);
  });
});

describe('circuitBreaker with a count window', () => {
  it('errorRatio: trips on the last size calls, however old (the time window would have forgotten them)', async () => {
    const { clock, b } = setup({ trip: 'errorRatio', threshold: 0.5, minRequests: 4, window: { type: 'count', size: 4 } });
    fail(b);
    await clock.advance(3_600_000); // an hour: far past the default 10 s window
    succeed(b, 2);
    expect(b.stats()).toMatchObject({ total: 3, failures: 1 });
    expect(b.state).toBe('closed');
    fail(b); // 2 of the last 4 failed
    expect(b.state).toBe('open');
  });

  it('errorRatio: a failure that left the window no longer counts', () => {
    const { b } = setup({ trip: 'errorRatio', threshold: 0.5, minRequests: 4, window: { type: 'count', size: 4 } });
    fail(b);
    succeed(b, 4); // the failure is pushed out
    expect(b.stats()).toMatchObject({ total: 4, failures: 0 });
    fail(b);
    expect(b.stats()).toMatchObject({ total: 4, failures: 1 });
    expect(b.state).toBe('closed'); // 1 of 4 < 0.5
  });

  it('errorCount: failures among the last size calls', () => {
    const { b } = setup({ trip: 'errorCount', threshold: 3, minRequests: 0, window: { type: 'count', size: 5 } });
    fail(b, 2);
    succeed(b, 3);
    fail(b); // the first failure left: 2 in the window
    expect(b.stats().failures).toBe(2);
    fail(b); // the second left: still 2
    expect(b.stats()).toMatchObject({ total: 5, failures: 2 });
    expect(b.state).toBe('closed');
    fail(b); // a success left: 3
    expect(b.state).toBe('open');
  });

  it('slowCallRatio: slow calls among the last size calls', async () => {
    const { clock, b } = setup({ trip: 'slowCallRatio', slowCallMs: 100, threshold: 0.5, minRequests: 2, window: { type: 'count', size: 2 } });
    const p = b.allow();
    await clock.advance(101);
    p.success(); // slow
    succeed(b); // fast: 1 of 2
    expect(b.state).toBe('open');
  });

  it('minRequests is cut to the window size, as resilience4j cuts minimumNumberOfCalls', () => {
    // minRequests 20 (the default) could never be met by 10 calls
    const { b } = setup({ trip: 'errorRatio', threshold: 0.5, window: { type: 'count', size: 10 } });
    fail(b, 9);
    expect(b.state).toBe('closed'); // 9 calls < 10
    fail(b);
    expect(b.state).toBe('open');
  });

  it('minRequests below the size gates as usual', () => {
    const { b } = setup({ trip: 'errorRatio', threshold: 0.5, minRequests: 3, window: { type: 'count', size: 10 } });
    fail(b, 2);
    expect(b.state).toBe('closed');
    fail(b);
    expect(b.state).toBe('open');
  });

  it('custom rules see the count window in stats; consecutiveFailures needs no window', () => {
    const seen: number[] = [];
    const { b } = setup({ trip: 'custom', minRequests: 0, window: { type: 'count', size: 2 }, readyToTrip: (s) => (seen.push(s.total), false) });
    succeed(b, 3);
    expect(seen).toEqual([1, 2, 2]);
    const c = setup({ trip: 'consecutiveFailures', threshold: 2, window: { type: 'count', size: 100 } }).b;
    fail(c, 2);
    expect(c.state).toBe('open');
  });

  it('closing empties the window (resilience4j starts a new window in CLOSED)', async () => {
    const { clock, b } = setup({ trip: 'errorCount', threshold: 2, minRequests: 0, openMs: 1_000, window: { type: 'count', size: 10 } });
    fail(b, 2);
    await clock.advance(1_000);
    b.allow().success(); // the probe closes it
    expect(b.state).toBe('closed');
    expect(b.stats()).toMatchObject({ total: 0, failures: 0 });
    fail(b);
    expect(b.state).toBe('closed');
  });

  it('a snapshot carries the count window and restores it into a breaker of the same size', () => {
    const { b } = setup({ trip: 'errorCount', threshold: 3, minRequests: 0, window: { type: 'count', size: 3 } });
    fail(b);
    succeed(b);
    fail(b);
    const s = JSON.parse(JSON.stringify(b.snapshot()));
    expect(s.calls).toEqual({ size: 3, outcomes: [1, 0, 1] });
    const again = setup({ trip: 'errorCount', threshold: 3, minRequests: 0, window: { type: 'count', size: 3 }, initialState: s }).b;
    expect(again.stats()).toMatchObject({ total: 3, failures: 2 });
    fail(again); // pushes the first failure out: still 2
    expect(again.state).toBe('closed');
    fail(again);
    expect(again.state).toBe('open');
  });

  it('refuses a snapshot whose calls do not match the window, and dynamicThreshold', () => {
    const count = setup({ trip: 'errorRatio', window: { type: 'count', size: 3 } }).b.snapshot();
    const time = setup({ trip: 'errorRatio' }).b.snapshot();
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', window: { type: 'count', size: 4 }, initialState: count }))).toEqual([
      { path: 'initialState.calls.size', message: 'must equal window.size (4)' },
    ]);
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', window: { type: 'count', size: 3 }, initialState: time }))).toEqual([
      { path: 'initialState.calls', message: "expected the count window's calls (window.type is 'count')" },
    ]);
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', initialState: count }))).toEqual([
      { path: 'initialState.calls', message: 'expected no calls: the options ask for the time window' },
    ]);
    expect(issuesOf(() => circuitBreaker({ trip: 'dynamicThreshold', window: { type: 'count', size: 3 } }))).toEqual([
      { path: 'window', message: 'expected the time window with dynamicThreshold (its load term is calls per second over windowMs)' },
    ]);
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', window: { type: 'count', size: 0 } }))).toEqual([{ path: 'window.size', message: 'expected an integer >= 1' }]);
  });

  it('reconfigure keeps the window and refuses to change its kind or size, changing nothing', () => {
    const { b } = setup({ trip: 'errorCount', threshold: 5, minRequests: 0, window: { type: 'count', size: 4 } });
    fail(b, 2);
    b.reconfigure({ trip: 'errorCount', threshold: 3, minRequests: 0, window: { type: 'count', size: 4 } });
    expect(b.stats().failures).toBe(2);
    fail(b);
    expect(b.state).toBe('open');
    const c = setup({ trip: 'errorCount', threshold: 5, window: { type: 'count', size: 4 } }).b;
    const refusal = [{ path: 'window', message: 'cannot change in place (it shapes the window); build a new breaker' }];
    expect(issuesOf(() => c.reconfigure({ trip: 'errorCount', threshold: 1, window: { type: 'count', size: 5 } }))).toEqual(refusal);
    expect(issuesOf(() => c.reconfigure({ trip: 'errorCount', threshold: 1 }))).toEqual(refusal);
    fail(c);
    expect(c.state).toBe('closed'); // threshold still 5
  });

  it('a closed count-window breaker is dropped by a registry once idle (a count window never empties with time)', async () => {
    const clock = new TestClock(T0);
    const r = breakerRegistry({ defaults: { trip: 'errorCount', threshold: 5, window: { type: 'count', size: 10 } }, idleMs: 1_000, clock });
    r.get('a').allow().failure();
    await clock.advance(1_001);
    r.get('b');
    expect([...r.keys()]).toEqual(['b']);
  });
});
