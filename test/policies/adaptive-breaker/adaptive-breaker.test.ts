import { describe, expect, it } from 'vitest';
import { adaptiveBreaker, breaker, BrokenCircuitError, ConfigError, type AdaptiveBreakerOptions, type BreakerPermit, type StateChangeEvent } from '../../../api/index.js';
import { scriptedRandom, seededRandom, TestClock } from '../../../lib/testing.js';
import { collect, queueRandom, T0 } from '../../helpers/breakers.js';

function setup(options: AdaptiveBreakerOptions = {}, random: () => number = scriptedRandom()) {
  const clock = new TestClock(T0);
  const b = adaptiveBreaker({ clock, random, ...options });
  return { clock, b };
}

/** A clock moved by hand, synchronously, for loops of many thousand calls. */
function manualClock() {
  return { t: T0, now() { return this.t; }, setTimeout: () => 0, clearTimeout: () => {} };
}

type B = ReturnType<typeof adaptiveBreaker>;
const succeed = (b: B, n = 1) => {
  for (let i = 0; i < n; i++) b.allow().success();
};
const fail = (b: B, n = 1) => {
  for (let i = 0; i < n; i++) b.allow().failure();
};
const transitions = (events: ReturnType<typeof collect>) =>
  events.filter((e): e is StateChangeEvent => e.type === 'stateChange').map((e) => `${e.from}>${e.to}:${e.reason}`);

/** Trips a fresh breaker: a success, then 5 failures 250 ms later. */
async function tripped(options: AdaptiveBreakerOptions = {}, random: () => number = queueRandom([])) {
  const s = setup(options, random);
  succeed(s.b);
  await s.clock.advance(250);
  fail(s.b, 5);
  expect(s.b.state).toBe('open');
  return s;
}

describe('breaker()', () => {
  it('is the default breaker, an adaptive one', () => {
    expect(breaker().constructor).toBe(adaptiveBreaker().constructor);
    expect(breaker().name).toBe('breaker');
    expect(breaker().state).toBe('closed');
  });
});

describe('adaptiveBreaker: proportional shedding over the calls it lets through', () => {
  it('sheds with go-zero’s ratio over admitted calls only: (calls − protection − k·accepts) / (calls + 1)', () => {
    const random = queueRandom([0.09, 0.1]);
    const { b } = setup({}, random);
    succeed(b, 2);
    fail(b, 6); // failures within protection, then (8 − 5 − 3) / 9 = 0: no draw at all
    expect(random.draws).toBe(0);
    expect(b.stats()).toMatchObject({ accepts: 2, failures: 6, admitRatio: 1 });
    fail(b); // 2 accepts, 7 failures: (9 − 5 − 3) / 10 = 0.1
    expect(b.stats().admitRatio).toBeCloseTo(0.9, 12);
    expect(() => b.allow()).toThrow(BrokenCircuitError); // 0.09 < 0.1
    expect(b.allow()).toBeDefined(); // 0.1
    expect(random.draws).toBe(2);
    expect(b.state).toBe('closed'); // proportional shedding is not a trip
  });

  it('does not count shed calls: the ratio stays where the failures put it', () => {
    const { b } = setup({}, queueRandom([], 0)); // every draw sheds
    succeed(b, 10);
    const permits = Array.from({ length: 20 }, () => b.allow());
    for (const p of permits) p.failure(); // (30 − 5 − 15) / 31
    for (let i = 0; i < 50; i++) expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(b.stats()).toMatchObject({ accepts: 10, failures: 20 });
    expect(b.stats().admitRatio).toBeCloseTo(1 - 10 / 31, 12);
  });

  it('under independent failures sheds about 1 − k × success share, where go-zero sheds nearly everything', () => {
    // 300 calls/s, half fail, each settles 20 ms later: k·s = 0.75, so a quarter is shed.
    const clock = manualClock();
    const b = adaptiveBreaker({ clock, random: seededRandom(7) });
    const outcome = seededRandom(8);
    const pending: { at: number; p: BreakerPermit; fail: boolean }[] = [];
    let shed = 0;
    let calls = 0;
    const trips: string[] = [];
    b.events$.subscribe((e) => e.type === 'stateChange' && trips.push(e.to));
    for (let t = 0; t < 60_000; t += 10 / 3) {
      clock.t += 10 / 3;
      while (pending.length > 0 && pending[0]!.at <= clock.now()) {
        const x = pending.shift()!;
        if (x.fail) x.p.failure();
        else x.p.success();
      }
      if (t < 10_000) continue;
      calls++;
      try {
        pending.push({ at: clock.now() + 20, p: b.allow(), fail: outcome() < 0.5 });
      } catch {
        shed++;
      }
    }
    expect(shed / calls).toBeGreaterThan(0.2);
    expect(shed / calls).toBeLessThan(0.3);
    expect(trips).toEqual([]); // proportional shedding, never a trip
  });
});

