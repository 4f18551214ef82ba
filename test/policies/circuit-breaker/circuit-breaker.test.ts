import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, circuitBreaker, ConfigError, type CircuitBreakerOptions, type PolicyEvent } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { collect, T0 } from '../../helpers/breakers.js';
import { issuesOf } from '../../helpers/config-issues.js';

type Options = CircuitBreakerOptions;

function setup(options: Options, start = T0) {
  const clock = new TestClock(start);
  const b = circuitBreaker({ clock, ...options } as Options);
  return { clock, b };
}
type B = ReturnType<typeof circuitBreaker>;
const succeed = (b: B, n = 1) => {
  for (let i = 0; i < n; i++) b.allow().success();
};
const fail = (b: B, n = 1) => {
  for (let i = 0; i < n; i++) b.allow().failure();
};
const changes = (events: PolicyEvent[]) => events.filter((e) => e.type === 'stateChange');

describe('circuitBreaker: window (B1, B2)', () => {
  it('B1: buckets align to multiples of the bucket length, not to construction time', async () => {
    // T0 is a multiple of 1 000; construct 300 ms into a bucket
    const { clock, b } = setup({ strategy: 'errorCount', threshold: 100 }, T0 + 300);
    succeed(b); // bucket [T0, T0 + 1000)
    await clock.advanceTo(T0 + 10_000 - 1);
    expect(b.stats().total).toBe(1);
    await clock.advance(1); // exactly T0 + 10 000: the bucket leaves the window
    expect(b.stats().total).toBe(0);
  });

  it('B1: the window is the last `buckets` buckets including the current one', async () => {
    const { clock, b } = setup({ strategy: 'errorCount', threshold: 100, windowMs: 1_000, buckets: 4 });
    fail(b); // bucket [T0, T0+250)
    await clock.advance(250);
    fail(b);
    await clock.advance(500); // now in bucket 3
    expect(b.stats().failures).toBe(2);
    await clock.advance(250); // bucket 4: bucket 0 gone
    expect(b.stats().failures).toBe(1);
    await clock.advance(249);
    expect(b.stats().failures).toBe(1);
    await clock.advance(1);
    expect(b.stats().failures).toBe(0);
  });

  it('B2: shed calls are not counted', () => {
    const { b } = setup({ strategy: 'consecutiveFailures', threshold: 1 });
    fail(b);
    expect(b.state).toBe('open');
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(b.stats().total).toBe(1); // the failure that tripped it, and nothing for the shed calls
  });
});

