import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, sreBreaker, type SreBreakerOptions } from '../../../api/index.js';
import { scriptedRandom, TestClock } from '../../../lib/testing.js';
import { below, collect, queueRandom, T0 } from '../../helpers/breakers.js';

function setup(options: SreBreakerOptions = {}, random: () => number = scriptedRandom()) {
  const clock = new TestClock(T0);
  const b = sreBreaker({ clock, random, ...options });
  return { clock, b };
}

const succeed = (b: ReturnType<typeof sreBreaker>, n = 1) => {
  for (let i = 0; i < n; i++) b.allow().success();
};
const fail = (b: ReturnType<typeof sreBreaker>, n = 1) => {
  for (let i = 0; i < n; i++) b.allow().failure();
};

describe('sreBreaker: window (A1–A4)', () => {
  it('A1: success, failure and drop each add to sum; drops count in total', () => {
    const { b } = setup({}, scriptedRandom(0));
    succeed(b);
    fail(b);
    expect(b.stats()).toMatchObject({ accepts: 1, total: 2 });
    fail(b, 5); // total 7, accepts 1: (7 − 5 − 1.5) / 8 > 0 → draw 0 → dropped
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(b.stats()).toMatchObject({ accepts: 1, total: 8 });
    expect([b.window.s0, b.window.s1, b.window.s2]).toEqual([1, 6, 1]);
  });

  it('A2: a record in bucket b disappears exactly at t0 + (b + buckets) × bucketMs', async () => {
    const { clock, b } = setup();
    await clock.advance(600); // bucket 2 (250 ms buckets from t0)
    succeed(b);
    await clock.advanceTo(T0 + (2 + 40) * 250 - 1);
    expect(b.stats().total).toBe(1);
    await clock.advance(1);
    expect(b.stats().total).toBe(0);
  });

  it('A2: the grid starts at construction time, not at multiples of the bucket length', async () => {
    const clock = new TestClock(T0 + 100); // not a multiple of 250
    const b = sreBreaker({ clock, random: scriptedRandom() });
    succeed(b); // bucket 0 = [T0+100, T0+350)
    await clock.advanceTo(T0 + 100 + 40 * 250 - 1);
    expect(b.stats().total).toBe(1);
    await clock.advance(1);
    expect(b.stats().total).toBe(0);
  });

  it('A2: advancing by buckets or more at once clears everything; reading does not mutate', async () => {
    const { clock, b } = setup();
    succeed(b, 3);
    await clock.advance(250);
    fail(b);
    const snapshot = () => ({ head: b.window.head, s: [b.window.s0, b.window.s1, b.window.s2], c: Array.from(b.window.counts ?? []) });
    const before = snapshot();
    await clock.advance(10_000);
    expect(b.stats()).toEqual({ accepts: 0, total: 0, failingBuckets: 0, workingBuckets: 0 });
    expect(snapshot()).toEqual(before);
    succeed(b);
    expect(b.stats()).toMatchObject({ accepts: 1, total: 1 });
  });

  it('A3/A4: streaks with empty buckets between them', async () => {
    const { clock, b } = setup();
    succeed(b, 3);
    await clock.advance(500); // an empty bucket between
    fail(b);
    await clock.advance(750);
    fail(b);
    // buckets: [S S S] [] [] [F] [] [] [F]
    expect(b.stats()).toEqual({ accepts: 3, total: 5, failingBuckets: 2, workingBuckets: 0 });
    await clock.advance(250);
    succeed(b);
    await clock.advance(500);
    succeed(b);
    expect(b.stats()).toEqual({ accepts: 5, total: 7, failingBuckets: 0, workingBuckets: 2 });
    await clock.advance(250);
    b.allow().success();
    b.allow().failure(); // a mixed bucket resets both streaks
    expect(b.stats()).toMatchObject({ failingBuckets: 0, workingBuckets: 0 });
  });

  it('A4: a drop-only bucket changes neither streak', async () => {
    const random = queueRandom([0]);
    const { clock, b } = setup({}, random);
    fail(b, 6); // no draws: (t − 5) / (t + 1) <= 0 for t <= 5
    expect(random.draws).toBe(0);
    await clock.advance(250);
    expect(() => b.allow()).toThrow(BrokenCircuitError); // 1/7 > 0 = r: dropped
    expect(b.stats()).toEqual({ accepts: 0, total: 7, failingBuckets: 1, workingBuckets: 0 });
    await clock.advance(250);
    succeed(b); // r = 0.999…: passes
    await clock.advance(250);
    expect(() => b.allow()).not.toThrow();
    expect(b.stats()).toMatchObject({ failingBuckets: 0, workingBuckets: 1 });
  });
});

