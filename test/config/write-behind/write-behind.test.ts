import { describe, expect, it } from 'vitest';
import { BrokenCircuitError, ConfigError, isConfigError, memoryWriteQueue, strategies, WriteBehind, type PolicyEvent } from '../../../api/index.js';
import { fromConfig } from '../../../api/config.js';
import { seededRandom, TestClock } from '../../../lib/testing.js';
import { collect } from '../../helpers/breakers.js';
import { issuesOf } from '../../helpers/config-issues.js';

const START = 1_700_000_000_000;
const T0 = START;

interface Order {
  customer: string;
  n: number;
}

function target() {
  const state = { up: true, delivered: [] as Order[], keys: [] as (string | undefined)[] };
  const deliver = (o: Order, ctx: { key: string | undefined }) => {
    if (!state.up) return Promise.reject(new Error('target down'));
    state.delivered.push(o);
    state.keys.push(ctx.key);
    return undefined;
  };
  return { state, deliver };
}

describe('writeBehind', () => {
  it('delivers at once while the target is up', async () => {
    const clock = new TestClock(START);
    const t = target();
    const w = strategies.writeBehind({ deliver: t.deliver, keyOf: (o: Order) => o.customer, clock, random: seededRandom(1) });
    await expect(w.write({ customer: 'a', n: 1 })).resolves.toMatchObject({ status: 'delivered' });
    expect(t.state.delivered).toEqual([{ customer: 'a', n: 1 }]);
    expect(t.state.keys[0]).toMatch(/./);
    expect(clock.pendingTimers).toBe(0);
  });

  it('queues what it cannot deliver, loses nothing, and replays in order per key once the target is back', async () => {
    const clock = new TestClock(START);
    const t = target();
    const w = strategies.writeBehind({
      deliver: t.deliver,
      keyOf: (o: Order) => o.customer,
      replayIntervalMs: 500,
      breaker: { protection: 1_000 },
      clock,
      random: seededRandom(1),
    });
    const events: PolicyEvent[] = [];
    w.events$.subscribe((e) => events.push(e));
    t.state.up = false;
    const writes = [];
    for (let n = 1; n <= 6; n++) writes.push(await w.write({ customer: n % 2 ? 'a' : 'b', n }));
    expect(writes.every((r) => r.status === 'queued')).toBe(true);
    expect(w.queued).toBe(6);
    await clock.advance(500); // a replay round while still down: nothing is lost
    expect(w.queued).toBe(6);
    t.state.up = true;
    // a new write of a key with queued writes waits behind them
    await expect(w.write({ customer: 'a', n: 7 })).resolves.toMatchObject({ status: 'queued' });
    await clock.advance(500);
    expect(w.queued).toBe(0);
    const byKey = (k: string) => t.state.delivered.filter((o) => o.customer === k).map((o) => o.n);
    expect(byKey('a')).toEqual([1, 3, 5, 7]);
    expect(byKey('b')).toEqual([2, 4, 6]);
    // each delivery carried its write's id as the idempotency key
    const queuedIds = events.filter((e) => e.type === 'writeQueued').map((e) => (e as { id: string }).id);
    expect(t.state.keys).toEqual(queuedIds);
    expect(events.filter((e) => e.type === 'replayed')).toHaveLength(7);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a writer on the same store picks up writes queued before a restart', async () => {
    const clock = new TestClock(START);
    const store = memoryWriteQueue();
    const t = target();
    t.state.up = false;
    const first = strategies.writeBehind({ deliver: t.deliver, store, clock });
    await first.write({ customer: 'a', n: 1 });
    await first.write({ customer: 'a', n: 2 });
    first.close();
    t.state.up = true;
    const second = strategies.writeBehind({ deliver: t.deliver, store, replayIntervalMs: 100, clock });
    await clock.advance(100);
    expect(t.state.delivered.map((o) => o.n)).toEqual([1, 2]);
    expect(second.queued).toBe(0);
  });

  it('an ack the store refuses stops the round without an unhandled rejection; the write is replayed, same id, later', async () => {
    const clock = new TestClock(START);
    const inner = memoryWriteQueue();
    let ackFails = true;
    const store = { push: inner.push.bind(inner), peek: inner.peek.bind(inner), ack: (id: string) => (ackFails ? Promise.reject(new Error('store down')) : inner.ack(id)) };
    const t = target();
    t.state.up = false;
    const w = strategies.writeBehind({ deliver: t.deliver, store, replayIntervalMs: 100, breaker: { protection: 1_000 }, clock });
    await w.write({ customer: 'a', n: 1 });
    await w.write({ customer: 'a', n: 2 });
    t.state.up = true;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await clock.advance(100);
      await new Promise((r) => setImmediate(r));
      expect(t.state.delivered.map((o) => o.n)).toEqual([1]); // delivered, ack refused: the round stopped there
      expect(w.queued).toBe(2);
      ackFails = false;
      await clock.advance(100);
      expect(t.state.delivered.map((o) => o.n)).toEqual([1, 1, 2]);
      expect(t.state.keys[0]).toBe(t.state.keys[1]); // the replay carries the same write id
      expect(w.queued).toBe(0);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('is built from config, with its functions and store named', async () => {
    const t = target();
    const w = fromConfig({ strategy: 'writeBehind', deliver: 'save', keyOf: 'byCustomer', timeoutMs: 200 }, { save: t.deliver, byCustomer: (o: Order) => o.customer });
    expect(w).toBeInstanceOf(WriteBehind);
    await expect(w.write({ customer: 'c', n: 1 })).resolves.toMatchObject({ status: 'delivered' });
    w.close();
    expect(() => fromConfig({ strategy: 'writeBehind', deliver: 'missing' }, {})).toThrow(/deliver/);
    expect(() => fromConfig({ strategy: 'writeBehind', deliver: 'save', timeoutMs: -1 }, { save: t.deliver })).toThrow(ConfigError);
  });
});

describe('config/write-behind: events, defaults, order and batches', () => {
  const down = () => Promise.reject(new Error('down'));

  it('defaults: named "writeBehind", a 1000 ms timeout, replays every 1000 ms; ids carry the time and a sequence', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: number[] = [];
    const w = writeBehind<number>({ deliver: (n) => (up ? void got.push(n) : down()), clock, random: () => 0 });
    expect(w.name).toBe('writeBehind');
    expect(w.pipeline.policies.map((p) => p.name)).toEqual(['writeBehind.timeout', 'writeBehind.breaker']);
    expect((w.pipeline.policies[0] as unknown as { ms: number }).ms).toBe(1_000);
    const events = collect(w);
    const r1 = await w.write(1);
    const r2 = await w.write(2, { key: 'k' });
    expect(r1).toEqual({ status: 'queued', id: `${T0.toString(36)}-0-0` });
    expect(r2).toEqual({ status: 'queued', id: `${T0.toString(36)}-1-0` });
    expect(events.filter((e) => e.type === 'writeQueued')).toEqual([
      { type: 'writeQueued', policy: 'writeBehind', id: r1.id, key: '' },
      { type: 'writeQueued', policy: 'writeBehind', id: r2.id, key: 'k' },
    ]);
    up = true;
    await clock.advance(999);
    expect(got).toEqual([]);
    await clock.advance(1);
    expect(got).toEqual([1, 2]);
    expect(events.filter((e) => e.type === 'replayed')).toEqual([
      { type: 'replayed', policy: 'writeBehind', id: r1.id, key: '' },
      { type: 'replayed', policy: 'writeBehind', id: r2.id, key: 'k' },
    ]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a replay round takes at most `batch` writes; the next round takes the rest', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: number[] = [];
    const w = writeBehind<number>({ deliver: (n) => (up ? void got.push(n) : down()), batch: 2, replayIntervalMs: 10, breaker: { protection: 1_000, tripFailures: 1_000 }, clock });
    for (let n = 1; n <= 5; n++) await w.write(n, { key: `k${n}` });
    up = true;
    await clock.advance(10);
    expect(got).toEqual([1, 2]);
    await clock.advance(10);
    expect(got).toEqual([1, 2, 3, 4]);
    await clock.advance(10);
    expect(got).toEqual([1, 2, 3, 4, 5]);
  });

  it('counts the writes still waiting per key as a round replays some of them', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: number[] = [];
    const w = writeBehind<number>({ deliver: (n) => (up ? void got.push(n) : down()), keyOf: () => 'a', batch: 1, replayIntervalMs: 10, breaker: { protection: 1_000, tripFailures: 1_000 }, clock });
    for (let n = 1; n <= 3; n++) await w.write(n);
    up = true;
    await clock.advance(10);
    expect(got).toEqual([1]);
    expect(w.queued).toBe(2);
    // key 'a' still has writes waiting: a new one queues behind them
    await expect(w.write(4)).resolves.toMatchObject({ status: 'queued' });
    await clock.advance(30);
    expect(got).toEqual([1, 2, 3, 4]);
    expect(w.queued).toBe(0);
  });

  it('a write that fails in a round holds back later writes of its key only', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: string[] = [];
    const w = writeBehind<string>({
      deliver: (s) => (up && s !== 'a1' ? void got.push(s) : down()),
      keyOf: (s) => s[0]!,
      replayIntervalMs: 10,
      breaker: { protection: 1_000, tripFailures: 1_000 },
      clock,
    });
    for (const s of ['a1', 'a2', 'b1']) await w.write(s);
    up = true;
    await clock.advance(10);
    expect(got).toEqual(['b1']);
    expect(w.queued).toBe(2);
  });

  it('a round ends at an open breaker', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let calls = 0;
    const w = writeBehind<string>({
      deliver: () => {
        calls++;
        return Promise.reject(new BrokenCircuitError('downstream'));
      },
      keyOf: (s) => s,
      replayIntervalMs: 10,
      breaker: { protection: 1_000, tripFailures: 1_000 },
      clock,
    });
    for (const s of ['a', 'b', 'c']) await w.write(s);
    expect(calls).toBe(3);
    await clock.advance(10);
    expect(calls).toBe(4);
  });

  it('a successful direct write starts a replay at once when writes are waiting', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    let up = false;
    const got: string[] = [];
    const w = writeBehind<string>({ deliver: (s) => (up ? void got.push(s) : down()), keyOf: (s) => s, replayIntervalMs: 60_000, breaker: { protection: 1_000, tripFailures: 1_000 }, clock });
    await w.write('a');
    up = true;
    await w.write('b');
    await w.replay();
    expect(got).toEqual(['b', 'a']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an aborted write throws instead of queueing; a closed writer schedules nothing', async () => {
    const { writeBehind } = await import('../../../api/index.js');
    const clock = new TestClock(T0);
    const w = writeBehind<string>({ deliver: () => down(), breaker: { protection: 1_000, tripFailures: 1_000 }, clock });
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    await expect(w.write('x', { signal: ac.signal })).rejects.toBe(ac.signal.reason);
    expect(w.queued).toBe(0);
    w.close();
    await expect(w.write('y')).resolves.toMatchObject({ status: 'queued' });
    expect(clock.pendingTimers).toBe(0);
  });

  it('from config: a store that is not a WriteQueue and a missing keyOf are listed; env clock is used', async () => {
    expect(issuesOf(() => fromConfig({ strategy: 'writeBehind', deliver: 'd', keyOf: 'k', store: 's' }, { d: () => 1, s: {} }))).toEqual([
      { path: 'keyOf', message: 'no handler named "k" was given' },
      { path: 'store', message: 'handler "s" must be a WriteQueue (push, peek, ack)' },
    ]);
    expect(issuesOf(() => fromConfig({ strategy: 'writeBehind', deliver: 'd', batch: 0 }, { d: () => 1 }))).toEqual([{ path: 'batch', message: 'expected an integer >= 1' }]);
    const clock = new TestClock(T0);
    const w = fromConfig({ strategy: 'writeBehind', deliver: 'd', name: 'outbox', replayIntervalMs: 7 }, { d: () => down() }, { clock, random: () => 0 });
    expect(w.name).toBe('outbox');
    const r = await w.write(1);
    expect(r.id).toBe(`${T0.toString(36)}-0-0`);
    expect(clock.pendingTimers).toBe(1);
    w.close();
  });
});