describe('circuitBreaker: closed (B3, B11)', () => {
  it('B3: evaluates only once total >= minRequests', () => {
    const { b } = setup({ strategy: 'errorRatio', threshold: 0.5, minRequests: 4 });
    fail(b, 3);
    expect(b.state).toBe('closed');
    succeed(b); // 3/4 >= 0.5
    expect(b.state).toBe('open');
  });

  it('B3: ratio thresholds are met within 1e-8', () => {
    const run = (threshold: number) => {
      const { b } = setup({ strategy: 'errorRatio', threshold, minRequests: 3 });
      succeed(b, 2);
      fail(b); // 1/3
      return b.state;
    };
    expect(run(1 / 3)).toBe('open');
    expect(run(1 / 3 + 9e-9)).toBe('open');
    expect(run(1 / 3 + 2e-8)).toBe('closed');
    expect(run(1 / 3 - 1e-3)).toBe('open');
  });

  it('B3: errorCount trips at exactly the threshold', () => {
    const { b } = setup({ strategy: 'errorCount', threshold: 3, minRequests: 1 });
    fail(b, 2);
    succeed(b);
    expect(b.state).toBe('closed');
    fail(b);
    expect(b.state).toBe('open');
  });

  it('B3: slowCallRatio counts a call slow only when strictly longer than slowCallMs', async () => {
    const { clock, b } = setup({ strategy: 'slowCallRatio', slowCallMs: 100, threshold: 0.5, minRequests: 2 });
    let p = b.allow();
    await clock.advance(100);
    p.success();
    p = b.allow();
    await clock.advance(100);
    p.success();
    expect(b.stats()).toMatchObject({ total: 2, slow: 0 });
    expect(b.state).toBe('closed');
    p = b.allow();
    await clock.advance(101);
    p.success();
    expect(b.stats()).toMatchObject({ total: 3, slow: 1 });
    p = b.allow();
    await clock.advance(101);
    p.failure();
    expect(b.state).toBe('open'); // 2/4
  });

  it('consecutiveFailures threshold 5 trips on the 5th failure in a row, whatever minRequests is', () => {
    const { b } = setup({ strategy: 'consecutiveFailures', threshold: 5, minRequests: 1_000 });
    fail(b, 4);
    succeed(b);
    fail(b, 4);
    expect(b.state).toBe('closed');
    expect(b.stats()).toMatchObject({ consecutiveFailures: 4, consecutiveSuccesses: 0 });
    fail(b);
    expect(b.state).toBe('open');
  });

  it('B11: zero thresholds trip on the first evaluation that meets minRequests', () => {
    const { b } = setup({ strategy: 'errorRatio', threshold: 0, minRequests: 3 });
    succeed(b, 2);
    expect(b.state).toBe('closed');
    succeed(b);
    expect(b.state).toBe('open');
    const { b: c } = setup({ strategy: 'errorCount', threshold: 0, minRequests: 1 });
    succeed(c);
    expect(c.state).toBe('open');
  });

  it('dynamicThreshold: at full load a risk score of 0.3 + 0.5·rate reaches 0.5 at a 40 % error rate', () => {
    const run = (failures: number) => {
      const { b } = setup({ strategy: 'dynamicThreshold', baseRps: 10, windowMs: 1_000, minRequests: 10 });
      succeed(b, 10 - failures);
      fail(b, failures);
      return b.state;
    };
    expect(run(3)).toBe('closed'); // 0.3 + 0.15 = 0.45 < 0.5
    expect(run(4)).toBe('open'); // 0.3 + 0.2 = 0.5
  });

  it('dynamicThreshold: at low load it takes (nearly) every call failing', () => {
    // 10 calls / 10 s = 1 rps against baseRps 100: load 0.01, its term 0.003
    const mixed = setup({ strategy: 'dynamicThreshold', baseRps: 100, minRequests: 10 }).b;
    succeed(mixed, 1);
    fail(mixed, 9); // 0.003 + 0.45 < 0.5
    expect(mixed.state).toBe('closed');
    const allFailing = setup({ strategy: 'dynamicThreshold', baseRps: 100, minRequests: 10 }).b;
    fail(allFailing, 10); // 0.003 + 0.5
    expect(allFailing.state).toBe('open');
  });

  it('custom: readyToTrip sees the stats after each counted completion once minRequests is met', () => {
    const seen: number[] = [];
    const { b } = setup({
      strategy: 'custom',
      minRequests: 2,
      readyToTrip: (s) => {
        seen.push(s.total);
        return s.failures >= 2;
      },
    });
    fail(b);
    succeed(b);
    fail(b);
    expect(seen).toEqual([2, 3]);
    expect(b.state).toBe('open');
  });
});

