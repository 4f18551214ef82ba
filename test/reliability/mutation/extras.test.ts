import { describe, expect, it } from 'vitest';
import {
  breakerRegistry,
  BrokenCircuitError,
  BulkheadRejectedError,
  cache,
  chaos,
  hedge,
  keyedBreaker,
  memoryCacheStore,
  policy,
  TimeoutError,
  type BreakerRegistryOptions,
  type CacheRecord,
  type CacheStore,
  type ExecutionContext,
} from '../../../api/index.js';
import { scriptedRandom, TestClock } from '../../../lib/testing.js';
import { Context, Scope } from '../../../lib/context.js';
import { RUN } from '../../../lib/policy.js';
import { after } from '../../helpers/track.js';
import { collect } from '../../helpers/events.js';

// Tests written against the mutants a manual mutation analysis found unguarded in
// policies/cache, policies/hedge, policies/chaos and policies/breaker-registry.

const START = 1_700_000_000_000;

/** A store over a Map that records every write and can be told to fail. */
function spyStore(): CacheStore & { writes: { key: string; record: CacheRecord; retainMs: number }[]; failGet: boolean; failSet: boolean } {
  const map = new Map<string, CacheRecord>();
  const s = {
    writes: [] as { key: string; record: CacheRecord; retainMs: number }[],
    failGet: false,
    failSet: false,
    get: (k: string) => (s.failGet ? Promise.reject(new Error('get down')) : Promise.resolve(map.get(k))),
    set: (k: string, r: CacheRecord, retainMs: number) => {
      s.writes.push({ key: k, record: r, retainMs });
      if (s.failSet) return Promise.reject(new Error('set down'));
      map.set(k, r);
      return Promise.resolve();
    },
    delete: (k: string) => (map.delete(k), Promise.resolve()),
  };
  return s;
}