describe('adaptiveBreaker: trips on a dead dependency', () => {
  it('trips on a run of 5 failures in a row once no call has succeeded for tripMs', async () => {
    const { clock, b } = setup({}, queueRandom([]));
    const events = collect(b);
    succeed(b);
    fail(b, 4);
    await clock.advance(249);
    fail(b, 3); // 7 in a row, but a success 249 ms ago
    expect(b.state).toBe('closed');
    await clock.advance(1);
    fail(b);
    expect(b.state).toBe('open');
    expect(transitions(events)).toEqual(['closed>open:threshold']);
    expect(events.find((e) => e.type === 'stateChange')).toMatchObject({ figure: 8 });
  });

  it('needs a longer run where failures are common: tripFailures over the recent success share', async () => {
    const { clock, b } = setup({}, queueRandom([], 0.999_999));
    // Alternate successes and failures: the success share settles near 1/2.
    for (let i = 0; i < 200; i++) {
      b.allow().success();
      b.allow().failure();
    }
    const share = b.stats().successShare;
    expect(share).toBeGreaterThan(0.45);
    expect(share).toBeLessThan(0.55);
    await clock.advance(300);
    const needed = Math.ceil(5 / ((share * 16) / 15)); // over the share at the last success, one failure ago
    fail(b, needed - 2);
    expect(b.state).toBe('closed');
    fail(b, 1);
    expect(b.stats().failuresInRow).toBe(needed);
    expect(b.state).toBe('open');
  });

  it('open: lets probeRatio of calls through, and one per forcePassMs', async () => {
    const { clock, b } = await tripped({}, queueRandom([0.95, 0.949, 0.5]));
    expect(b.allow()).toBeDefined(); // a draw >= 1 − probeRatio: a probe
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    await clock.advance(1_001);
    const events = collect(b);
    expect(b.allow()).toBeDefined(); // no draw: the force pass
    expect(events.map((e) => e.type)).toEqual(['forcePass']);
    expect(b.stats().admitRatio).toBe(0.05);
  });

  it('a stalled dependency trips it: calls go out and nothing comes back for tripMs and 3 mean successes', async () => {
    const { clock, b } = setup({}, queueRandom([], 0));
    const events = collect(b);
    for (let i = 0; i < 10; i++) {
      const p = b.allow();
      await clock.advance(100); // successes of 100 ms: the stall needs 300 ms
      p.success();
    }
    const waiting = Array.from({ length: 6 }, () => b.allow()); // 6 calls, no answer
    await clock.advance(299);
    b.allow();
    expect(b.state).toBe('closed');
    await clock.advance(2);
    expect(() => b.allow()).toThrow(BrokenCircuitError); // the stall trips it; this call is shed as a non-probe
    expect(transitions(events)).toEqual(['closed>open:stalled']);
    // The stalled calls answer late: they were admitted before the trip, so they change nothing.
    for (const p of waiting) p.failure();
    expect(b.state).toBe('open');
    expect(b.stats().failures).toBe(0);
  });

  it('a shed call is not a missing answer: only calls let through count toward a stall', async () => {
    // Half-open at a share of 0.2 (a probe answered), then one call out and draws of 0: every other call is shed.
    const { clock, b } = await tripped({}, queueRandom([0.97, 0.9], 0));
    b.allow().success();
    expect(b.state).toBe('half-open');
    const events = collect(b);
    const waiting = b.allow(); // let through (0.9 >= 1 − 0.2), no answer yet
    for (let i = 0; i < 10; i++) {
      await clock.advance(30);
      expect(() => b.allow()).toThrow(BrokenCircuitError);
    }
    // 300 ms with one call unanswered: not a stall (shed calls never went out)
    expect(b.state).toBe('half-open');
    expect(transitions(events)).toEqual([]);
    waiting.success();
    expect(b.stats().admitRatio).toBeCloseTo(0.8, 12);
  });

  it('a cancelled call is neither an answer nor a missing one', async () => {
    const { clock, b } = setup({}, queueRandom([], 0.999_999));
    succeed(b);
    await clock.advance(1);
    const cancelled = Array.from({ length: 6 }, () => b.allow());
    for (const p of cancelled) p.release();
    await clock.advance(300);
    b.allow(); // the released calls are not waiting: one unanswered call
    b.allow();
    expect(b.state).toBe('closed');
  });
});