describe('circuitBreaker: open and half-open (B4–B7)', () => {
  async function tripped(options: Partial<Options> = {}) {
    const s = setup({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, ...options } as Options);
    fail(s.b);
    expect(s.b.state).toBe('open');
    return s;
  }

  it('B4: sheds with retryAfterMs until retryAt; the first allow() at or after it is a probe', async () => {
    const { clock, b } = await tripped();
    await clock.advance(999);
    let error: unknown;
    try {
      b.allow();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BrokenCircuitError);
    expect((error as BrokenCircuitError).retryAfterMs).toBe(1);
    expect(b.state).toBe('open'); // reading never transitions
    await clock.advance(1);
    expect(b.state).toBe('open');
    const probe = b.allow();
    expect(b.state).toBe('half-open');
    probe.success();
    expect(b.state).toBe('closed');
  });

  it('B5: at most `probes` in flight; a failed probe reopens with a new retryAt', async () => {
    const { clock, b } = await tripped({ probes: 2 });
    await clock.advance(1_000);
    const p1 = b.allow();
    const p2 = b.allow();
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    p1.failure();
    expect(b.state).toBe('open');
    p2.success(); // late: admitted in the half-open generation that ended
    expect(b.state).toBe('open');
    await clock.advance(999);
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    await clock.advance(1);
    b.allow().success();
    expect(b.state).toBe('half-open');
  });

  it('B5: closes after `probes` successful probes, with the window reset', async () => {
    const { clock, b } = await tripped({ probes: 3 });
    await clock.advance(1_000);
    const ps = [b.allow(), b.allow(), b.allow()];
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    ps[0]!.success();
    const p4 = b.allow(); // one slot free again
    ps[1]!.success();
    expect(b.state).toBe('half-open');
    ps[2]!.success();
    expect(b.state).toBe('closed');
    expect(b.stats()).toEqual({ total: 0, failures: 0, slow: 0, consecutiveFailures: 0, consecutiveSuccesses: 0 });
    p4.failure(); // admitted in half-open: discarded in closed
    expect(b.stats().total).toBe(0);
  });

  it('B5: a slow probe counts as failed for slowCallRatio', async () => {
    const { clock, b } = setup({ strategy: 'slowCallRatio', slowCallMs: 10, threshold: 1, minRequests: 1, openMs: 100 });
    const p = b.allow();
    await clock.advance(11);
    p.success();
    expect(b.state).toBe('open');
    await clock.advance(100);
    const probe = b.allow();
    await clock.advance(11);
    probe.success();
    expect(b.state).toBe('open');
  });

  it('B6: a late outcome after a transition is discarded and never taken as a probe', async () => {
    const { clock, b } = setup({ strategy: 'consecutiveFailures', threshold: 2, openMs: 1_000 });
    const late = b.allow(); // admitted while closed
    fail(b, 2);
    expect(b.state).toBe('open');
    await clock.advance(1_000);
    const probe = b.allow();
    late.success(); // would close the breaker if taken as a probe
    expect(b.state).toBe('half-open');
    expect(() => b.allow()).toThrow(BrokenCircuitError); // the probe slot is still taken
    probe.success();
    expect(b.state).toBe('closed');
    expect(b.stats().total).toBe(0);
  });

  it('B7: maxHalfOpenMs is checked on the next allow(), with no timer', async () => {
    const { clock, b } = await tripped({ maxHalfOpenMs: 5_000 });
    const events = collect(b);
    await clock.advance(1_000);
    const probe = b.allow();
    expect(clock.pendingTimers).toBe(0);
    await clock.advance(5_000);
    expect(() => b.allow()).toThrow(BrokenCircuitError); // slot taken, 5 000 ms is not longer than 5 000
    expect(b.state).toBe('half-open');
    await clock.advance(1);
    expect(b.state).toBe('half-open'); // reading does not transition
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(b.state).toBe('open');
    expect(changes(events).at(-1)).toMatchObject({ from: 'half-open', to: 'open', reason: 'halfOpenTimeout' });
    probe.success(); // late
    expect(b.state).toBe('open');
    await clock.advance(1_000);
    b.allow().success();
    expect(b.state).toBe('closed');
  });

  it('B7: maxHalfOpenMs is checked on settle too: the probe that answers too late reopens the breaker', async () => {
    const { clock, b } = await tripped({ maxHalfOpenMs: 5_000 });
    await clock.advance(1_000);
    const probe = b.allow();
    await clock.advance(5_001);
    probe.success();
    expect(b.state).toBe('open');
  });
});