describe('cache (mutation)', () => {
  it('writes a record with storedAt = now, expiresAt = now + ttlMs, staleUntil = expiresAt + staleWhileRevalidateMs, kept retainMs', async () => {
    const clock = new TestClock(START);
    const store = spyStore();
    const c = cache({ ttlMs: 100, staleWhileRevalidateMs: 40, retainMs: 500, clock, store });
    await c.execute(() => 'v', { key: 'k' });
    expect(store.writes).toEqual([{ key: 'k', record: { value: 'v', storedAt: START, expiresAt: START + 100, staleUntil: START + 140 }, retainMs: 500 }]);
    // defaults: no stale window, retained until evicted
    const d = cache({ ttlMs: 10, clock, store });
    await d.execute(() => 'w', { key: 'j' });
    expect(store.writes[1]).toEqual({ key: 'j', record: { value: 'w', storedAt: START, expiresAt: START + 10, staleUntil: START + 10 }, retainMs: Infinity });
  });

  it('the stale window: stale hit at exactly expiresAt, miss at exactly staleUntil', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 100, staleWhileRevalidateMs: 50, clock });
    const events = collect(c);
    let calls = 0;
    const op = (): number => ++calls;
    await c.execute(op, { key: 'k' });
    await clock.advance(99);
    await expect(c.execute(op, { key: 'k' })).resolves.toBe(1);
    expect(events.filter((e) => e.type === 'hit').at(-1)).toEqual({ type: 'hit', policy: 'cache', key: 'k', stale: false });
    await clock.advance(1); // now = expiresAt: stale, answered, refreshed in the background
    await expect(c.execute(op, { key: 'k' })).resolves.toBe(1);
    expect(events.filter((e) => e.type === 'hit').at(-1)).toEqual({ type: 'hit', policy: 'cache', key: 'k', stale: true });
    await clock.advance(0);
    expect(calls).toBe(2); // the refresh, stored at START + 100
    expect(events.filter((e) => e.type === 'revalidated')).toEqual([{ type: 'revalidated', policy: 'cache', key: 'k', ok: true }]);
    await clock.advance(150); // exactly the refreshed value's staleUntil (START + 100 + 100 + 50): a miss, the call runs
    await expect(c.execute(op, { key: 'k' })).resolves.toBe(3);
    expect(events.filter((e) => e.type === 'miss').at(-1)).toEqual({ type: 'miss', policy: 'cache', key: 'k', coalesced: false });
    await clock.runAll();
    expect(clock.pendingTimers).toBe(0);
  });

  it('a refresh that succeeds leaves no timer behind, and runs with the caller key, meta and attempt', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 10, staleWhileRevalidateMs: 1_000, clock });
    await c.execute(() => 'v1', { key: 'k' });
    await clock.advance(10);
    const seen: { key: string | undefined; meta: unknown; attempt: number; aborted: boolean }[] = [];
    await expect(
      c.execute(
        (ctx) => {
          seen.push({ key: ctx.key, meta: ctx.meta, attempt: ctx.attempt, aborted: ctx.signal.aborted });
          return 'v2';
        },
        { key: 'k', meta: { tenant: 't1' } },
      ),
    ).resolves.toBe('v1');
    await clock.advance(0);
    expect(seen).toEqual([{ key: 'k', meta: { tenant: 't1' }, attempt: 1, aborted: false }]);
    expect(clock.pendingTimers).toBe(0); // the refresh deadline (staleUntil) was cleared
    await expect(c.execute(() => 'v3', { key: 'k' })).resolves.toBe('v2');
  });

  it('reports outcomes with durations: success, failure with its error, timeout', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock, name: 'users' });
    const events = collect(c);
    const ok = c.execute((ctx) => after(clock, 30, 'v', ctx), { key: 'a' });
    await clock.advance(30);
    await ok;
    const boom = new Error('boom');
    const bad = c.execute((ctx) => after(clock, 20, 0, ctx).then(() => Promise.reject(boom)), { key: 'b' });
    const badCheck = expect(bad).rejects.toBe(boom);
    await clock.advance(20);
    await badCheck;
    const slow = c.execute((ctx) => after(clock, 100, 'late', ctx), { key: 'c', timeout: 40 });
    const slowCheck = expect(slow).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(40);
    await slowCheck;
    // through a caller signal (a joined member): success and failure
    const ac = new AbortController();
    const viaSignal = c.execute((ctx) => after(clock, 15, 'w', ctx), { key: 'd', signal: ac.signal });
    await clock.advance(15);
    await viaSignal;
    const ac2 = new AbortController();
    const failSignal = c.execute((ctx) => after(clock, 5, 0, ctx).then(() => Promise.reject(boom)), { key: 'e', signal: ac2.signal });
    const failCheck = expect(failSignal).rejects.toBe(boom);
    await clock.advance(5);
    await failCheck;
    const outcomes = events.filter((e) => e.type === 'outcome');
    expect(outcomes).toEqual([
      { type: 'outcome', policy: 'users', result: 'success', durationMs: 30, error: undefined },
      { type: 'outcome', policy: 'users', result: 'failure', durationMs: 20, error: boom },
      { type: 'outcome', policy: 'users', result: 'timeout', durationMs: 40, error: expect.any(TimeoutError) },
      { type: 'outcome', policy: 'users', result: 'success', durationMs: 15, error: undefined },
      { type: 'outcome', policy: 'users', result: 'failure', durationMs: 5, error: boom },
    ]);
    await clock.runAll();
    expect(clock.pendingTimers).toBe(0);
  });

  it('a caller joining after the lookup is a coalesced miss; a caller joining a stale flight is a stale hit', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock });
    const events = collect(c);
    const first = c.execute((ctx) => after(clock, 50, 1, ctx), { key: 'k' });
    await clock.advance(0); // the lookup is known: a miss
    const second = c.execute(() => 2, { key: 'k' });
    await clock.advance(50);
    expect(await Promise.all([first, second])).toEqual([1, 1]);
    expect(events.filter((e) => e.type === 'miss')).toEqual([
      { type: 'miss', policy: 'cache', key: 'k', coalesced: false },
      { type: 'miss', policy: 'cache', key: 'k', coalesced: true },
    ]);
  });

  it('a call with an already aborted signal is rejected without a lookup or a call', async () => {
    const clock = new TestClock(START);
    const store = spyStore();
    let gets = 0;
    const get = store.get;
    store.get = (k) => (gets++, get(k));
    const c = cache({ ttlMs: 1_000, clock, store });
    const ac = new AbortController();
    ac.abort(new Error('gone'));
    let calls = 0;
    await expect(c.execute(() => ++calls, { key: 'k', signal: ac.signal })).rejects.toThrow('gone');
    expect(calls).toBe(0);
    expect(gets).toBe(0);
  });

  it('a key function that throws rejects the call with its error, and stale() throws it too', async () => {
    const clock = new TestClock(START);
    const oops = new Error('no key');
    const c = cache({
      ttlMs: 1_000,
      clock,
      key: () => {
        throw oops;
      },
    });
    let calls = 0;
    await expect(c.execute(() => ++calls)).rejects.toBe(oops);
    expect(calls).toBe(0);
    await expect(c.stale({ meta: {} } as unknown as ExecutionContext)).rejects.toBe(oops);
  });

  it('stale(ctx) reads through the key option; no key is undefined', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 10, clock, key: (ctx) => ctx.meta.id });
    await c.execute(() => 'v', { meta: { id: 'x' } });
    await clock.advance(5);
    const ctx = (id: string | undefined) => ({ meta: { id } }) as unknown as ExecutionContext;
    expect(await c.stale(ctx('x'))).toEqual({ value: 'v', storedAt: START, ageMs: 5 });
    expect(await c.stale(ctx(undefined))).toBeUndefined();
  });

  it('a store that fails to read or write never fails the call', async () => {
    const clock = new TestClock(START);
    const store = spyStore();
    const c = cache({ ttlMs: 1_000, clock, store });
    store.failSet = true;
    let calls = 0;
    await expect(c.execute(() => ++calls, { key: 'k' })).resolves.toBe(1);
    await clock.advance(0); // the write is over
    store.failSet = false;
    await expect(c.execute(() => ++calls, { key: 'k' })).resolves.toBe(2); // nothing was stored
    await clock.advance(0);
    expect(store.writes).toHaveLength(2);
    store.failGet = true;
    await expect(c.execute(() => ++calls, { key: 'k' })).resolves.toBe(3); // read failed: a miss, the call runs
    expect(await c.stale('k')).toBeUndefined();
  });

  it('all callers leaving before the lookup answers means no call at all; the shared signal carries the last reason', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock });
    let calls = 0;
    const x = new AbortController();
    const rx = c.execute(() => ++calls, { key: 'k', signal: x.signal });
    x.abort(new Error('x gone'));
    await expect(rx).rejects.toThrow('x gone');
    await clock.advance(0);
    expect(calls).toBe(0);

    let signal: AbortSignal | undefined;
    const op = (ctx: ExecutionContext): Promise<string> => ((signal = ctx.signal), after(clock, 100, 'v', ctx));
    const a = new AbortController();
    const b = new AbortController();
    const ra = c.execute(op, { key: 'j', signal: a.signal });
    const rb = c.execute(op, { key: 'j', signal: b.signal });
    await clock.advance(0);
    a.abort(new Error('a gone'));
    const last = new Error('b gone');
    b.abort(last);
    await expect(ra).rejects.toThrow('a gone');
    await expect(rb).rejects.toBe(last);
    expect(signal!.reason).toBe(last);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an abandoned flight that ends after a newer flight of its key started does not unlink the newer one', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock });
    const x = new AbortController();
    const rx = c.execute(() => new Promise<string>(() => {}), { key: 'k', signal: x.signal });
    const rxCheck = expect(rx).rejects.toThrow('x gone');
    await clock.advance(0); // the lookup is done: the shared call runs
    let calls = 0;
    const op = (ctx: ExecutionContext): Promise<string> => (calls++, after(clock, 100, 'new', ctx));
    x.abort(new Error('x gone')); // the last caller leaves: the flight is forgotten...
    const rz = c.execute(op, { key: 'k' }); // ...and a new one starts before the old one has unwound
    await rxCheck;
    await clock.advance(10);
    const rw = c.execute(op, { key: 'k' }); // joins the new flight
    await clock.advance(90);
    expect(await Promise.all([rz, rw])).toEqual(['new', 'new']);
    expect(calls).toBe(1);
  });

  it('a context whose scope is already aborted is rejected before the store is read', async () => {
    const clock = new TestClock(START);
    const store = spyStore();
    let gets = 0;
    const get = store.get;
    store.get = (k) => (gets++, get(k));
    const c = cache({ ttlMs: 1_000, clock, store });
    const scope = new Scope(undefined, undefined, Infinity, undefined, 'root', false);
    const reason = new Error('gone');
    scope.abort(reason, true, false);
    let calls = 0;
    await expect(c[RUN](() => ++calls, new Context(clock, scope, undefined, 1, 'k', {}), undefined)).rejects.toBe(reason);
    await clock.advance(0);
    expect(calls).toBe(0);
    expect(gets).toBe(0);
  });
});

