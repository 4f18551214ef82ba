import { describe, expect, it } from 'vitest';
import {
  breakerRegistry,
  BrokenCircuitError,
  BulkheadRejectedError,
  cache,
  chaos,
  ConfigError,
  hedge,
  jsonCacheCodec,
  keyedBreaker,
  memoryCacheStore,
  TimeoutError,
  type CacheRecord,
  type CacheStore,
  type ExecutionContext,
  type PolicyEvent,
} from '../../../lib/index.js';
import { scriptedRandom, TestClock } from '../../../lib/testing.js';
import { Context, Scope } from '../../../lib/context.js';
import { RUN } from '../../../lib/policy.js';
import { after } from '../../helpers/track.js';

// Tests written against the mutants a manual mutation analysis found unguarded in
// policies/cache, policies/hedge, policies/chaos and policies/breaker-registry.

const START = 1_700_000_000_000;

function recording(source: { events$: { subscribe(f: (e: PolicyEvent) => void): unknown } }): PolicyEvent[] {
  const events: PolicyEvent[] = [];
  source.events$.subscribe((e) => events.push(e));
  return events;
}

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

  it('retainMs may equal ttlMs + staleWhileRevalidateMs exactly', () => {
    expect(() => cache({ ttlMs: 100, staleWhileRevalidateMs: 50, retainMs: 150 })).not.toThrow();
    expect(() => cache({ ttlMs: 100, staleWhileRevalidateMs: 50, retainMs: 149 })).toThrow(ConfigError);
  });

  it('a store must have get, set and delete', () => {
    const ok = { get: async () => undefined, set: async () => {}, delete: async () => {} };
    expect(() => cache({ ttlMs: 10, store: ok })).not.toThrow();
    for (const missing of ['get', 'set', 'delete'] as const) {
      const bad = { ...ok, [missing]: undefined };
      expect(() => cache({ ttlMs: 10, store: bad as never })).toThrow(/store/);
    }
    expect(() => cache({ ttlMs: 10, store: null as never })).toThrow(ConfigError);
  });

  it('the stale window: stale hit at exactly expiresAt, miss at exactly staleUntil', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 100, staleWhileRevalidateMs: 50, clock });
    const events = recording(c);
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

  it('a refresh whose result handleResult refuses reports ok: false and keeps the stale value', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 10, staleWhileRevalidateMs: 100, clock, handleResult: (v) => v === 503 });
    const events = recording(c);
    await c.execute(() => 200, { key: 'k' });
    await clock.advance(20);
    await expect(c.execute(() => 503, { key: 'k' })).resolves.toBe(200);
    await clock.advance(0);
    expect(events.filter((e) => e.type === 'revalidated')).toEqual([{ type: 'revalidated', policy: 'cache', key: 'k', ok: false }]);
    // the refresh is over: the next stale read starts another
    await expect(c.execute(() => 201, { key: 'k' })).resolves.toBe(200);
    await clock.advance(0);
    await expect(c.execute(() => 202, { key: 'k' })).resolves.toBe(201);
  });

  it('a failed refresh reports its error with the key and policy name', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 10, staleWhileRevalidateMs: 100, clock, name: 'users' });
    const events = recording(c);
    await c.execute(() => 'v1', { key: 'k' });
    await clock.advance(20);
    const down = new Error('down');
    await c.execute(() => Promise.reject(down), { key: 'k' });
    await clock.advance(0);
    expect(events.filter((e) => e.type === 'revalidated')).toEqual([{ type: 'revalidated', policy: 'users', key: 'k', ok: false, error: down }]);
    // the refresh is over: the next stale read refreshes again
    await c.execute(() => 'v2', { key: 'k' });
    await clock.advance(0);
    await expect(c.execute(() => 'v3', { key: 'k' })).resolves.toBe('v2');
  });

  it('reports outcomes with durations: success, failure with its error, timeout', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock, name: 'users' });
    const events = recording(c);
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
    const events = recording(c);
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

  it('jsonCacheCodec names what it cannot encode', () => {
    expect(() => jsonCacheCodec.encode(undefined)).toThrow('jsonCacheCodec: cannot encode undefined');
    expect(() => jsonCacheCodec.encode(() => 1)).toThrow('jsonCacheCodec: cannot encode function');
    expect(jsonCacheCodec.decode(jsonCacheCodec.encode({ a: [1] }))).toEqual({ a: [1] });
  });
});
