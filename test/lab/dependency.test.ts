import { describe, expect, it } from 'vitest';
import { policy } from '../../api/builder.js';
import { TimeoutError } from '../../lib/errors.js';
import type { ExecutionContext } from '../../lib/policy.js';
import { seededRandom } from '../../lib/testing.js';
import { LabClock } from '../../lab/clock.js';
import { Dependency, isFreshAnswer, REPLICA, replicaAnswer, type DependencyProbe } from '../../lab/dependency.js';
import { SCENARIOS } from '../../lab/model.js';

function setup(scenario: keyof typeof SCENARIOS, atMs: number) {
  const clock = new LabClock(1_000_000);
  const seen = { attempts: 0, ok: 0, failed: 0, wasted: 0 };
  const probe: DependencyProbe = {
    onAttempt: () => void seen.attempts++,
    onAttemptSettled: (_t, ok) => void (ok ? seen.ok++ : seen.failed++),
    onWasted: () => void seen.wasted++,
  };
  // the run started `atMs` ago: C is in the scenario's state at that time
  const c = new Dependency(clock, seededRandom(3), SCENARIOS[scenario], probe, clock.now() - atMs);
  return { clock, c, seen };
}

describe('dependency C', () => {
  it('answers fresh plain data stamped with the time it finished', async () => {
    const { clock, c, seen } = setup('latency', 0);
    const answer = policy({ clock }).execute(c.op);
    await clock.run(clock.now() + 1_000);
    const value = await answer;
    expect(isFreshAnswer(value, 0)).toBe(true);
    expect(isFreshAnswer(value, 1_000)).toBe(false);
    expect(JSON.parse(JSON.stringify(value))).toEqual(value);
    expect(seen).toEqual({ attempts: 1, ok: 1, failed: 0, wasted: 0 });
  });

  it('stops the caller waiting when ctx.signal aborts, but keeps working on the job (wasted work)', async () => {
    const { clock, c, seen } = setup('latency', 40_000); // service time ×50: about 1 s
    const started = clock.now();
    const calls = Array.from({ length: 12 }, () =>
      policy({ clock })
        .execute(c.op, { timeout: 100 })
        .then(
          () => undefined,
          (e: unknown) => ({ error: e, at: clock.now() - started }),
        ),
    );
    await clock.run(started + 200);
    const gaveUp = (await Promise.all(calls)).filter((r) => r !== undefined);
    expect(gaveUp.length).toBeGreaterThanOrEqual(10); // a few jobs may finish within 100 ms
    for (const { error, at } of gaveUp) {
      expect(error).toBeInstanceOf(TimeoutError);
      expect(at).toBe(100);
    }
    expect(c.held).toBe(gaveUp.length); // C cannot tell the callers left: the jobs stay
    await clock.run(started + 60_000);
    expect(c.held).toBe(0);
    expect(seen.wasted).toBe(gaveUp.length);
  });

  it('refuses at once while down, and counts every attempt', async () => {
    const { clock, c, seen } = setup('hardOutage', 40_000);
    const r = policy({ clock }).execute(c.op).catch((e: unknown) => e);
    await clock.run(clock.now());
    expect(((await r) as Error).name).toBe('DependencyDownError');
    expect(seen).toEqual({ attempts: 1, ok: 0, failed: 1, wasted: 0 });
    expect(c.health()).toBe(0);
  });

  it("in a hanging outage accepts the call and never answers: only the caller's deadline ends the wait, and C does no work", async () => {
    const { clock, c, seen } = setup('hanging', 40_000);
    const started = clock.now();
    const r = policy({ clock })
      .execute(c.op, { timeout: 250 })
      .then(
        () => 'answered',
        (e: unknown) => ({ error: e, at: clock.now() - started }),
      );
    await clock.run(started + 10_000);
    const { error, at } = (await r) as { error: unknown; at: number };
    expect(error).toBeInstanceOf(TimeoutError);
    expect(at).toBe(250);
    expect(c.held).toBe(0);
    expect(seen).toEqual({ attempts: 1, ok: 0, failed: 1, wasted: 0 });
  });

  it('hits only the sick method when the fault names one: the other method finds C healthy', async () => {
    const { clock, c } = setup('methodSick', 40_000);
    const sick = policy({ clock }).execute(c.op, { meta: { method: 'get' } }).catch((e: unknown) => e);
    const other = policy({ clock }).execute(c.op, { meta: { method: 'list' } });
    await clock.run(clock.now() + 1_000);
    expect(((await sick) as Error).name).toBe('DependencyDownError');
    expect(isFreshAnswer(await other, 0)).toBe(true);
  });

  it('counts the side effects it applies per key: a job it finished twice for one key is a duplicate, a failed or refused one no effect', async () => {
    const { clock, c } = setup('latency', 0);
    const calls = ['a', 'a', 'b', 'c'].map((key) => policy({ clock }).execute(c.op, { key }));
    await clock.run(clock.now() + 1_000);
    await Promise.all(calls);
    expect(c.duplicateShare()).toBe(1 / 3); // a twice; b and c once
    // an effect key apart from ctx.key (a writer's payload key), and a job abandoned by its caller still applies it
    const late = policy({ clock })
      .execute((ctx) => c.call(ctx, 'b'), { key: 'write-id-1', timeout: 1 })
      .catch(() => undefined);
    await clock.run(clock.now() + 1_000);
    await late;
    expect(c.duplicateShare()).toBe(2 / 3);
    const down = setup('hardOutage', 40_000);
    const refused = policy({ clock: down.clock }).execute(down.c.op, { key: 'a' }).catch(() => undefined);
    await down.clock.run(down.clock.now() + 1_000);
    await refused;
    expect(down.c.duplicateShare()).toBe(0);
  });
});