describe('adaptiveBreaker: recovers at once', () => {
  it('the first probe that succeeds starts the ramp; each success multiplies the share by rampFactor; closed at 1, window empty', async () => {
    const { b } = await tripped({}, queueRandom([0.97, 0.85, 0.1, 0.5]));
    const events = collect(b);
    b.allow().success(); // the probe
    expect(b.state).toBe('half-open');
    expect(b.stats().admitRatio).toBeCloseTo(0.2, 12);
    b.allow().success(); // 0.85 >= 1 − 0.2: admitted
    expect(b.stats().admitRatio).toBeCloseTo(0.8, 12);
    expect(() => b.allow()).toThrow(BrokenCircuitError); // 0.1 < 1 − 0.8
    b.allow().success();
    expect(b.state).toBe('closed');
    expect(b.stats()).toMatchObject({ accepts: 0, failures: 0, admitRatio: 1 });
    expect(transitions(events)).toEqual(['open>half-open:probeSucceeded', 'half-open>closed:probesSucceeded']);
  });

  it('failures of calls admitted before the recovery do not undo it (a late timeout of the outage)', async () => {
    const { b } = await tripped({}, queueRandom([], 0.97));
    const late = [b.allow(), b.allow()]; // probes sent into the outage
    b.allow().success(); // a later probe answers: half-open
    for (const p of late) p.failure();
    expect(b.state).toBe('half-open');
    expect(b.stats().failuresInRow).toBe(0);
  });

  it('half-open: a renewed outage trips it again', async () => {
    const { clock, b } = await tripped({}, queueRandom([], 0.99));
    b.allow().success();
    expect(b.state).toBe('half-open');
    await clock.advance(250);
    const events = collect(b);
    // The ramp starts with a clean slate: 5 failures in a row, 250 ms after the probe's success.
    fail(b, 4);
    expect(b.state).toBe('half-open');
    fail(b, 1);
    expect(transitions(events)).toEqual(['half-open>open:probeFailed']);
  });

  it('an open breaker whose window has emptied starts afresh, closed', async () => {
    const { clock, b } = await tripped({ windowMs: 1_000, buckets: 10 });
    expect(b.evictable(clock.now())).toBe(false);
    await clock.advance(1_000);
    expect(b.evictable(clock.now())).toBe(true);
    const events = collect(b);
    b.allow();
    expect(b.state).toBe('closed');
    expect(transitions(events)).toEqual(['open>closed:windowExpired']);
  });
  it('a breaker closed because its window emptied forgets the outage: one failure after it is not a run', async () => {
    const { clock, b } = await tripped({ windowMs: 1_000, buckets: 10 });
    await clock.advance(1_000);
    b.allow().failure(); // closes it (windowExpired), then fails
    expect(b.state).toBe('closed');
    expect(b.stats()).toMatchObject({ failuresInRow: 1, successShare: 1 - 1 / 16 });
    fail(b, 3);
    expect(b.state).toBe('closed');
    fail(b, 1); // a fresh run of 5
    expect(b.state).toBe('open');
  });
});

describe('adaptiveBreaker: clock reads', () => {
  /** A manual clock that counts its reads. */
  function countingClock() {
    const c = { t: T0, reads: 0, now() { c.reads++; return c.t; }, setTimeout: () => 0, clearTimeout: () => {} };
    return c;
  }

  it('a healthy call reads the clock once: a success within a bucket of the last timed one is not timed', () => {
    const clock = countingClock();
    const b = adaptiveBreaker({ clock });
    clock.reads = 0;
    const first = b.allow();
    clock.t += 40;
    first.success(); // timed: 40 ms
    expect(clock.reads).toBe(2);
    succeed(b, 50); // within 100 ms of it: one read each, counted with 40 ms
    expect(clock.reads).toBe(52);
    expect(b.stats()).toMatchObject({ accepts: 51, meanMs: 40 });
    clock.t += 100; // a bucket later: the next success is timed again (0 ms)
    const reads = clock.reads;
    succeed(b);
    expect(clock.reads - reads).toBe(2);
    expect(b.stats().meanMs).toBeCloseTo((51 * 40) / 52, 9);
  });

  it('every failure is timed, and so is the first success after a transition', async () => {
    const clock = countingClock();
    const b = adaptiveBreaker({ clock, random: queueRandom([]) });
    succeed(b);
    succeed(b);
    const reads = clock.reads;
    fail(b, 2);
    expect(clock.reads - reads).toBe(4);
    b.reset();
    const afterReset = clock.reads;
    succeed(b);
    expect(clock.reads - afterReset).toBe(2);
  });

  it('listening changes no decision: an untimed success still gets an outcome event with a duration of its own', () => {
    const clock = countingClock();
    const b = adaptiveBreaker({ clock });
    succeed(b);
    const events = collect(b);
    const p = b.allow();
    clock.t += 7;
    p.success();
    const outcome = events.find((e) => e.type === 'outcome');
    expect(outcome).toMatchObject({ result: 'success', durationMs: 7 });
    // Counted with the held duration (0 ms, from the first success), at the breaker's last reading.
    expect(b.stats()).toMatchObject({ accepts: 2, meanMs: 0 });
  });
});

