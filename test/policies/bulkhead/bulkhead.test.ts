import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  bulkhead,
  BulkheadRejectedError,
  ConfigError,
  isBulkheadRejectedError,
  policy,
  TimeoutError,
  type PolicyEvent,
} from '../../../api/index.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { deferred } from '../../helpers/track.js';

const START = 1_700_000_000_000;

const flush = () => new Promise((r) => setImmediate(r));

describe('bulkhead', () => {
  it('runs at most limit at once, queues in order and rejects the rest', async () => {
    const b = bulkhead({ limit: 2, queue: 2 });
    const gates = Array.from({ length: 5 }, () => deferred<number>());
    const started: number[] = [];
    const calls = gates.map((g, i) =>
      b.execute(() => {
        started.push(i);
        return g.promise;
      }),
    );
    await expect(calls[4]).rejects.toBeInstanceOf(BulkheadRejectedError);
    expect(started).toEqual([0, 1]);
    expect(b.executing).toBe(2);
    expect(b.queued).toBe(2);
    gates[1]!.resolve(1);
    await flush();
    expect(started).toEqual([0, 1, 2]);
    gates[0]!.resolve(0);
    await flush();
    expect(started).toEqual([0, 1, 2, 3]);
    gates[2]!.resolve(2);
    gates[3]!.resolve(3);
    await expect(Promise.all(calls.slice(0, 4))).resolves.toEqual([0, 1, 2, 3]);
    expect(b.executing).toBe(0);
    expect(b.queued).toBe(0);
  });

  it('never exceeds limit and keeps FIFO order under a random workload', async () => {
    const clock = new TestClock(START);
    const random = seededRandom(7);
    const b = bulkhead({ limit: 3, queue: 1_000, clock });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 200; i++) {
      const ms = Math.floor(random() * 50);
      calls.push(
        b.execute(async () => {
          order.push(i);
          running++;
          peak = Math.max(peak, running);
          await new Promise<void>((r) => clock.setTimeout(r, ms));
          running--;
          if (random() < 0.3) throw new Error('x');
        }).catch(() => undefined),
      );
    }
    await clock.runAll();
    await Promise.allSettled(calls);
    expect(peak).toBe(3);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order).toHaveLength(200);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an aborted waiter leaves the queue at once and its listener is removed', async () => {
    const b = bulkhead({ limit: 1, queue: 2 });
    const gate = deferred<string>();
    const first = b.execute(() => gate.promise);
    const ac = new AbortController();
    const ac2 = new AbortController();
    let ran = false;
    const waiting = b.execute(() => (ran = true), { signal: ac.signal });
    const second = b.execute(() => 'second', { signal: ac2.signal });
    expect(b.queued).toBe(2);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(1);
    ac.abort(new Error('bye'));
    await expect(waiting).rejects.toThrow('bye');
    expect(b.queued).toBe(1);
    expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
    gate.resolve('first');
    await expect(first).resolves.toBe('first');
    await expect(second).resolves.toBe('second');
    expect(ran).toBe(false);
    expect(getEventListeners(ac2.signal, 'abort')).toHaveLength(0);
    expect(b.executing).toBe(0);
  });

  it('a deadline passing in the queue rejects with TimeoutError and frees the queue place', async () => {
    const clock = new TestClock(START);
    const b = bulkhead({ limit: 1, queue: 1, clock });
    const gate = deferred();
    const first = b.execute(() => gate.promise);
    const waiting = b.execute(() => 'late', { timeout: 100 });
    const settled = expect(waiting).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(100);
    await settled;
    expect(b.queued).toBe(0);
    gate.resolve();
    await first;
    expect(clock.pendingTimers).toBe(0);
  });

  it('holds the slot until an abandoned operation itself settles', async () => {
    const clock = new TestClock(START);
    const gate = deferred<string>();
    const p = policy({ clock }).timeout(50).bulkhead({ limit: 1, queue: 0 });
    const first = p.execute(() => gate.promise);
    const firstDone = expect(first).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(50);
    await firstDone;
    // the caller has given up, the operation runs on: still no slot
    await expect(p.execute(() => 'x')).rejects.toSatisfy(isBulkheadRejectedError);
    gate.resolve('done');
    await flush();
    await expect(p.execute(() => 'y')).resolves.toBe('y');
  });

  it('holds the slot while the caller has left, when the bulkhead is outside the timeout too', async () => {
    const gate = deferred<string>();
    const b = bulkhead({ limit: 1 });
    const ac = new AbortController();
    const first = b.execute(() => gate.promise, { signal: ac.signal });
    ac.abort(new Error('gone'));
    await expect(first).rejects.toThrow('gone');
    await expect(b.execute(() => 1)).rejects.toBeInstanceOf(BulkheadRejectedError);
    gate.resolve('late');
    await flush();
    await expect(b.execute(() => 2)).resolves.toBe(2);
  });

  it('handles sync throws, plain values and thenables', async () => {
    const b = bulkhead({ limit: 1 });
    await expect(
      b.execute(() => {
        throw 'str';
      }),
    ).rejects.toBe('str');
    await expect(b.execute(() => 5)).resolves.toBe(5);
    const thenable = { then: (ok: (v: number) => void) => ok(6) };
    await expect(b.execute(() => thenable as PromiseLike<number>)).resolves.toBe(6);
    expect(b.executing).toBe(0);
  });

  it('emits queued, rejected and one outcome per call', async () => {
    const clock = new TestClock(START);
    const b = bulkhead({ limit: 1, queue: 1, clock, name: 'db' });
    const events: PolicyEvent[] = [];
    b.events$.subscribe((e) => events.push(e));
    const gate = deferred();
    const a = b.execute(() => gate.promise);
    const q = b.execute(() => 'q');
    await expect(b.execute(() => 'r')).rejects.toBeInstanceOf(BulkheadRejectedError);
    gate.resolve();
    await a;
    await q;
    expect(events.map((e) => e.type + (e.type === 'outcome' ? `:${e.result}` : ''))).toEqual([
      'queued',
      'limitRejected',
      'outcome:rejected',
      'outcome:success',
      'outcome:success',
    ]);
    expect(events.every((e) => e.policy === 'db')).toBe(true);
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    const bad = [{ limit: 0 }, { limit: 1.5 }, { limit: NaN }, { limit: 1, queue: -1 }, { limit: 1, queue: Infinity }, { limit: '2' }, { limit: 1, wait: 1 }];
    const paths = ['limit', 'limit', 'limit', 'queue', 'queue', 'limit', 'wait'];
    bad.forEach((o, i) => {
      try {
        bulkhead(o as never);
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).issues[0]!.path).toBe(paths[i]);
      }
    });
  });
});