describe("a caller's cancellation", () => {
  /** A context made by hand, not by a breakwater pipeline: C hears its caller by `signal`. */
  const handMade = (clock: LabClock, signal: AbortSignal): ExecutionContext => ({ signal, clock, deadline: undefined, attempt: 1, key: undefined, meta: {} });

  it('is heard by its signal when the context is not a pipeline\'s: in the queue (wasted work), on the way, and hanging', async () => {
    const queued = setup('latency', 40_000); // service time ×50: about 1 s
    const q = new AbortController();
    const r = queued.c.call(handMade(queued.clock, q.signal)).catch((e: unknown) => e);
    await queued.clock.run(queued.clock.now() + 10);
    q.abort(new Error('left'));
    expect(((await r) as Error).message).toBe('left');
    expect(queued.c.held).toBe(1); // C keeps the job
    await queued.clock.run(queued.clock.now() + 60_000);
    expect(queued.seen).toEqual({ attempts: 1, ok: 0, failed: 1, wasted: 1 });

    for (const scenario of ['networkDelay', 'hanging'] as const) {
      const { clock, c, seen } = setup(scenario, 40_000);
      const ctrl = new AbortController();
      const call = c.call(handMade(clock, ctrl.signal)).catch((e: unknown) => e);
      await clock.run(clock.now() + 10);
      ctrl.abort(new Error(`left ${scenario}`));
      expect(((await call) as Error).message).toBe(`left ${scenario}`);
      await clock.run(clock.now() + 10_000);
      expect(seen).toEqual({ attempts: 1, ok: 0, failed: 1, wasted: 0 });
      expect(c.held).toBe(0);
    }
  });

  it('refuses a call whose caller gave up before it reached C, by scope or by signal', async () => {
    const { clock, c, seen } = setup('latency', 0);
    const ctrl = new AbortController();
    ctrl.abort(new Error('gone'));
    expect((await c.call(handMade(clock, ctrl.signal)).catch((e: unknown) => e)) as Error).toHaveProperty('message', 'gone');
    const viaScope = policy({ clock }).execute(c.op, { signal: ctrl.signal }).catch((e: unknown) => e);
    expect(await viaScope).toHaveProperty('message', 'gone');
    expect(c.held).toBe(0);
    expect(seen.wasted).toBe(0);
  });
});

describe('a network delay', () => {
  it('delivers the call to C that much later, and a caller that gives up meanwhile drops it on the way: no work at C', async () => {
    const { clock, c, seen } = setup('networkDelay', 40_000);
    const started = clock.now();
    const answered = policy({ clock })
      .execute(c.op, { key: 'a' })
      .then(() => clock.now() - started);
    const dropped = policy({ clock })
      .execute(c.op, { key: 'b', timeout: 100 })
      .catch((e: unknown) => ({ error: e, at: clock.now() - started }));
    await clock.run(started + 2_000);
    expect(await answered).toBeGreaterThan(250); // 250 ms on the way, then the service time
    expect(await dropped).toEqual({ error: expect.any(TimeoutError), at: 100 });
    expect(seen).toEqual({ attempts: 2, ok: 1, failed: 1, wasted: 0 });
    expect(c.duplicateShare()).toBe(0);
  });
});

describe('the replica', () => {
  it('answers after its delay with data as old as its lag', async () => {
    const clock = new LabClock(1_000_000);
    const t0 = clock.now() - 5_000; // 5 s into the run
    const answer = replicaAnswer(clock, t0);
    await clock.run(clock.now() + REPLICA.delayMs);
    expect(await answer).toEqual({ from: 'replica', at: 5_000 + REPLICA.delayMs - REPLICA.lagMs });
    expect(isFreshAnswer(await answer, 0)).toBe(false);
  });
});