describe('memoryCacheStore (mutation)', () => {
  it('keeps 1,000 keys by default', async () => {
    const s = memoryCacheStore();
    const r: CacheRecord = { value: 1, storedAt: 0, expiresAt: 1, staleUntil: 1 };
    for (let i = 0; i < 1_000; i++) await s.set(`k${i}`, r, Infinity);
    expect(s.size).toBe(1_000);
    expect(await s.get('k0')).toBeDefined();
    await s.set('k1000', r, Infinity);
    expect(s.size).toBe(1_000);
    expect(await s.get('k1')).toBeUndefined();
  });

  it('a codec that cannot decode rejects the read; the cache then runs the call', async () => {
    const clock = new TestClock(START);
    const codec = { encode: (v: unknown) => JSON.stringify(v), decode: (): unknown => { throw new SyntaxError('bad text'); } };
    const s = memoryCacheStore({ codec, clock });
    await s.set('a', { value: 1, storedAt: 0, expiresAt: 1, staleUntil: 1 }, Infinity);
    await expect(s.get('a')).rejects.toThrow('bad text');
    const c = cache({ ttlMs: 1_000, clock, store: s });
    let calls = 0;
    await c.execute(() => ++calls, { key: 'k' });
    await clock.advance(0); // the write is over
    await expect(c.execute(() => ++calls, { key: 'k' })).resolves.toBe(2);
  });
});