type Crit = 'critical' | 'default' | 'sheddable';

/** Which criticalities were refused, in order, when `n` calls arrive 1 ms apart, each holding its slot `holdMs`. */
async function overload(b: ReturnType<typeof bulkhead>, clock: TestClock, random: () => number, n: number, holdMs: number) {
  const refused: Crit[] = [];
  const calls: Promise<unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const r = random();
    const c: Crit = r < 0.2 ? 'critical' : r < 0.6 ? 'default' : 'sheddable';
    calls.push(
      b
        .execute(() => new Promise<void>((ok) => clock.setTimeout(ok, holdMs)), { meta: { criticality: c } })
        .catch((e: unknown) => {
          if (e instanceof BulkheadRejectedError) refused.push(c);
        }),
    );
    await clock.advance(1);
  }
  await clock.runAll();
  await Promise.all(calls);
  return refused;
}

describe('bulkhead by criticality', () => {
  it('under overload refuses sheddable calls before any critical one, and no critical call while others could give way', async () => {
    const clock = new TestClock(START);
    // Demand is 20 calls at once against a limit of 10; critical calls alone need 4.
    const b = bulkhead({ limit: 10, queue: 5, clock });
    const refused = await overload(b, clock, seededRandom(11), 400, 20);
    const count = (c: Crit) => refused.filter((r) => r === c).length;
    expect(refused.indexOf('sheddable')).toBe(0);
    expect(count('critical')).toBe(0);
    expect(count('sheddable')).toBeGreaterThan(count('default'));
    expect(count('default')).toBeGreaterThan(0);
  });

  it('keeps reserve.sheddable of the limit from sheddable calls, reserve.default from default ones', async () => {
    const b = bulkhead({ limit: 10, reserve: { default: 0.1, sheddable: 0.3 } });
    const gate = deferred();
    const run = (c: Crit) => b.execute(() => gate.promise, { meta: { criticality: c } });
    const kept = Array.from({ length: 7 }, () => run('sheddable'));
    await expect(run('sheddable')).rejects.toBeInstanceOf(BulkheadRejectedError);
    kept.push(run('default'), run('default'));
    await expect(run('default')).rejects.toBeInstanceOf(BulkheadRejectedError);
    kept.push(run('critical'));
    expect(b.executing).toBe(10);
    await expect(run('critical')).rejects.toBeInstanceOf(BulkheadRejectedError);
    gate.resolve();
    await Promise.all(kept);
  });

  it('runs a sheddable call in an idle bulkhead of 1 (a reserve never locks a class out of idle capacity)', async () => {
    const b = bulkhead({ limit: 1, reserve: { sheddable: 0.9 } });
    await expect(b.execute(() => 'ran', { meta: { criticality: 'sheddable' } })).resolves.toBe('ran');
  });

  it('serves waiters most critical first, and a full queue gives up its newest least critical waiter', async () => {
    const b = bulkhead({ limit: 1, queue: 3, reserve: { sheddable: 0 } });
    const events: PolicyEvent[] = [];
    b.events$.subscribe((e) => events.push(e));
    const gate = deferred();
    const order: string[] = [];
    const run = (c: Crit, id: string) =>
      b.execute(
        () => {
          order.push(id);
          return id === 'first' ? gate.promise : undefined;
        },
        { meta: { criticality: c } },
      );
    const first = run('default', 'first');
    const s1 = run('sheddable', 's1');
    const s2 = run('sheddable', 's2');
    const d1 = run('default', 'd1');
    const c1 = run('critical', 'c1'); // the queue is full: s2 gives way
    await expect(s2).rejects.toBeInstanceOf(BulkheadRejectedError);
    expect(events.filter((e) => e.type === 'limitRejected')).toEqual([
      { type: 'limitRejected', policy: 'bulkhead', reason: 'bulkheadFull', criticality: 'sheddable' },
    ]);
    const c2 = run('critical', 'c2'); // s1 gives way
    await expect(s1).rejects.toBeInstanceOf(BulkheadRejectedError);
    const c3 = run('critical', 'c3'); // d1 gives way
    await expect(d1).rejects.toBeInstanceOf(BulkheadRejectedError);
    await expect(run('critical', 'c4')).rejects.toBeInstanceOf(BulkheadRejectedError); // nobody less critical waits
    gate.resolve();
    await Promise.all([first, c1, c2, c3]);
    expect(order).toEqual(['first', 'c1', 'c2', 'c3']);
  });

  it('lets a critical call overtake sheddable waiters that the reserve holds back', async () => {
    const b = bulkhead({ limit: 4, queue: 2, reserve: { sheddable: 0.5 } });
    const gate = deferred();
    const held = [b.execute(() => gate.promise), b.execute(() => gate.promise)];
    const waiting = b.execute(() => 'shed', { meta: { criticality: 'sheddable' } });
    expect(b.queued).toBe(1);
    await expect(b.execute(() => 'crit', { meta: { criticality: 'critical' } })).resolves.toBe('crit');
    gate.resolve();
    await Promise.all(held);
    await expect(waiting).resolves.toBe('shed');
  });

  it('behaves as before when no call carries a criticality', async () => {
    const b = bulkhead({ limit: 10 });
    const gate = deferred();
    const held = Array.from({ length: 10 }, () => b.execute(() => gate.promise));
    expect(b.executing).toBe(10);
    gate.resolve();
    await Promise.all(held);
  });
});