describe('circuitBreaker: observing and forcing (B8–B10)', () => {
  it('B8: listeners run after the change; state$ replays; events carry the figure', () => {
    const { b } = setup({ strategy: 'errorRatio', threshold: 0.5, minRequests: 4 });
    const events = collect(b);
    const seen: [string, string][] = [];
    b.state$.subscribe((s) => seen.push([s, b.state]));
    fail(b, 3);
    succeed(b);
    expect(seen).toEqual([
      ['closed', 'closed'],
      ['open', 'open'],
    ]);
    expect(changes(events)).toEqual([{ type: 'stateChange', policy: 'circuitBreaker', from: 'closed', to: 'open', reason: 'threshold', figure: 0.75 }]);
    const late: string[] = [];
    b.state$.subscribe((s) => late.push(s));
    expect(late).toEqual(['open']);
  });

  it('B8: errorCount and consecutiveFailures report the count', () => {
    const { b } = setup({ strategy: 'errorCount', threshold: 2, minRequests: 0 });
    const events = collect(b);
    fail(b, 2);
    expect(changes(events)[0]).toMatchObject({ figure: 2 });
  });

  it('B9: isolate() forces open until the last handle is disposed, then closed and empty', () => {
    const { b } = setup({ strategy: 'errorCount', threshold: 10 });
    fail(b, 3);
    const h1 = b.isolate();
    const h2 = b.isolate();
    expect(b.state).toBe('open');
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    h1.dispose();
    h1.dispose();
    expect(b.state).toBe('open');
    {
      using _h3 = b.isolate();
      h2.dispose();
      expect(b.state).toBe('open');
    }
    expect(b.state).toBe('closed');
    expect(b.stats().total).toBe(0);
  });

  it('B9: reset() returns to closed with empty counters; outcomes from before are discarded', async () => {
    const { b } = setup({ strategy: 'consecutiveFailures', threshold: 2 });
    const p = b.allow();
    fail(b, 2);
    expect(b.state).toBe('open');
    b.reset();
    expect(b.state).toBe('closed');
    p.failure();
    expect(b.stats()).toMatchObject({ total: 0, consecutiveFailures: 0 });
  });

  it('B10: states are strings; stats() reports the window and streaks', () => {
    const { b } = setup({ strategy: 'errorCount', threshold: 10 });
    succeed(b, 2);
    fail(b);
    expect(b.state).toBe('closed');
    expect(b.stats()).toEqual({ total: 3, failures: 1, slow: 0, consecutiveFailures: 1, consecutiveSuccesses: 0 });
  });
});

describe('circuitBreaker: maxHalfOpenMs needs unanswered probes', () => {
  it('with no probe in flight, a call after maxHalfOpenMs is simply the next probe', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, probes: 2, maxHalfOpenMs: 5_000, clock });
    b.allow().failure();
    await clock.advance(1_000);
    b.allow().success(); // 1 of 2
    await clock.advance(10_000);
    b.allow().success(); // no probe was pending: admitted, and it closes the breaker
    expect(b.state).toBe('closed');
  });
});

describe('circuitBreaker: events', () => {
  it('rejected carries retryAfterMs when open, none when the half-open slots are full; one outcome per call', async () => {
    const clock = new TestClock(T0);
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
    const events = collect(b);
    b.allow().failure(new Error('x'));
    await clock.advance(400);
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    await clock.advance(600);
    const probe = b.allow();
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    probe.success();
    const rejected = events.filter((e) => e.type === 'rejected');
    expect(rejected).toEqual([
      { type: 'rejected', policy: 'circuitBreaker', state: 'open', retryAfterMs: 600 },
      { type: 'rejected', policy: 'circuitBreaker', state: 'half-open', retryAfterMs: undefined },
    ]);
    const outcomes = events.flatMap((e) => (e.type === 'outcome' ? [e.result] : []));
    expect(outcomes).toEqual(['failure', 'rejected', 'rejected', 'success']);
    expect(changes(events).map((e) => (e.type === 'stateChange' ? `${e.from}>${e.to}:${e.reason}` : ''))).toEqual([
      'closed>open:threshold',
      'open>half-open:retryTimeout',
      'half-open>closed:probesSucceeded',
    ]);
  });

  it('isolate and reset report their transitions once', () => {
    const { b } = setup({ strategy: 'errorCount', threshold: 10 });
    const seen: string[] = [];
    b.state$.subscribe((s) => seen.push(s));
    const h = b.isolate();
    b.isolate().dispose();
    h.dispose();
    b.reset();
    expect(seen).toEqual(['closed', 'open', 'closed']);
  });
});

