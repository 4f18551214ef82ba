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