describe('bulkhead partitions', () => {
  it('lets a partition borrow idle slots and gives freed slots to a partition under its share first', async () => {
    const b = bulkhead({ limit: 10, queue: 20, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' });
    const gates = { live: [] as (() => void)[], batch: [] as (() => void)[] };
    const run = (t: 'live' | 'batch') =>
      b.execute(() => new Promise<void>((ok) => gates[t].push(ok)), { meta: { traffic: t } });
    const calls = Array.from({ length: 15 }, () => run('batch'));
    // Idle: batch borrows every slot, the rest wait.
    expect(b.runningIn('batch')).toBe(10);
    expect(b.queued).toBe(5);
    calls.push(...Array.from({ length: 9 }, () => run('live')));
    expect(b.queued).toBe(14);
    // Each freed slot goes to live until live holds its 9.
    for (let i = 0; i < 9; i++) {
      gates.batch.shift()!();
      await flush();
    }
    expect(b.runningIn('live')).toBe(9);
    expect(b.runningIn('batch')).toBe(1);
    // Batch keeps its own share: the waiting batch calls take the batch slot in turn.
    gates.batch.shift()!();
    await flush();
    expect(b.runningIn('batch')).toBe(1);
    expect(b.runningIn('live')).toBe(9);
    while (gates.live.length + gates.batch.length > 0) {
      for (const g of [...gates.live.splice(0), ...gates.batch.splice(0)]) g();
      await flush();
    }
    await Promise.all(calls);
    expect(b.executing).toBe(0);
  });

  it('guarantees a partition its share against a flood that fills the queue', async () => {
    const b = bulkhead({ limit: 4, queue: 2, partitions: { critical: 0.5, sheddable: 0.5 }, reserve: { sheddable: 0.25 } });
    const events: PolicyEvent[] = [];
    b.events$.subscribe((e) => events.push(e));
    const gate = deferred();
    const shed = (n: number) => Array.from({ length: n }, () => b.execute(() => gate.promise, { meta: { criticality: 'sheddable' } }).catch((e: unknown) => e));
    const flood = shed(6);
    expect(b.executing).toBe(3); // the reserve keeps one slot from sheddable calls borrowing
    expect(b.queued).toBe(2);
    const critical = [b.execute(() => gate.promise, { meta: { criticality: 'critical' } })];
    expect(b.executing).toBe(4);
    // A critical call under its share takes the place of the newest sheddable waiter.
    critical.push(b.execute(() => gate.promise, { meta: { criticality: 'critical' } }));
    expect(b.queued).toBe(2);
    expect(events.filter((e) => e.type === 'limitRejected')).toContainEqual({
      type: 'limitRejected',
      policy: 'bulkhead',
      reason: 'bulkheadFull',
      criticality: 'sheddable',
      partition: 'sheddable',
    });
    gate.resolve();
    await Promise.all(critical);
    expect((await Promise.all(flood)).filter((e) => e instanceof BulkheadRejectedError)).toHaveLength(2);
  });

  it('never runs more than limit, runs or refuses every call and leaves nothing behind, under a random mix', async () => {
    const clock = new TestClock(START);
    const random = seededRandom(17);
    const b = bulkhead({ limit: 5, queue: 4, clock, partitions: { a: 0.6, b: 0.2 }, partitionBy: 'p', reserve: { default: 0.2, sheddable: 0.4 } });
    let running = 0;
    let peak = 0;
    let ran = 0;
    let refused = 0;
    const calls: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      const criticality = (['critical', 'default', 'sheddable'] as const)[Math.floor(random() * 3)]!;
      const p = ['a', 'b', 'none'][Math.floor(random() * 3)]!;
      const ms = Math.floor(random() * 30);
      calls.push(
        b
          .execute(
            async () => {
              running++;
              ran++;
              peak = Math.max(peak, running);
              await new Promise<void>((r) => clock.setTimeout(r, ms));
              running--;
            },
            { meta: { criticality, p } },
          )
          .catch((e: unknown) => {
            expect(e).toBeInstanceOf(BulkheadRejectedError);
            refused++;
          }),
      );
      if (random() < 0.5) await clock.advance(Math.floor(random() * 10));
    }
    await clock.runAll();
    await Promise.all(calls);
    expect(peak).toBe(5);
    expect(ran + refused).toBe(300);
    expect(refused).toBeGreaterThan(0);
    expect([b.executing, b.queued, b.runningIn('a'), b.runningIn('b')]).toEqual([0, 0, 0, 0]);
  });

  it('runs a call within its partition share even where the reserve of its criticality would hold it back', async () => {
    const b = bulkhead({ limit: 4, queue: 1, partitions: { sheddable: 0.5 }, reserve: { sheddable: 0.75 } });
    const gate = deferred();
    const critical = Array.from({ length: 3 }, () => b.execute(() => gate.promise, { meta: { criticality: 'critical' } }));
    // 3 of 4 slots run: the reserve alone would keep a sheddable call out (it may borrow only while none runs).
    const first = b.execute(() => gate.promise, { meta: { criticality: 'sheddable' } });
    expect([b.executing, b.runningIn('sheddable')]).toEqual([4, 1]);
    const second = b.execute(() => 'second', { meta: { criticality: 'sheddable' } });
    expect(b.queued).toBe(1);
    gate.resolve();
    await Promise.all([...critical, first]);
    await expect(second).resolves.toBe('second');
  });

  it('makes room in a full queue for a partition under its share by refusing the newest waiter of one over it', async () => {
    const b = bulkhead({ limit: 2, queue: 1, partitions: { live: 0.5, batch: 0.5 }, partitionBy: 'traffic' });
    const events: PolicyEvent[] = [];
    b.events$.subscribe((e) => events.push(e));
    const gate = deferred();
    const run = (traffic: string) => b.execute<unknown>(() => (traffic === 'live' ? 'live' : gate.promise), { meta: { traffic } });
    const batch = [run('batch'), run('batch')];
    const waiting = run('batch');
    const live = run('live'); // same criticality: only its partition's share gives it the place
    await expect(waiting).rejects.toBeInstanceOf(BulkheadRejectedError);
    expect(events.filter((e) => e.type === 'limitRejected')).toEqual([{ type: 'limitRejected', policy: 'bulkhead', reason: 'bulkheadFull', partition: 'batch' }]);
    // A second live call finds only a live waiter: nobody over its share to give way.
    await expect(run('live')).rejects.toBeInstanceOf(BulkheadRejectedError);
    gate.resolve();
    await Promise.all(batch);
    await expect(live).resolves.toBe('live');
  });

  it('puts calls of no partition on borrowed capacity only', async () => {
    const b = bulkhead({ limit: 2, partitions: { live: 1 }, partitionBy: 'traffic', reserve: { sheddable: 0 } });
    const gate = deferred();
    const other = b.execute(() => gate.promise, { meta: { traffic: 'other' } });
    const live = b.execute(() => gate.promise, { meta: { traffic: 'live' } });
    await expect(b.execute(() => 1, { meta: { traffic: 'live' } })).rejects.toBeInstanceOf(BulkheadRejectedError);
    expect(b.runningIn('live')).toBe(1);
    expect(b.runningIn('other')).toBe(0);
    gate.resolve();
    await Promise.all([other, live]);
  });

  it('refuses bad reserves and partitions with a ConfigError naming the option and the rule', () => {
    const cases: [unknown, string, string][] = [
      [{ limit: 1, reserve: { sheddable: 1 } }, 'reserve.sheddable', 'expected a number in [0, 1)'],
      [{ limit: 1, reserve: { default: -0.1 } }, 'reserve.default', 'expected a number in [0, 1)'],
      [{ limit: 1, reserve: { default: 0.5, sheddable: 0.2 } }, 'reserve.sheddable', 'must be >= default: sheddable calls are shed first'],
      [{ limit: 1, reserve: { critical: 0.1 } }, 'reserve.critical', 'unknown option'],
      [{ limit: 1, partitions: { a: 0 } }, 'partitions.a', 'expected a number in (0, 1]'],
      [{ limit: 1, partitions: { a: 0.7, b: 0.4 } }, 'partitions', 'the shares must add up to at most 1'],
      [{ limit: 1, partitions: [0.5] }, 'partitions', 'Invalid input: expected record, received array'],
      [{ limit: 1, partitionBy: '' }, 'partitionBy', 'expected a non-empty string'],
    ];
    for (const [o, path, message] of cases) {
      let error: unknown;
      try {
        bulkhead(o as never);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(o)).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).issues).toEqual([{ path, message }]);
    }
  });
});
