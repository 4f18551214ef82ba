import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  circuitBreaker,
  ConfigError,
  idempotent,
  IdempotencyInProgressError,
  IdempotencyKeyMissingError,
  IdempotencyResultNotStorableError,
  isIdempotencyResultNotStorableError,
  memoryStore,
  policy,
  StoreUnavailableError,
  TimeoutError,
  type IdempotencyStore,
  type PolicyEvent,
} from '../../../api/index.js';
import { isShedRejection } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { deferred } from '../../helpers/track.js';
import { issuesOf } from '../../helpers/config-issues.js';

const START = 1_700_000_000_000;
const flush = () => new Promise((r) => setImmediate(r));

function collect(p: { events$: { subscribe(f: (e: PolicyEvent) => void): unknown } }): PolicyEvent[] {
  const events: PolicyEvent[] = [];
  p.events$.subscribe((e) => events.push(e));
  return events;
}

describe('idempotent', () => {
  it('runs the operation once for 1,000 concurrent same-key calls (single-flight)', async () => {
    const clock = new TestClock(START);
    const p = idempotent({ clock });
    const events = collect(p);
    let runs = 0;
    const gate = deferred();
    const calls = Array.from({ length: 1_000 }, () =>
      p.execute(
        async () => {
          runs++;
          await gate.promise;
          return { order: 42 };
        },
        { key: 'order:42' },
      ),
    );
    gate.resolve();
    const results = await Promise.all(calls);
    expect(runs).toBe(1);
    expect(results.every((r) => r.order === 42)).toBe(true);
    expect(events.filter((e) => e.type === 'joined')).toHaveLength(999);
    expect(events.filter((e) => e.type === 'claimed')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'outcome' && e.result === 'success')).toHaveLength(1_000);
    expect(clock.pendingTimers).toBe(0);
  });

  it('runs once for 1,000 calls through 25 instances sharing one store (atomic claim, waiters served)', async () => {
    const clock = new TestClock(START);
    const store = memoryStore({ clock });
    const instances = Array.from({ length: 25 }, () => idempotent({ clock, store, pollMs: 10 }));
    let runs = 0;
    const calls = Array.from({ length: 1_000 }, (_, i) =>
      instances[i % 25]!.execute(
        async () => {
          runs++;
          await new Promise<void>((r) => clock.setTimeout(r, 35));
          return 'done';
        },
        { key: 'k' },
      ),
    );
    await clock.advance(100);
    await expect(Promise.all(calls)).resolves.toEqual(Array(1_000).fill('done'));
    expect(runs).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('serves a stored result without running, and keeps it ttlMs', async () => {
    const clock = new TestClock(START);
    const p = idempotent({ clock, ttlMs: 1_000 });
    const events = collect(p);
    let runs = 0;
    const op = () => ++runs;
    await expect(p.execute(op, { key: 'a' })).resolves.toBe(1);
    await expect(p.execute(op, { key: 'a' })).resolves.toBe(1);
    expect(events.filter((e) => e.type === 'served')).toHaveLength(1);
    await clock.advance(1_000);
    await expect(p.execute(op, { key: 'a' })).resolves.toBe(2);
    await expect(p.execute(op, { key: 'b' })).resolves.toBe(3);
  });

  it('never stores a failure: joined callers get the error, the next caller runs again', async () => {
    const p = idempotent();
    let runs = 0;
    const failing = () => Promise.reject(new Error(`fail ${++runs}`));
    const a = p.execute(failing, { key: 'x' });
    const b = p.execute(failing, { key: 'x' });
    await expect(a).rejects.toThrow('fail 1');
    await expect(b).rejects.toThrow('fail 1');
    await expect(p.execute(() => 'ok', { key: 'x' })).resolves.toBe('ok');
    await expect(p.execute(() => 'again', { key: 'x' })).resolves.toBe('ok');
  });

  it('a result handleResult calls a failure is returned but not stored', async () => {
    const p = idempotent({ handleResult: (r) => (r as { status: number }).status >= 500 });
    await expect(p.execute(() => ({ status: 503 }), { key: 'h' })).resolves.toEqual({ status: 503 });
    await expect(p.execute(() => ({ status: 200 }), { key: 'h' })).resolves.toEqual({ status: 200 });
    await expect(p.execute(() => ({ status: 201 }), { key: 'h' })).resolves.toEqual({ status: 200 });
  });

  it('needs a key: ctx.key, or key(ctx), else IdempotencyKeyMissingError', async () => {
    await expect(idempotent().execute(() => 1)).rejects.toBeInstanceOf(IdempotencyKeyMissingError);
    await expect(idempotent().execute(() => 1, { key: '' })).rejects.toBeInstanceOf(IdempotencyKeyMissingError);
    const byMeta = idempotent({ key: (ctx) => ctx.meta.requestId });
    await expect(byMeta.execute(() => 1, { meta: { requestId: 'r1' } })).resolves.toBe(1);
    await expect(byMeta.execute(() => 2, { meta: { requestId: 'r1' } })).resolves.toBe(1);
    await expect(byMeta.execute(() => 3)).rejects.toBeInstanceOf(IdempotencyKeyMissingError);
  });

  it("one caller's abort rejects that caller alone; the run aborts when every caller has left", async () => {
    const p = idempotent();
    let signal: AbortSignal | undefined;
    const gate = deferred<string>();
    const ac1 = new AbortController();
    const ac2 = new AbortController();
    const op = (ctx: { signal: AbortSignal }) => {
      signal = ctx.signal;
      return gate.promise;
    };
    const a = p.execute(op, { key: 'k', signal: ac1.signal });
    const b = p.execute(op, { key: 'k', signal: ac2.signal });
    await flush();
    ac1.abort(new Error('a left'));
    await expect(a).rejects.toThrow('a left');
    expect(signal!.aborted).toBe(false);
    ac2.abort(new Error('b left'));
    await expect(b).rejects.toThrow('b left');
    expect(signal!.aborted).toBe(true);
    // the claim is released only once the abandoned operation settles
    let runs = 0;
    const c = p.execute(() => ++runs, { key: 'k', timeout: 10_000 });
    await flush();
    expect(runs).toBe(0);
    gate.reject(new Error('aborted'));
    await expect(c).resolves.toBe(1);
  });

  it('a caller whose signal aborts while its key is computed leaves at once: one outcome, and the run is told to stop', async () => {
    const ac = new AbortController();
    const p = idempotent({
      key: () => {
        ac.abort(new Error('gone'));
        return 'k';
      },
    });
    const events = collect(p);
    let signal: AbortSignal | undefined;
    const call = p.execute(
      (ctx) => {
        signal = ctx.signal;
        return new Promise<string>(() => {});
      },
      { signal: ac.signal },
    );
    await expect(call).rejects.toThrow('gone');
    await flush();
    expect(events.flatMap((e) => (e.type === 'outcome' ? [e.result] : []))).toEqual(['cancelled']);
    // its only caller left, so the run is told to stop
    expect(signal === undefined || signal.aborted).toBe(true);
  });

  it("reports each caller's outcome once: a caller who left as it left, the others as the run ended", async () => {
    for (const end of ['fails', 'succeeds'] as const) {
      const p = idempotent();
      const events = collect(p);
      const gate = deferred<string>();
      const ac = new AbortController();
      const a = p.execute(() => gate.promise, { key: 'k', signal: ac.signal });
      const b = p.execute(() => gate.promise, { key: 'k' });
      await flush();
      ac.abort(new Error('a left'));
      await expect(a).rejects.toThrow('a left');
      if (end === 'fails') gate.reject(new Error('HTTP 500'));
      else gate.resolve('ok');
      await (end === 'fails' ? expect(b).rejects.toThrow('HTTP 500') : expect(b).resolves.toBe('ok'));
      await flush();
      expect(events.filter((e) => e.type === 'outcome').map((e) => (e as { result: string }).result)).toEqual(['cancelled', end === 'fails' ? 'failure' : 'success']);
    }
  });

  it('a run every caller left before its claim came back never runs the operation, and stores nothing', async () => {
    const inner = memoryStore();
    const answer = deferred<void>();
    const store: IdempotencyStore = {
      claim: async (...args) => (await answer.promise, inner.claim(...args)),
      complete: (...args) => inner.complete(...args),
      completeNotStorable: (...args) => inner.completeNotStorable(...args),
      release: (...args) => inner.release(...args),
    };
    const p = idempotent({ store });
    const ac = new AbortController();
    let runs = 0;
    const left = p.execute(() => ++runs, { key: 'k', signal: ac.signal });
    ac.abort(new Error('left'));
    await expect(left).rejects.toThrow('left');
    answer.resolve();
    await flush();
    expect(runs).toBe(0);
    await expect(p.execute(() => `fresh ${++runs}`, { key: 'k' })).resolves.toBe('fresh 1');
  });

  it('null is a result like any other: returned, stored and served', async () => {
    const p = idempotent();
    let runs = 0;
    const op = () => (runs++, null);
    await expect(p.execute(op, { key: 'n' })).resolves.toBeNull();
    await expect(p.execute(op, { key: 'n' })).resolves.toBeNull();
    expect(runs).toBe(1);
  });

  it("a cooperative deadline only asks: its caller waits on for the shared run, and the caller's own abort still ends the wait", async () => {
    const clock = new TestClock(START);
    const p = policy({ clock }).idempotent({ clock }).timeout({ ms: 10, mode: 'cooperative' });
    const waited = p.execute(() => new Promise<string>((r) => clock.setTimeout(() => r('done'), 50)), { key: 'k' });
    const ac = new AbortController();
    const left = p.execute(() => 'never', { key: 'k', signal: ac.signal });
    const leftCheck = expect(left).rejects.toThrow('gone');
    await clock.advance(20);
    ac.abort(new Error('gone'));
    await leftCheck;
    await clock.advance(30);
    await expect(waited).resolves.toBe('done');
  });

  it('stores the result of a run every caller left when the operation succeeds anyway', async () => {
    const p = idempotent();
    const gate = deferred<string>();
    const ac = new AbortController();
    const left = p.execute(() => gate.promise, { key: 'abandoned', signal: ac.signal });
    await flush();
    ac.abort(new Error('left'));
    await expect(left).rejects.toThrow('left');
    gate.resolve('charged'); // it ignored its signal: the effect happened
    await flush();
    let again = 0;
    await expect(p.execute(() => `again ${++again}`, { key: 'abandoned' })).resolves.toBe('charged');
    expect(again).toBe(0);
  });

  it('waits on a live claim, then takes over once after leaseMs; the old token is fenced out', async () => {
    const clock = new TestClock(START);
    const store = memoryStore({ clock });
    const dead = await store.claim('k', 500, 60_000);
    expect(dead.state).toBe('claimed');
    const ps = [idempotent({ clock, store, leaseMs: 500, pollMs: 50 }), idempotent({ clock, store, leaseMs: 500, pollMs: 50 })];
    const events = ps.map(collect);
    let runs = 0;
    const calls = [0, 1, 0, 1].map((i) => ps[i]!.execute(() => `run ${++runs}`, { key: 'k' }));
    await clock.advance(450);
    expect(runs).toBe(0);
    await clock.advance(100);
    await expect(Promise.all(calls)).resolves.toEqual(Array(4).fill('run 1'));
    expect(runs).toBe(1);
    expect(events.flat().filter((e) => e.type === 'takeover')).toHaveLength(1);
    // the dead claimant comes back: its completion is refused
    await expect(store.complete('k', (dead as { token: string }).token, '"stale"', 60_000)).resolves.toBe(false);
    await expect(ps[0]!.execute(() => 'new', { key: 'k' })).resolves.toBe('run 1');
    expect(clock.pendingTimers).toBe(0);
  });

  it('renewLease keeps a live claimant its key however long it runs', async () => {
    const clock = new TestClock(START);
    const store = memoryStore({ clock });
    const [a, b] = [0, 1].map(() => idempotent({ clock, store, leaseMs: 300, pollMs: 50, renewLease: true }));
    const events = collect(b!);
    let runs = 0;
    const slow = () => {
      runs++;
      return new Promise<string>((r) => clock.setTimeout(() => r('slow'), 1_000));
    };
    const first = a!.execute(slow, { key: 'long' });
    await clock.advance(10);
    const second = b!.execute(slow, { key: 'long' });
    await clock.advance(1_000);
    await expect(Promise.all([first, second])).resolves.toEqual(['slow', 'slow']);
    expect(runs).toBe(1);
    expect(events.filter((e) => e.type === 'takeover')).toHaveLength(0);
    expect(events.filter((e) => e.type === 'served')).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('without renewLease a claim outliving leaseMs is taken over (the documented trade-off)', async () => {
    const clock = new TestClock(START);
    const store = memoryStore({ clock });
    const [a, b] = [0, 1].map(() => idempotent({ clock, store, leaseMs: 300, pollMs: 50 }));
    let runs = 0;
    const slow = () => {
      runs++;
      return new Promise<string>((r) => clock.setTimeout(() => r('slow'), 1_000));
    };
    const calls = [a!.execute(slow, { key: 'long' }), b!.execute(slow, { key: 'long' })];
    await clock.advance(2_000);
    await Promise.all(calls);
    expect(runs).toBe(2);
  });

  it('a caller in the same process does not join a run past its lease: it takes over, as another process would', async () => {
    const clock = new TestClock(START);
    const p = idempotent({ clock, leaseMs: 300, pollMs: 50 });
    const events = collect(p);
    let runs = 0;
    const stuck = new AbortController();
    // the first run ignores its signal and never ends; its caller has no deadline
    const first = p.execute(() => (runs++, new Promise<string>(() => {})), { key: 'k', signal: stuck.signal });
    const firstCheck = expect(first).rejects.toThrow('gone');
    await clock.advance(299);
    const joined = p.execute(() => `run ${++runs}`, { key: 'k', timeout: 100 });
    const joinedCheck = expect(joined).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(1);
    const late = p.execute(() => `run ${++runs}`, { key: 'k' });
    await expect(late).resolves.toBe('run 2');
    expect(events.filter((e) => e.type === 'takeover')).toHaveLength(1);
    await clock.advance(100);
    await joinedCheck;
    stuck.abort(new Error('gone'));
    await firstCheck;
    expect(runs).toBe(2);
  });

  it('an operation that ignores its signal does not hold its callers past an inner timeout; the key stays claimed', async () => {
    // Found by the soak: the callers waited for the abandoned operation to end (forever) before the claim was released.
    const clock = new TestClock(START);
    const store = memoryStore({ clock });
    const p = policy({ clock }).timeout(50).idempotent({ clock, store, leaseMs: 300 });
    const deaf = p.execute(() => new Promise<string>(() => {}), { key: 'k' });
    const deafCheck = expect(deaf).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(50);
    await deafCheck;
    // the operation may still run: nobody else may run the key until its lease passes
    const other = idempotent({ clock, store, leaseMs: 300, onInProgress: 'reject' });
    await expect(other.execute(() => 'second', { key: 'k' })).rejects.toBeInstanceOf(IdempotencyInProgressError);
    await clock.advance(250);
    await expect(other.execute(() => 'second', { key: 'k' })).resolves.toBe('second');
  });

  it('with renewLease a run whose lease is renewed is still joined', async () => {
    const clock = new TestClock(START);
    const p = idempotent({ clock, leaseMs: 300, pollMs: 50, renewLease: true });
    let runs = 0;
    const first = p.execute(() => (runs++, new Promise<string>((r) => clock.setTimeout(() => r('slow'), 1_000))), { key: 'k' });
    await clock.advance(900);
    const joined = p.execute(() => `run ${++runs}`, { key: 'k' });
    await clock.advance(100);
    await expect(Promise.all([first, joined])).resolves.toEqual(['slow', 'slow']);
    expect(runs).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it("renewLease needs a store with extend()", () => {
    const store = { claim: () => Promise.reject(), complete: () => Promise.reject(), completeNotStorable: () => Promise.reject(), release: () => Promise.reject() };
    expect(() => idempotent({ store, renewLease: true })).toThrow(/renewLease/);
  });

  it("onInProgress: 'reject' rejects with IdempotencyInProgressError", async () => {
    const store = memoryStore();
    await store.claim('busy', 60_000, 60_000);
    const p = idempotent({ store, onInProgress: 'reject' });
    const error = await p.execute(() => 1, { key: 'busy' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IdempotencyInProgressError);
    expect((error as IdempotencyInProgressError).key).toBe('busy');
  });

  it('waiting ends with a TimeoutError when the deadline passes first', async () => {
    const clock = new TestClock(START);
    const store = memoryStore({ clock });
    await store.claim('slow', 10_000, 60_000);
    const p = idempotent({ clock, store, pollMs: 100 });
    const call = p.execute(() => 1, { key: 'slow', timeout: 250 });
    const settled = expect(call).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(250);
    await settled;
    await clock.runAll();
    expect(clock.pendingTimers).toBe(0);
  });

  describe("a result that does not survive the codec's round trip", () => {
    // Each is what an operation plausibly returns and JSON cannot keep: an undefined field is dropped, a Date
    // comes back a string, NaN comes back null, -0 comes back 0, and a BigInt makes JSON.stringify throw.
    const unstorable: [string, () => unknown][] = [
      ['{ a: undefined }', () => ({ a: undefined })],
      ['a Date', () => new Date(0)],
      ['NaN', () => NaN],
      ['-0', () => -0],
      ['a BigInt (the codec throws)', () => ({ n: 1n })],
    ];

    it.each(unstorable)('%s: runs once; its caller gets it; later callers get IdempotencyResultNotStorableError until ttlMs', async (_, make) => {
      const clock = new TestClock(START);
      const p = idempotent({ clock, ttlMs: 1_000 });
      const events = collect(p);
      let runs = 0;
      const value = make();
      const op = () => (runs++, value);
      await expect(p.execute(op, { key: 'u' })).resolves.toBe(value);
      for (let i = 0; i < 3; i++) {
        const error = await p.execute(op, { key: 'u' }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(IdempotencyResultNotStorableError);
        expect((error as IdempotencyResultNotStorableError).code).toBe('IDEMPOTENCY_RESULT_NOT_STORABLE');
        expect((error as IdempotencyResultNotStorableError).key).toBe('u');
        expect((error as IdempotencyResultNotStorableError).policy).toBe('idempotent');
      }
      expect(runs).toBe(1);
      const notStorable = events.filter((e) => e.type === 'notStorable');
      expect(notStorable).toEqual([{ type: 'notStorable', policy: 'idempotent', key: 'u', error: expect.any(TypeError) }]);
      await clock.advance(999);
      await expect(p.execute(op, { key: 'u' })).rejects.toBeInstanceOf(IdempotencyResultNotStorableError);
      await clock.advance(1);
      await expect(p.execute(op, { key: 'u' })).resolves.toBe(value);
      expect(runs).toBe(2);
      expect(clock.pendingTimers).toBe(0);
    });

    it.each(unstorable)('%s: inside retry({ maxAttempts: 3 }) it runs once, and the later rejection is not retried', async (_, make) => {
      const clock = new TestClock(START);
      const p = policy({ clock }).idempotent({ clock }).retry({ maxAttempts: 3, backoff: () => 0 });
      const events = collect(p);
      let runs = 0;
      const value = make();
      const op = () => (runs++, value);
      // the clock moves so that, without the record, retry's attempts (and waits on the claim) would go on
      const first = expect(p.execute(op, { key: 'r' })).resolves.toBe(value);
      await clock.advance(1_000);
      await first;
      const again = expect(p.execute(op, { key: 'r' })).rejects.toBeInstanceOf(IdempotencyResultNotStorableError);
      await clock.advance(1_000);
      await again;
      expect(runs).toBe(1);
      expect(events.filter((e) => e.type === 'retry')).toHaveLength(0);
    });

    it.each(unstorable)('%s: callers joined to the run get it too; another instance on the store runs nothing', async (_, make) => {
      const clock = new TestClock(START);
      const store = memoryStore({ clock });
      const [a, b] = [0, 1].map(() => idempotent({ clock, store }));
      let runs = 0;
      const value = make();
      const gate = deferred();
      const op = async () => {
        runs++;
        await gate.promise;
        return value;
      };
      const calls = [a!.execute(op, { key: 'j' }), a!.execute(op, { key: 'j' }), a!.execute(op, { key: 'j' })];
      gate.resolve();
      const results = await Promise.all(calls);
      for (const r of results) expect(r).toBe(value);
      await expect(b!.execute(op, { key: 'j' })).rejects.toBeInstanceOf(IdempotencyResultNotStorableError);
      expect(runs).toBe(1);
    });

    it('a run every caller left is recorded too when it succeeds with such a result', async () => {
      const p = idempotent();
      const gate = deferred<Date>();
      const ac = new AbortController();
      const left = p.execute(() => gate.promise, { key: 'gone', signal: ac.signal });
      await flush();
      ac.abort(new Error('left'));
      await expect(left).rejects.toThrow('left');
      gate.resolve(new Date(0));
      await flush();
      let again = 0;
      await expect(p.execute(() => ++again, { key: 'gone' })).rejects.toBeInstanceOf(IdempotencyResultNotStorableError);
      expect(again).toBe(0);
    });

    it('the rejection is one of breakwater\'s own: a breaker does not count it, a fallback answers it', async () => {
      const clock = new TestClock(START);
      const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000, clock });
      const p = policy({ clock }).idempotent({ clock }).use(b).fallback(() => 'answered' as const);
      await expect(p.execute(() => new Date(0), { key: 'f' })).resolves.toEqual(new Date(0));
      await expect(p.execute(() => new Date(1), { key: 'f' })).resolves.toBe('answered');
      await expect(p.execute(() => new Date(2), { key: 'f' })).resolves.toBe('answered');
      expect(b.state).toBe('closed');
      const error = new IdempotencyResultNotStorableError('p', 'k');
      expect(isShedRejection(error)).toBe(true);
      expect(isIdempotencyResultNotStorableError(error)).toBe(true);
      // another copy of the package: the brand, not instanceof
      expect(isIdempotencyResultNotStorableError({ [Symbol.for('breakwater.error')]: 'IDEMPOTENCY_RESULT_NOT_STORABLE' })).toBe(true);
      expect(isIdempotencyResultNotStorableError(new IdempotencyInProgressError('p', 'k'))).toBe(false);
      expect(error.message).toBe('operation for key "k" already ran, but its result could not be stored: it is not run again while the record is kept (p)');
    });

    it('an operation returning nothing (undefined) is stored and served', async () => {
      const p = idempotent();
      let sent = 0;
      await p.execute(() => void sent++, { key: 'v' });
      await expect(p.execute(() => void sent++, { key: 'v' })).resolves.toBeUndefined();
      expect(sent).toBe(1);
    });
  });

  it('handles sync throws of non-errors, plain values and thenables', async () => {
    const p = idempotent();
    await expect(
      p.execute(() => {
        throw 'nope';
      }, { key: 's' }),
    ).rejects.toBe('nope');
    await expect(p.execute(() => ({ then: (ok: (v: number) => void) => ok(5) }) as PromiseLike<number>, { key: 's' })).resolves.toBe(5);
    await expect(p.execute(() => 6, { key: 's' })).resolves.toBe(5);
    await expect(p.execute(() => Promise.reject(undefined), { key: 'u' })).rejects.toBeUndefined();
  });

  it('a custom codec is used both ways', async () => {
    const codec = { encode: (v: unknown) => `x${JSON.stringify(v)}`, decode: (t: string) => JSON.parse(t.slice(1)) as unknown };
    const p = idempotent({ codec });
    await p.execute(() => [1, 2], { key: 'c' });
    await expect(p.execute(() => [3], { key: 'c' })).resolves.toEqual([1, 2]);
  });

  describe('an unreachable store', () => {
    const hanging: IdempotencyStore = {
      claim: () => new Promise(() => {}),
      complete: () => new Promise(() => {}),
      completeNotStorable: () => new Promise(() => {}),
      release: () => new Promise(() => {}),
    };
    const failing: IdempotencyStore = {
      claim: () => Promise.reject(new Error('ECONNREFUSED')),
      complete: () => Promise.reject(new Error('ECONNREFUSED')),
      completeNotStorable: () => Promise.reject(new Error('ECONNREFUSED')),
      release: () => Promise.reject(new Error('ECONNREFUSED')),
    };

    it('rejects with StoreUnavailableError after storeTimeoutMs', async () => {
      const clock = new TestClock(START);
      const p = idempotent({ clock, store: hanging, storeTimeoutMs: 200 });
      let ran = false;
      const call = p.execute(() => (ran = true), { key: 'k' });
      const settled = expect(call).rejects.toBeInstanceOf(StoreUnavailableError);
      await clock.advance(200);
      await settled;
      expect(ran).toBe(false);
      expect(clock.pendingTimers).toBe(0);
    });

    it('rejects with StoreUnavailableError carrying the cause', async () => {
      const error = await idempotent({ store: failing }).execute(() => 1, { key: 'k' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreUnavailableError);
      expect(((error as Error).cause as Error).message).toBe('ECONNREFUSED');
    });

    it('passes through with failOpen, single-flight still holding', async () => {
      const clock = new TestClock(START);
      const p = idempotent({ clock, store: hanging, storeTimeoutMs: 200, failOpen: true });
      let runs = 0;
      const calls = [p.execute(() => ++runs, { key: 'k' }), p.execute(() => ++runs, { key: 'k' })];
      await clock.advance(200);
      await expect(Promise.all(calls)).resolves.toEqual([1, 1]);
      await expect(idempotent({ store: failing, failOpen: true }).execute(() => 'through', { key: 'k' })).resolves.toBe('through');
    });
  });

  it('works in a pipeline with a retry inside: retried attempts belong to one claim', async () => {
    const clock = new TestClock(START);
    let attempts = 0;
    const p = policy({ clock }).retry({ maxAttempts: 3, backoff: () => 0 }).idempotent();
    const op = () => (++attempts < 3 ? Promise.reject(new Error('flaky')) : 'paid');
    await expect(p.execute(op, { key: 'pay' })).resolves.toBe('paid');
    await expect(p.execute(op, { key: 'pay' })).resolves.toBe('paid');
    expect(attempts).toBe(3);
  });

  it('leaves no listener on caller signals and no timer behind', async () => {
    const clock = new TestClock(START);
    const p = idempotent({ clock });
    const signals = [new AbortController(), new AbortController(), new AbortController()].map((c) => c.signal);
    const gate = deferred<number>();
    const calls = signals.map((signal) => p.execute(() => gate.promise, { key: 'l', signal, timeout: 1_000 }));
    gate.resolve(7);
    await expect(Promise.all(calls)).resolves.toEqual([7, 7, 7]);
    for (const s of signals) expect(getEventListeners(s, 'abort')).toHaveLength(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('rejects bad options with a ConfigError naming the option', () => {
    const cases: [unknown, string][] = [
      [{ ttlMs: 0 }, 'ttlMs'],
      [{ leaseMs: -1 }, 'leaseMs'],
      [{ leaseMs: NaN }, 'leaseMs'],
      [{ onInProgress: 'queue' }, 'onInProgress'],
      [{ store: {} }, 'store'],
      // it could not record a run whose result the codec cannot keep
      [{ store: { claim: () => {}, complete: () => {}, release: () => {} } }, 'store'],
      [{ codec: { encode: JSON.stringify } }, 'codec'],
      [{ storeTimeoutMs: Infinity }, 'storeTimeoutMs'],
      [{ failOpen: 'yes' }, 'failOpen'],
      [{ key: 'order' }, 'key'],
      [{ pollMs: 0 }, 'pollMs'],
      [{ lease: 1 }, 'lease'],
    ];
    expect(() => memoryStore({ clock: Date } as never)).toThrow(/clock/);
    expect(() => memoryStore({ ttl: 1 } as never)).toThrow(/ttl/);
    for (const [o, path] of cases) {
      try {
        idempotent(o as never);
        expect.unreachable(path);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        expect((e as ConfigError).issues[0]!.path).toBe(path);
      }
    }
  });
});

describe('IdempotentPolicy.reconfigure', () => {
  /** An operation that answers `value` after `ms` on `clock`. */
  const slow = (clock: TestClock, ms: number, value: string) => () => new Promise<string>((r) => clock.setTimeout(() => r(value), ms));

  it('keeps the stored results, each with its own TTL; results stored after take the new ttlMs', async () => {
    const clock = new TestClock(START);
    const p = idempotent({ clock, ttlMs: 1_000 });
    let runs = 0;
    const op = () => ++runs;
    await expect(p.execute(op, { key: 'a' })).resolves.toBe(1);
    p.reconfigure({ ttlMs: 60_000 });
    expect(p.ttlMs).toBe(60_000);
    await expect(p.execute(op, { key: 'a' })).resolves.toBe(1);
    await clock.advance(1_000);
    await expect(p.execute(op, { key: 'a' })).resolves.toBe(2);
    await clock.advance(30_000);
    await expect(p.execute(op, { key: 'a' })).resolves.toBe(2);
    expect(runs).toBe(2);
  });

  it('a claim held over the reload keeps its lease; claims made after take the new leaseMs', async () => {
    const clock = new TestClock(START);
    const store = memoryStore({ clock });
    const p = idempotent({ clock, store, leaseMs: 300 });
    const other = idempotent({ clock, store, leaseMs: 300, onInProgress: 'reject' });
    const held = p.execute(slow(clock, 1_000, 'held'), { key: 'k' });
    await clock.advance(10);
    p.reconfigure({ leaseMs: 5_000 });
    expect(p.leaseMs).toBe(5_000);
    const after = p.execute(slow(clock, 1_000, 'after'), { key: 'k2' });
    await clock.advance(289);
    await expect(other.execute(() => 'other', { key: 'k' })).rejects.toBeInstanceOf(IdempotencyInProgressError);
    // 300 ms after its claim the held lease has run out: another process takes the key over.
    await clock.advance(1);
    await expect(other.execute(() => 'other', { key: 'k' })).resolves.toBe('other');
    // The claim made after the reload (at 10 ms) still holds its key 980 ms later, far past 300.
    await clock.advance(690);
    await expect(other.execute(() => 'other', { key: 'k2' })).rejects.toBeInstanceOf(IdempotencyInProgressError);
    await clock.advance(20);
    await expect(Promise.all([held, after])).resolves.toEqual(['held', 'after']);
    expect(clock.pendingTimers).toBe(0);
  });

  it('turns renewLease on for the claims made after: a live claimant then keeps its key past leaseMs', async () => {
    const clock = new TestClock(START);
    const store = memoryStore({ clock });
    const p = idempotent({ clock, store, leaseMs: 300 });
    const other = idempotent({ clock, store, leaseMs: 300, onInProgress: 'reject' });
    p.reconfigure({ leaseMs: 300, renewLease: true });
    const running = p.execute(slow(clock, 1_000, 'slow'), { key: 'long' });
    await clock.advance(900);
    await expect(other.execute(() => 'other', { key: 'long' })).rejects.toBeInstanceOf(IdempotencyInProgressError);
    await clock.advance(100);
    await expect(running).resolves.toBe('slow');
    expect(clock.pendingTimers).toBe(0);
  });

  it('changes onInProgress in place', async () => {
    const store = memoryStore();
    await store.claim('busy', 60_000, 60_000);
    const p = idempotent({ store, onInProgress: 'wait' });
    p.reconfigure({ onInProgress: 'reject' });
    await expect(p.execute(() => 1, { key: 'busy' })).rejects.toBeInstanceOf(IdempotencyInProgressError);
  });

  it('refuses renewLease on a store without extend(), and a bad option, naming them; nothing changes', () => {
    const store = { claim: () => Promise.reject(), complete: () => Promise.reject(), completeNotStorable: () => Promise.reject(), release: () => Promise.reject() };
    const p = idempotent({ store, leaseMs: 300, name: 'charge' });
    expect(issuesOf(() => p.reconfigure({ leaseMs: 600, renewLease: true }))).toEqual([
      { path: 'renewLease', message: 'the store has no extend(key, token, leaseMs) to renew leases with' },
    ]);
    expect(() => p.reconfigure({ leaseMs: 600, renewLease: true })).toThrow(/^invalid charge options/);
    expect(issuesOf(() => p.reconfigure({ leaseMs: -1, ttlMs: 5 }))).toEqual([{ path: 'leaseMs', message: 'expected a number greater than 0' }]);
    expect([p.leaseMs, p.ttlMs]).toEqual([300, 86_400_000]);
  });
});