describe('hedge (mutation)', () => {
  it('defaults: one extra attempt, after exactly 2,000 ms', async () => {
    const clock = new TestClock(START);
    const h = hedge({ clock });
    expect(h.maxHedged).toBe(1);
    expect(h.name).toBe('hedge');
    const starts: number[] = [];
    const r = h.execute((ctx) => (starts.push(clock.now() - START), after(clock, 10_000, ctx.attempt, ctx)));
    await clock.advance(1_999);
    expect(starts).toEqual([0]);
    await clock.advance(1);
    expect(starts).toEqual([0, 2_000]);
    await clock.advance(20_000);
    await expect(r).resolves.toBe(1);
    expect(starts).toEqual([0, 2_000]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a failure that starts the next hedge re-arms the timer from then: starts at 0, 10 and 110', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: 100, maxHedged: 2, clock });
    const starts: number[] = [];
    const r = h.execute((ctx) => {
      starts.push(clock.now() - START);
      return ctx.attempt === 1 ? after(clock, 10, 0, ctx).then(() => Promise.reject(new Error('x'))) : after(clock, 1_000, ctx.attempt, ctx);
    });
    await clock.advance(109);
    expect(starts).toEqual([0, 10]);
    await clock.advance(1);
    expect(starts).toEqual([0, 10, 110]);
    await clock.advance(2_000);
    await expect(r).resolves.toBe(2);
    expect(starts).toEqual([0, 10, 110]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a failure that starts the last hedge cancels the pending timer: never more than maxHedged extra attempts', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const r = hedge({ delayMs: 10, maxHedged: 1, clock }).execute((ctx) => {
      calls++;
      return ctx.attempt === 1 ? Promise.reject(new Error('x')) : after(clock, 50, 'ok', ctx);
    });
    await clock.advance(50);
    await expect(r).resolves.toBe('ok');
    expect(calls).toBe(2);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a failure outcome names the last failure; a timeout outcome is a timeout', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: Infinity, maxHedged: 1, clock });
    const events = collect(h);
    const errors = [new Error('first'), new Error('second')];
    const r = h.execute((ctx) => after(clock, 20, 0, ctx).then(() => Promise.reject(errors[ctx.attempt - 1])));
    const check = expect(r).rejects.toBe(errors[1]);
    await clock.advance(40);
    await check;
    expect(events).toEqual([
      { type: 'hedged', policy: 'hedge', attempt: 2, delayMs: 0 },
      { type: 'outcome', policy: 'hedge', result: 'failure', durationMs: 40, error: errors[1] },
    ]);
    const t = h.execute((ctx) => after(clock, 1_000, 0, ctx), { timeout: 30 });
    const tCheck = expect(t).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(30);
    await tCheck;
    expect(events.at(-1)).toMatchObject({ type: 'outcome', result: 'timeout', durationMs: 30, error: expect.any(TimeoutError) });
    expect(clock.pendingTimers).toBe(0);
  });

  it('every refused result: resolves with the last one, reported as a failure outcome without error', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: 50, maxHedged: 1, clock, handleResult: (v) => (v as number) >= 500 });
    const events = collect(h);
    const r = h.execute((ctx) => after(clock, 10, 500 + ctx.attempt, ctx));
    await clock.advance(20);
    await expect(r).resolves.toBe(502);
    expect(events).toEqual([
      { type: 'hedged', policy: 'hedge', attempt: 2, delayMs: 0 },
      { type: 'outcome', policy: 'hedge', result: 'failure', durationMs: 20, error: undefined },
    ]);
  });

  it('an unhandled failure ends the call at once and aborts the attempts still running as losers', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: 10, maxHedged: 1, clock, handle: (e) => (e as Error).message !== 'fatal' });
    let first: AbortSignal | undefined;
    const r = h.execute((ctx) => {
      if (ctx.attempt === 1) {
        first = ctx.signal;
        return after(clock, 1_000, 'slow', ctx);
      }
      return after(clock, 5, 0, ctx).then(() => Promise.reject(new Error('fatal')));
    });
    const check = expect(r).rejects.toThrow('fatal');
    await clock.advance(15);
    await check;
    expect(first!.aborted).toBe(true);
    expect(first!.reason).toBeInstanceOf(DOMException);
    expect((first!.reason as DOMException).name).toBe('AbortError');
    expect((first!.reason as DOMException).message).toBe('another hedged attempt won');
    expect(clock.pendingTimers).toBe(0);
  });

  it('a shed rejection starts no hedge at once: the call waits for the attempts running', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: Infinity, maxHedged: 2, clock });
    let calls = 0;
    const shed = new BulkheadRejectedError('pool');
    const r = h.execute(() => (calls++, Promise.reject(shed)));
    await expect(r).rejects.toBe(shed);
    expect(calls).toBe(1);
    // with a timer armed, the shed attempt does not cut the wait short
    const starts: number[] = [];
    const t0 = clock.now();
    const r2 = hedge({ delayMs: 100, maxHedged: 1, clock }).execute((ctx) => {
      starts.push(clock.now() - t0);
      return ctx.attempt === 1 ? Promise.reject(shed) : after(clock, 5, 'ok', ctx);
    });
    const r2Check = expect(r2).rejects.toBe(shed);
    await clock.advance(105);
    await r2Check;
    expect(starts).toEqual([0]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('hedged attempts carry the call key and meta; attempt numbers follow the outer attempt', async () => {
    const clock = new TestClock(START);
    const seen: { attempt: number; key: string | undefined; meta: unknown }[] = [];
    const r = hedge({ delayMs: 0, maxHedged: 2, clock }).execute(
      (ctx) => (seen.push({ attempt: ctx.attempt, key: ctx.key, meta: ctx.meta }), after(clock, 10, ctx.attempt, ctx)),
      { key: 'k', meta: { host: 'a' } },
    );
    await clock.advance(10);
    await expect(r).resolves.toBe(1);
    expect(seen).toEqual([
      { attempt: 1, key: 'k', meta: { host: 'a' } },
      { attempt: 2, key: 'k', meta: { host: 'a' } },
      { attempt: 3, key: 'k', meta: { host: 'a' } },
    ]);
  });

  it('delay(n, ctx): a throwing, NaN or non-number delay hedges only after a failure; a negative one starts at once', async () => {
    const clock = new TestClock(START);
    const bad: ((n: number, ctx: ExecutionContext) => number)[] = [
      () => {
        throw new Error('no delay');
      },
      () => Number.NaN,
      () => 'soon' as unknown as number,
    ];
    for (const delay of bad) {
      const starts: number[] = [];
      const t0 = clock.now();
      const r = hedge({ delay, maxHedged: 1, clock }).execute((ctx) => {
        starts.push(clock.now() - t0);
        return after(clock, 50, 0, ctx).then(() => (ctx.attempt === 1 ? Promise.reject(new Error('x')) : 'ok'));
      });
      await clock.advance(10_000);
      await expect(r).resolves.toBe('ok');
      expect(starts).toEqual([0, 50]);
    }
    const asked: [number, string | undefined][] = [];
    let calls = 0;
    const r = hedge({ delay: (n, ctx) => (asked.push([n, ctx.key]), -5), maxHedged: 2, clock }).execute(() => (calls++, new Promise<number>(() => {})), {
      key: 'q',
      timeout: 10,
    });
    const check = expect(r).rejects.toBeInstanceOf(TimeoutError);
    expect(calls).toBe(3);
    expect(asked).toEqual([
      [2, 'q'],
      [3, 'q'],
    ]);
    await clock.advance(10);
    await check;
    expect(clock.pendingTimers).toBe(0);
  });

  it('a context whose scope is already aborted is rejected without an attempt', async () => {
    const clock = new TestClock(START);
    const scope = new Scope(undefined, undefined, Infinity, undefined, 'root', false);
    const reason = new Error('gone');
    scope.abort(reason, true, false);
    const h = hedge({ delayMs: 0, maxHedged: 2, clock });
    const events = collect(h);
    let calls = 0;
    await expect(h[RUN](() => ++calls, new Context(clock, scope, undefined, 1, undefined, {}), undefined)).rejects.toBe(reason);
    expect(calls).toBe(0);
    expect(events).toEqual([]);
  });

  it('after a cooperative enclosing deadline, neither the timer nor a failure starts another hedge', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const deaf = (ms: number, fail: boolean) => (): Promise<string> =>
      (calls++, new Promise<string>((resolve, reject) => clock.setTimeout(() => (fail ? reject(new Error('late')) : resolve('v1')), ms)));
    const p = policy({ clock }).hedge({ delayMs: 40, maxHedged: 2 }).timeout({ ms: 30, mode: 'cooperative' });
    const r = p.execute(deaf(100, false));
    await clock.advance(100);
    await expect(r).resolves.toBe('v1');
    expect(calls).toBe(1);
    calls = 0;
    const r2 = policy({ clock }).hedge({ delayMs: 400, maxHedged: 2 }).timeout({ ms: 30, mode: 'cooperative' }).execute(deaf(35, true));
    // the cooperative deadline asked the operation to stop; it failed afterwards: a TimeoutError caused by that failure
    const check = expect(r2).rejects.toMatchObject({ name: 'TimeoutError', code: 'TIMEOUT', policy: 'timeout', cause: new Error('late') });
    await clock.advance(500);
    await check;
    expect(calls).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a context whose scope is cooperatively aborted runs the primary attempt only', async () => {
    const clock = new TestClock(START);
    const scope = new Scope(undefined, undefined, Infinity, undefined, 'root', false);
    scope.abort(new Error('soft'), false, true);
    let calls = 0;
    const h = hedge({ delayMs: 0, maxHedged: 2, clock });
    const r = h[RUN](() => (calls++, 'v'), new Context(clock, scope, undefined, 1, undefined, {}), undefined);
    await expect(r).resolves.toBe('v');
    expect(calls).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('delayMs 0 reports each hedge with delay 0', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: 0, maxHedged: 2, clock });
    const events = collect(h);
    const r = h.execute((ctx) => after(clock, 10 * ctx.attempt, ctx.attempt, ctx));
    await clock.advance(10);
    await expect(r).resolves.toBe(1);
    expect(events.filter((e) => e.type === 'hedged')).toEqual([
      { type: 'hedged', policy: 'hedge', attempt: 2, delayMs: 0 },
      { type: 'hedged', policy: 'hedge', attempt: 3, delayMs: 0 },
    ]);
    expect(events.filter((e) => e.type === 'won')).toEqual([{ type: 'won', policy: 'hedge', attempt: 1 }]);
  });

  it('a failure of the last allowed hedge waits for the attempts still running', async () => {
    const clock = new TestClock(START);
    const h = hedge({ delayMs: 10, maxHedged: 1, clock });
    const r = h.execute((ctx) =>
      ctx.attempt === 1 ? after(clock, 100, 'slow but good', ctx) : after(clock, 10, 0, ctx).then(() => Promise.reject(new Error('hedge failed'))),
    );
    await clock.advance(100);
    await expect(r).resolves.toBe('slow but good');
    expect(clock.pendingTimers).toBe(0);
  });

  it('the caller abort is not a failure for handle to judge', async () => {
    const clock = new TestClock(START);
    const judged: unknown[] = [];
    const ac = new AbortController();
    const r = hedge({ delayMs: 10, maxHedged: 2, clock, handle: (e) => (judged.push(e), true) }).execute((ctx) => after(clock, 1_000, 1, ctx), {
      signal: ac.signal,
    });
    await clock.advance(15);
    const bye = new Error('bye');
    ac.abort(bye);
    await expect(r).rejects.toBe(bye);
    expect(judged).toEqual([]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('an attempt that already failed is not aborted when another wins', async () => {
    const clock = new TestClock(START);
    const signals: AbortSignal[] = [];
    const r = hedge({ delayMs: 1_000, maxHedged: 1, clock }).execute((ctx) => {
      signals.push(ctx.signal);
      return ctx.attempt === 1 ? after(clock, 10, 0, ctx).then(() => Promise.reject(new Error('x'))) : after(clock, 10, 'ok', ctx);
    });
    await clock.advance(20);
    await expect(r).resolves.toBe('ok');
    expect(signals.map((s) => s.aborted)).toEqual([false, false]);
  });
});

describe('chaos (mutation)', () => {
  it('injects only when the draw is strictly below injectionRate', async () => {
    const random = scriptedRandom(0.25, 0.2499);
    const c = chaos({ fault: 'x', injectionRate: 0.25, random });
    await expect(c.execute(() => 1)).resolves.toBe(1);
    await expect(c.execute(() => 1)).rejects.toBe('x');
    expect(random.draws).toBe(2);
  });

  it('defaults: rate 0.001, enabled, named chaos', async () => {
    const random = scriptedRandom(0.001, 0.000999);
    const c = chaos({ fault: 'x', random });
    expect(c.injectionRate).toBe(0.001);
    expect(c.enabled).toBe(true);
    const events = collect(c);
    await expect(c.execute(() => 1)).resolves.toBe(1);
    await expect(c.execute(() => 1)).rejects.toBe('x');
    expect(events[1]).toEqual({ type: 'injected', policy: 'chaos', kind: 'fault', delayMs: undefined });
  });

  it('rate 0 and a disabled policy draw nothing; enabled: false starts switched off', async () => {
    const random = scriptedRandom(0);
    await expect(chaos({ fault: 'x', injectionRate: 0, random }).execute(() => 1)).resolves.toBe(1);
    const off = chaos({ fault: 'x', injectionRate: 1, random, enabled: false });
    expect(off.enabled).toBe(false);
    await expect(off.execute(() => 1)).resolves.toBe(1);
    expect(random.draws).toBe(0);
    off.enable();
    expect(off.enabled).toBe(true);
    await expect(off.execute(() => 1)).rejects.toBe('x');
    // an enabled function leaves the switch on
    expect(chaos({ fault: 'x', enabled: () => false }).enabled).toBe(true);
  });

  it('an enabled function that throws means no injection', async () => {
    const random = scriptedRandom(0);
    const c = chaos({
      fault: 'x',
      injectionRate: 1,
      random,
      enabled: () => {
        throw new Error('flag service down');
      },
    });
    await expect(c.execute(() => 1)).resolves.toBe(1);
    expect(random.draws).toBe(0);
  });

  it('a latency function that throws, returns a negative, NaN or a non-number adds no latency', async () => {
    const clock = new TestClock(START);
    const bad: ((ctx: ExecutionContext) => number)[] = [
      () => {
        throw new Error('no');
      },
      () => -50,
      () => Number.NaN,
      () => '100' as unknown as number,
    ];
    for (const latency of bad) {
      const c = chaos({ latency, injectionRate: 1, clock });
      const events = collect(c);
      const r = c.execute(() => 'ok');
      await clock.advance(0);
      await expect(r).resolves.toBe('ok');
      expect(events[0]).toEqual({ type: 'injected', policy: 'chaos', kind: 'latency', delayMs: 0 });
      expect(clock.now()).toBe(START);
    }
    expect(clock.pendingTimers).toBe(0);
  });

  it('a call not injected reports its own outcome and duration', async () => {
    const clock = new TestClock(START);
    const c = chaos({ fault: 'x', injectionRate: 0.5, random: scriptedRandom(0.9, 0.9), clock });
    const events = collect(c);
    const ok = c.execute((ctx) => after(clock, 30, 'v', ctx));
    await clock.advance(30);
    await expect(ok).resolves.toBe('v');
    const boom = new Error('real failure');
    const bad = c.execute((ctx) => after(clock, 15, 0, ctx).then(() => Promise.reject(boom)));
    const check = expect(bad).rejects.toBe(boom);
    await clock.advance(15);
    await check;
    expect(events).toEqual([
      { type: 'outcome', policy: 'chaos', result: 'success', durationMs: 30, error: undefined },
      { type: 'outcome', policy: 'chaos', result: 'failure', durationMs: 15, error: boom },
    ]);
  });

  it('an injected substitute result is reported as a success with the time it took', async () => {
    const clock = new TestClock(START);
    const c = chaos({ result: (ctx) => `fake ${ctx.key}`, latency: 5, injectionRate: 1, clock });
    const events = collect(c);
    const r = c.execute(() => 'real', { key: 'k' });
    await clock.advance(5);
    await expect(r).resolves.toBe('fake k');
    expect(events).toEqual([
      { type: 'injected', policy: 'chaos', kind: 'latency', delayMs: 5 },
      { type: 'injected', policy: 'chaos', kind: 'result', delayMs: undefined },
      { type: 'outcome', policy: 'chaos', result: 'success', durationMs: 5, error: undefined },
    ]);
  });
});

describe('breakerRegistry (mutation)', () => {
  it('drops breakers after 300,000 ms idle by default, not at exactly 300,000', async () => {
    const clock = new TestClock(START);
    const r = breakerRegistry({ clock, random: scriptedRandom() });
    expect(r.idleMs).toBe(300_000);
    r.get('a');
    await clock.advance(300_000);
    r.get('b');
    expect([...r.keys()]).toEqual(['a', 'b']);
    await clock.advance(1);
    expect(r.prune()).toBe(1);
    expect([...r.keys()]).toEqual(['b']);
  });

  it('the breakers run on the registry clock and report under name:key', async () => {
    const clock = new TestClock(START);
    for (const defaults of [{ strategy: 'consecutiveFailures', threshold: 5 }, {}] as BreakerRegistryOptions['defaults'][]) {
      const k = keyedBreaker((ctx) => ctx.meta.host!, { name: 'hosts', clock, random: scriptedRandom(), defaults });
      expect(k.name).toBe('hosts');
      expect(k.clock).toBe(clock);
      const events = collect(k);
      const r = k.execute((ctx) => after(clock, 50, 'v', ctx), { meta: { host: 'a' } });
      await clock.advance(50);
      await expect(r).resolves.toBe('v');
      expect(events.filter((e) => e.type === 'outcome')).toEqual([{ type: 'outcome', policy: 'hosts:a', result: 'success', durationMs: 50, error: undefined }]);
      expect(k.get('a')).toBe(k.registry.peek('a'));
    }
  });

  it('a state-machine breaker opens and half-opens on the registry clock', async () => {
    const clock = new TestClock(START);
    const r = breakerRegistry({ defaults: { strategy: 'consecutiveFailures', threshold: 1, openMs: 1_000 }, clock });
    await expect(r.get('a').execute(() => Promise.reject(new Error('x')))).rejects.toThrow('x');
    await expect(r.get('a').execute(() => 1)).rejects.toBeInstanceOf(BrokenCircuitError);
    await clock.advance(1_000);
    await expect(r.get('a').execute(() => 1)).resolves.toBe(1);
  });

  it('SRE breakers draw from the registry random source', async () => {
    const clock = new TestClock(START);
    const random = scriptedRandom(...Array<number>(100).fill(0.999_999));
    const r = breakerRegistry({ clock, random });
    for (let i = 0; i < 20; i++) await r.get('a').execute(() => Promise.reject(new Error('x'))).catch(() => {});
    expect(random.draws).toBeGreaterThan(0);
  });

  it('deleting the oldest, the newest and the only breaker keeps the order right', async () => {
    const clock = new TestClock(START);
    const r = breakerRegistry({ clock, random: scriptedRandom(), idleMs: 100 });
    r.get('a');
    r.get('b');
    r.get('c');
    expect(r.delete('a')).toBe(true); // the oldest
    expect([...r.keys()]).toEqual(['b', 'c']);
    expect(r.delete('c')).toBe(true); // the newest
    expect([...r.keys()]).toEqual(['b']);
    r.get('d');
    expect([...r.keys()]).toEqual(['b', 'd']);
    r.get('b'); // the oldest becomes the newest
    expect([...r.keys()]).toEqual(['d', 'b']);
    expect(r.delete('d')).toBe(true);
    expect(r.delete('b')).toBe(true); // the only one
    expect([...r.keys()]).toEqual([]);
    expect(r.size).toBe(0);
    r.get('e');
    expect([...r.keys()]).toEqual(['e']);
    await clock.advance(50);
    r.get('f');
    await clock.advance(51); // e idle 101 ms, f 51 ms
    expect(r.prune()).toBe(1);
    expect([...r.keys()]).toEqual(['f']);
    await clock.advance(50);
    expect(r.prune()).toBe(1); // every breaker dropped: the list is empty again
    expect([...r.keys()]).toEqual([]);
    r.get('g');
    expect([...r.keys()]).toEqual(['g']);
    expect(r.size).toBe(1);
  });
});