describe('sreBreaker: decision (A5–A10)', () => {
  it('5 failures then 1 more: the next call is shed iff random < 1/7', () => {
    // (6 − 5 − w·0) / (6 + 1) = 1/7, no working buckets: p = 1/7
    for (const [r, shed] of [
      [below(1 / 7), true],
      [1 / 7, false],
    ] as const) {
      const { b } = setup({}, scriptedRandom(r));
      const events = collect(b);
      fail(b, 5);
      fail(b, 1);
      if (shed) expect(() => b.allow()).toThrow(BrokenCircuitError);
      else expect(() => b.allow()).not.toThrow();
      const rejected = events.find((e) => e.type === 'rejected');
      if (shed) expect(rejected).toMatchObject({ dropRatio: 1 / 7, state: 'open' });
      else expect(rejected).toBeUndefined();
    }
  });

  it('A5/A6: failing buckets lower the weight towards minK', async () => {
    const random = queueRandom([]);
    const { clock, b } = setup({}, random);
    const events = collect(b);
    succeed(b, 10);
    for (let i = 0; i < 4; i++) {
      await clock.advance(250);
      fail(b, 3);
    }
    await clock.advance(250);
    expect(b.stats()).toEqual({ accepts: 10, total: 22, failingBuckets: 4, workingBuckets: 0 });
    random.draws = 0;
    const values = [0];
    const r2 = queueRandom(values);
    (b as unknown as { random: () => number }).random = r2;
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    // w = 1.5 − 0.4·4/40 = 1.46; (22 − 5 − 14.6) / 23 = 2.4 / 23
    const w = 1.5 - ((1.5 - 1.1) * 4) / 40;
    const expected = (22 - 5 - Math.max(w, 1.1) * 10) / 23;
    const rejected = events.filter((e) => e.type === 'rejected').at(-1);
    expect(rejected).toMatchObject({ dropRatio: expected });
    expect(expected).toBeCloseTo(2.4 / 23, 12);
  });

  it('A5: the weight never falls below minK', async () => {
    // 40 failing buckets would give w = 1.1 exactly; with k 3, minK 2 and buckets 4, 4 failing buckets give 2
    const { clock, b } = setup({ k: 3, minK: 2, buckets: 4, windowMs: 1_000, protection: 0 }, queueRandom([]));
    succeed(b, 1);
    for (let i = 0; i < 3; i++) {
      await clock.advance(250);
      fail(b, 1);
    }
    // window: [S] [F] [F] [F]: failing 3, w = 3 − 1·3/4 = 2.25; (4 − 0 − 2.25) / 5 = 0.35
    const events = collect(b);
    (b as unknown as { random: () => number }).random = () => 0;
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(events.find((e) => e.type === 'rejected')).toMatchObject({ dropRatio: (4 - 0 - Math.max(3 - (1 * 3) / 4, 2) * 1) / 5 });
  });

  it('A6: protection — no shedding while total − protection − weighted accepts <= 0', () => {
    const { b } = setup({ protection: 10 }, scriptedRandom()); // any draw would throw
    fail(b, 11); // (11 − 10 − 0) / 12 > 0 only after the 11th
    expect(b.state).toBe('closed');
    const { b: b2 } = setup({ protection: 10 }, scriptedRandom(0));
    fail(b2, 11);
    expect(() => b2.allow()).toThrow(BrokenCircuitError);
  });

  it('A7: dropRatio <= 0 passes with no draw and leaves lastPass unset (no force pass later)', async () => {
    const random = queueRandom([0, 0]);
    const { clock, b } = setup({}, random);
    const events = collect(b);
    fail(b, 6);
    expect(random.draws).toBe(0);
    await clock.advance(5_000);
    // shedding now, and no call has passed step 10: no force pass, however long it has been
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    expect(random.draws).toBe(1);
    expect(events.some((e) => e.type === 'forcePass')).toBe(false);
  });

  it('A8: force pass strictly after forcePassMs since the last pass through step 10', async () => {
    const random = queueRandom([0.5, 0]);
    const { clock, b } = setup({}, random);
    const events = collect(b);
    fail(b, 6);
    b.allow().release(); // r 0.5 >= 1/7: passes, lastPass = T0
    await clock.advance(1_000);
    expect(() => b.allow()).toThrow(BrokenCircuitError); // exactly 1000 ms: draws (0) and sheds
    expect(random.draws).toBe(2);
    await clock.advance(1);
    expect(() => b.allow()).not.toThrow(); // 1001 ms: force pass, no draw
    expect(random.draws).toBe(2);
    expect(events.filter((e) => e.type === 'forcePass')).toEqual([
      { type: 'forcePass', policy: 'breaker', dropRatio: expect.any(Number), sinceLastPassMs: 1_001 },
    ]);
    // the force pass set lastPass: the next call draws again
    random.draws = 0;
    expect(() => b.allow()).not.toThrow();
    expect(random.draws).toBe(1);
  });

  it('A9: working buckets discount the drop ratio', async () => {
    for (const [r, shed] of [
      [below(0.2 * (38 / 40)), true],
      [0.2 * (38 / 40), false],
    ] as const) {
      const random = queueRandom([]);
      const { clock, b } = setup({}, random);
      fail(b, 10);
      await clock.advance(250);
      succeed(b, 2);
      await clock.advance(250);
      succeed(b, 2);
      await clock.advance(250);
      expect(b.stats()).toEqual({ accepts: 4, total: 14, failingBuckets: 0, workingBuckets: 2 });
      // (14 − 5 − 1.5·4) / 15 = 0.2, × (40 − 2) / 40
      const events = collect(b);
      (b as unknown as { random: () => number }).random = () => r;
      if (shed) {
        expect(() => b.allow()).toThrow(BrokenCircuitError);
        expect(events.find((e) => e.type === 'rejected')).toMatchObject({ dropRatio: 0.2 * (38 / 40) });
      } else expect(() => b.allow()).not.toThrow();
    }
  });

  it('A10: a shed call records a drop and throws BrokenCircuitError naming the breaker', () => {
    const { b } = setup({ name: 'users' }, scriptedRandom(0));
    fail(b, 6);
    let error: unknown;
    try {
      b.allow();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(BrokenCircuitError);
    expect((error as BrokenCircuitError).policy).toBe('users');
    expect(b.stats()).toMatchObject({ total: 7, accepts: 0 });
  });
});

describe('sreBreaker: permits (A11)', () => {
  it('a passed call records nothing until it settles, in the bucket current then; settling twice does nothing', async () => {
    const { clock, b } = setup();
    const permit = b.allow();
    expect(b.stats().total).toBe(0);
    await clock.advance(10_400); // bucket 41
    permit.success();
    permit.success();
    permit.failure();
    expect(b.stats()).toMatchObject({ accepts: 1, total: 1 });
    await clock.advanceTo(T0 + (41 + 40) * 250 - 1);
    expect(b.stats().total).toBe(1);
    await clock.advance(1);
    expect(b.stats().total).toBe(0);
  });

  it('release records nothing', () => {
    const { b } = setup();
    const p = b.allow();
    p.release();
    p.success();
    expect(b.stats().total).toBe(0);
  });
});

describe('sreBreaker: state (A13, A14)', () => {
  it("is 'open' while the last step-6 drop ratio was > 0, 'closed' when <= 0; state$ replays and emits on change only", async () => {
    const random = queueRandom([0.5, 0.5]);
    const { clock, b } = setup({}, random);
    const seen: string[] = [];
    const events = collect(b);
    fail(b, 6);
    b.state$.subscribe((s) => seen.push(s));
    expect(seen).toEqual(['closed']);
    b.allow().release();
    b.allow().release();
    expect(b.state).toBe('open');
    expect(seen).toEqual(['closed', 'open']);
    const change = events.find((e) => e.type === 'stateChange');
    expect(change).toMatchObject({ from: 'closed', to: 'open', reason: 'dropRatio', figure: 1 / 7 });
    // a force pass leaves the state alone
    await clock.advance(1_001);
    b.allow().release();
    expect(events.some((e) => e.type === 'forcePass')).toBe(true);
    expect(b.state).toBe('open');
    await clock.advance(10_000);
    b.allow().success();
    expect(b.state).toBe('closed');
    expect(seen).toEqual(['closed', 'open', 'closed']);
    const late: string[] = [];
    b.state$.subscribe((s) => late.push(s));
    expect(late).toEqual(['closed']);
  });

  it('stats() reports accepts, total and the streaks', () => {
    const { b } = setup();
    succeed(b, 2);
    fail(b);
    expect(b.stats()).toEqual({ accepts: 2, total: 3, failingBuckets: 0, workingBuckets: 0 });
  });

  it('isolate() sheds every call until the last handle is disposed, then closes empty', () => {
    const { b } = setup();
    fail(b, 2);
    const h1 = b.isolate();
    const h2 = b.isolate();
    expect(b.state).toBe('open');
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    h1.dispose();
    h1.dispose();
    expect(() => b.allow()).toThrow(BrokenCircuitError);
    h2[Symbol.dispose]();
    expect(b.state).toBe('closed');
    expect(b.stats().total).toBe(0);
    expect(() => b.allow()).not.toThrow();
  });

  it('reset() returns to closed with empty counters and drops outcomes of calls admitted before', () => {
    const { b } = setup({}, scriptedRandom(0.5));
    fail(b, 6);
    const p = b.allow();
    expect(b.state).toBe('open');
    b.reset();
    expect(b.state).toBe('closed');
    p.failure();
    expect(b.stats().total).toBe(0);
  });
});