describe('adaptiveBreaker: isolate, reset, snapshot', () => {
  it('isolate() sheds everything until the last handle is disposed; then closed with an empty window', async () => {
    const { b } = setup();
    succeed(b, 3);
    const events = collect(b);
    const h1 = b.isolate();
    const h2 = b.isolate();
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(b.stats().admitRatio).toBe(0);
    h1.dispose();
    expect(b.state).toBe('open');
    h2.dispose();
    expect(b.state).toBe('closed');
    expect(b.stats().accepts).toBe(0);
    expect(transitions(events)).toEqual(['closed>open:isolated', 'open>closed:reset']);
  });

  it('snapshot() round-trips through JSON and initialState, and stays open when isolated', async () => {
    const { clock, b } = await tripped();
    const again = adaptiveBreaker({ clock, random: queueRandom([]), initialState: JSON.parse(JSON.stringify(b.snapshot())) });
    expect(again.snapshot()).toEqual(b.snapshot());
    expect(again.state).toBe('open');
    b.isolate();
    const isolated = adaptiveBreaker({ clock, initialState: JSON.parse(JSON.stringify(b.snapshot())) });
    expect(() => isolated.allow()).toThrow(BrokenCircuitError);
    isolated.reset();
    expect(isolated.state).toBe('closed');
  });

  it('keeps the last timed success in the snapshot; one without it loads and times the next success', async () => {
    const clock = new TestClock(T0);
    const b = adaptiveBreaker({ clock });
    const p = b.allow();
    await clock.advance(30);
    p.success();
    expect(b.snapshot().timed).toEqual({ at: T0 + 30, ms: 30 });
    const { timed: _, ...old } = b.snapshot();
    const again = adaptiveBreaker({ clock, initialState: old });
    succeed(again); // timed: 0 ms
    expect(again.stats().meanMs).toBe(15);
    expect(() => adaptiveBreaker({ initialState: { ...b.snapshot(), timed: { at: T0, ms: -1 } } })).toThrow(/initialState\.timed\.ms/);
  });

  it('refuses a snapshot of another window grid or another family', () => {
    const s = adaptiveBreaker().snapshot();
    expect(() => adaptiveBreaker({ windowMs: 1_000, buckets: 10, initialState: s })).toThrow(/initialState\.window/);
    expect(() => adaptiveBreaker({ initialState: { ...s, kind: 'sre' } as never })).toThrow(ConfigError);
  });

  it('reconfigure() changes options in place; windowMs and buckets cannot change', async () => {
    const { b } = await tripped({}, queueRandom([0.91]));
    b.reconfigure({ probeRatio: 0.1 });
    expect(b.allow()).toBeDefined();
    expect(() => b.reconfigure({ windowMs: 1_000, buckets: 10 })).toThrow(/cannot change in place/);
    expect(b.state).toBe('open');
  });
});

describe('adaptiveBreaker options', () => {
  it.each([
    [{ windowMs: 0 }, 'windowMs'],
    [{ buckets: 3 }, 'buckets'],
    [{ k: 0.5 }, 'k'],
    [{ protection: -1 }, 'protection'],
    [{ tripFailures: 0 }, 'tripFailures'],
    [{ tripMs: Number.NaN }, 'tripMs'],
    [{ probeRatio: 1.5 }, 'probeRatio'],
    [{ rampFactor: 1 }, 'rampFactor'],
    [{ minK: 1.1 }, 'minK'],
    [{ handle: 'yes' }, 'handle'],
  ])('%j is a ConfigError at %s', (options, path) => {
    try {
      adaptiveBreaker(options as never);
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).issues.map((i) => i.path)).toEqual([path]);
    }
  });
});