describe('circuitBreaker: dynamicThreshold probe term', () => {
  it('failed probes raise the risk score: the breaker trips on fewer errors after them', async () => {
    // baseRps so high that the load term is ~0: the score is 0.5·errorRate + 0.2·(1 − probe success)
    const fresh = setup({ strategy: 'dynamicThreshold', baseRps: 1_000_000, minRequests: 10, openMs: 100 }).b;
    succeed(fresh, 2);
    fail(fresh, 8); // no probes yet (rate 1): 0.4 < 0.5
    expect(fresh.state).toBe('closed');

    const { clock, b } = setup({ strategy: 'dynamicThreshold', baseRps: 1_000_000, minRequests: 10, openMs: 100 });
    fail(b, 10); // 0.5: trips
    expect(b.state).toBe('open');
    await clock.advance(100);
    fail(b); // probe fails: history [fail]
    await clock.advance(100);
    succeed(b); // probe succeeds: history [fail, success], rate 0.5: closed, window empty
    expect(b.state).toBe('closed');
    succeed(b, 2);
    fail(b, 8); // 0.5·0.8 + 0.2·0.5 = 0.5: the same 8 of 10 that left the fresh breaker closed trip it now
    expect(b.state).toBe('open');
  });
});

describe('circuitBreaker: trip, and strategy its deprecated name', () => {
  /** A run that trips an errorRatio breaker and probes it back closed, its events and snapshots along the way. */
  const script = async (b: B, clock: TestClock) => {
    const events = collect(b);
    succeed(b, 2);
    fail(b, 2); // 2/4 >= 0.5: open
    const open = b.snapshot();
    await clock.advance(1_000);
    succeed(b); // the probe closes it
    return { events, open, closed: b.snapshot(), stats: b.stats() };
  };

  it('builds the same breaker from either spelling', async () => {
    const options = { threshold: 0.5, minRequests: 4, openMs: 1_000 } as const;
    const a = setup({ trip: 'errorRatio', ...options });
    const b = setup({ strategy: 'errorRatio', ...options });
    const byTrip = await script(a.b, a.clock);
    expect(byTrip.open.state).toBe('open');
    expect(byTrip.closed.state).toBe('closed');
    expect(byTrip).toEqual(await script(b.b, b.clock));
  });

  it('times calls for slowCallRatio whichever spelling names it', async () => {
    for (const spelling of ['trip', 'strategy'] as const) {
      const { clock, b } = setup({ [spelling]: 'slowCallRatio', threshold: 0.5, slowCallMs: 100, minRequests: 1 } as unknown as Options);
      const p = b.allow();
      await clock.advance(101);
      p.success();
      expect(b.state, spelling).toBe('open');
    }
  });

  it('refuses both spellings at once with a ConfigError naming both', () => {
    expect(() => circuitBreaker({ trip: 'errorRatio', strategy: 'errorRatio' } as never)).toThrow(ConfigError);
    expect(issuesOf(() => circuitBreaker({ trip: 'errorRatio', strategy: 'errorCount' } as never))).toEqual([
      { path: 'strategy', message: 'expected trip or strategy, not both (strategy is the deprecated name of trip)' },
    ]);
  });

  it('reconfigures with either spelling, and says trip when a trip caller asks to change it', () => {
    const { b } = setup({ trip: 'errorRatio', threshold: 0.9, minRequests: 2 });
    b.reconfigure({ trip: 'errorRatio', threshold: 0.5, minRequests: 2 });
    fail(b);
    succeed(b); // 1/2 >= 0.5 under the new threshold
    expect(b.state).toBe('open');
    const { b: c } = setup({ strategy: 'errorRatio' });
    c.reconfigure({ strategy: 'errorRatio', minRequests: 1, threshold: 0 });
    succeed(c);
    expect(c.state).toBe('open');
    const change = 'cannot change in place (it shapes the window); build a new breaker';
    expect(issuesOf(() => c.reconfigure({ trip: 'errorCount' }))).toEqual([{ path: 'trip', message: change }]);
    expect(issuesOf(() => c.reconfigure({ strategy: 'errorCount' }))).toEqual([{ path: 'strategy', message: change }]);
    expect(issuesOf(() => c.reconfigure({ trip: 'errorRatio', strategy: 'errorRatio' } as never)).map((i) => i.path)).toEqual(['strategy']);
  });
});
