import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { cache, ConfigError, policy, staleFallback, TimeoutError, type ExecutionContext, type PolicyEvent } from '../../../api/index.js';
import { TestClock } from '../../../lib/testing.js';
import { after } from '../../helpers/track.js';

const START = 1_700_000_000_000;

describe('cache', () => {
  it('1,000 concurrent calls for one key make one real call', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock });
    let calls = 0;
    const op = (ctx: ExecutionContext): Promise<number> => {
      calls++;
      return after(clock, 50, 42, ctx);
    };
    const all = Array.from({ length: 1_000 }, () => c.execute(op, { key: 'k' }));
    await clock.advance(50);
    expect(await Promise.all(all)).toEqual(Array(1_000).fill(42));
    expect(calls).toBe(1);
    // and later callers are answered from the store while fresh
    await expect(c.execute(op, { key: 'k' })).resolves.toBe(42);
    expect(calls).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('emits miss for the caller that ran, coalesced misses for the others, hit afterwards', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock });
    const events: PolicyEvent[] = [];
    c.events$.subscribe((e) => events.push(e));
    await Promise.all([c.execute(() => 1, { key: 'a' }), c.execute(() => 2, { key: 'a' })]);
    await c.execute(() => 3, { key: 'a' });
    expect(events.filter((e) => e.type !== 'outcome')).toEqual([
      { type: 'miss', policy: 'cache', key: 'a', coalesced: false },
      { type: 'miss', policy: 'cache', key: 'a', coalesced: true },
      { type: 'hit', policy: 'cache', key: 'a', stale: false },
    ]);
    expect(events.filter((e) => e.type === 'outcome')).toHaveLength(3);
  });

  it('different keys do not share; no key runs uncached; the key option reads the context', async () => {
    const clock = new TestClock(START);
    let calls = 0;
    const c = cache({ ttlMs: 1_000, clock });
    const op = (): number => ++calls;
    await Promise.all([c.execute(op, { key: 'a' }), c.execute(op, { key: 'b' })]);
    expect(calls).toBe(2);
    await c.execute(op);
    await c.execute(op);
    expect(calls).toBe(4);
    const byTenant = cache({ ttlMs: 1_000, clock, key: (ctx) => ctx.meta.tenant });
    await byTenant.execute(op, { meta: { tenant: 't1' } });
    await expect(byTenant.execute(op, { meta: { tenant: 't1' } })).resolves.toBe(5);
  });

  it('expires after ttlMs on the clock', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 100, clock });
    let calls = 0;
    const op = (): number => ++calls;
    await c.execute(op, { key: 'k' });
    await clock.advance(99);
    await expect(c.execute(op, { key: 'k' })).resolves.toBe(1);
    await clock.advance(1);
    await expect(c.execute(op, { key: 'k' })).resolves.toBe(2);
  });

  it('stale-while-revalidate answers from the cache and refreshes once in the background', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 100, staleWhileRevalidateMs: 1_000, clock });
    const events: PolicyEvent[] = [];
    c.events$.subscribe((e) => events.push(e));
    let calls = 0;
    const op = (ctx: ExecutionContext): Promise<number> => after(clock, 50, ++calls, ctx);
    const first = c.execute(op, { key: 'k' });
    await clock.advance(50);
    await expect(first).resolves.toBe(1);
    await clock.advance(200); // expired, within the stale window
    const answers = await Promise.all(Array.from({ length: 10 }, () => c.execute(op, { key: 'k' })));
    expect(answers).toEqual(Array(10).fill(1));
    // a second burst while the refresh runs: still stale, still one refresh
    await expect(c.execute(op, { key: 'k' })).resolves.toBe(1);
    expect(calls).toBe(2);
    await clock.advance(50);
    expect(events.filter((e) => e.type === 'revalidated')).toEqual([{ type: 'revalidated', policy: 'cache', key: 'k', ok: true }]);
    await expect(c.execute(op, { key: 'k' })).resolves.toBe(2);
    expect(calls).toBe(2);
    expect(events.filter((e) => e.type === 'hit' && e.stale)).toHaveLength(11);
    // past the stale window it is a miss again
    await clock.advance(2_000);
    const late = c.execute(op, { key: 'k' });
    await clock.advance(50);
    await expect(late).resolves.toBe(3);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a failed refresh keeps the stale value and reports it', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 10, staleWhileRevalidateMs: 100, clock });
    const events: PolicyEvent[] = [];
    c.events$.subscribe((e) => events.push(e));
    await c.execute(() => 'v1', { key: 'k' });
    await clock.advance(20);
    await expect(c.execute(() => Promise.reject(new Error('down')), { key: 'k' })).resolves.toBe('v1');
    await clock.advance(0);
    expect(events.find((e) => e.type === 'revalidated')).toMatchObject({ ok: false, error: new Error('down') });
    await expect(c.execute(() => 'v2', { key: 'k' })).resolves.toBe('v1');
  });

  it('a refresh that hangs is cut at the end of the stale window; the next window refreshes again', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 10, staleWhileRevalidateMs: 100, clock });
    const events: PolicyEvent[] = [];
    c.events$.subscribe((e) => events.push(e));
    await c.execute(() => 'v1', { key: 'k' });
    await clock.advance(20);
    let hungSignal: AbortSignal | undefined;
    await expect(
      c.execute(
        (ctx) => {
          hungSignal = ctx.signal;
          return new Promise<string>(() => {});
        },
        { key: 'k' },
      ),
    ).resolves.toBe('v1');
    await clock.advance(90); // staleUntil = START + 110
    expect(hungSignal!.aborted).toBe(true);
    expect(events.find((e) => e.type === 'revalidated')).toMatchObject({ ok: false, error: new TimeoutError('cache') });
    await expect(c.execute(() => 'v2', { key: 'k' })).resolves.toBe('v2');
    await clock.advance(20);
    await expect(c.execute(() => 'v3', { key: 'k' })).resolves.toBe('v2');
    await clock.advance(0);
    await expect(c.execute(() => 'v4', { key: 'k' })).resolves.toBe('v3');
    expect(clock.pendingTimers).toBe(0);
  });

  it('failures are shared by the joined callers and never cached; handleResult refuses results', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock, handleResult: (v) => v === 503 });
    let calls = 0;
    const failing = (): Promise<number> => (calls++, Promise.reject(new Error('x')));
    const both = [c.execute(failing, { key: 'k' }), c.execute(failing, { key: 'k' })];
    await expect(both[0]).rejects.toThrow('x');
    await expect(both[1]).rejects.toThrow('x');
    expect(calls).toBe(1);
    await expect(c.execute(() => 503, { key: 'k' })).resolves.toBe(503);
    await expect(c.execute(() => 200, { key: 'k' })).resolves.toBe(200);
    await expect(c.execute(() => 201, { key: 'k' })).resolves.toBe(200);
  });

  it("one caller's abort rejects that caller alone; the shared call aborts when all have left", async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 1_000, clock });
    let signal: AbortSignal | undefined;
    const op = (ctx: ExecutionContext): Promise<string> => {
      signal = ctx.signal;
      return after(clock, 100, 'v', ctx);
    };
    const a = new AbortController();
    const b = new AbortController();
    const ra = c.execute(op, { key: 'k', signal: a.signal });
    const rb = c.execute(op, { key: 'k', signal: b.signal });
    const rc = c.execute(op, { key: 'k', timeout: 50 });
    const rcCheck = expect(rc).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(0);
    a.abort(new Error('a gone'));
    await expect(ra).rejects.toThrow('a gone');
    expect(signal!.aborted).toBe(false);
    await clock.advance(50);
    await rcCheck;
    expect(signal!.aborted).toBe(false);
    await clock.advance(50);
    await expect(rb).resolves.toBe('v');
    expect(getEventListeners(b.signal, 'abort')).toHaveLength(0);

    await c.invalidate('k');
    const x = new AbortController();
    const y = new AbortController();
    const rx = c.execute(op, { key: 'k', signal: x.signal });
    const ry = c.execute(op, { key: 'k', signal: y.signal });
    await clock.advance(0);
    x.abort(new Error('x gone'));
    expect(signal!.aborted).toBe(false);
    y.abort(new Error('y gone'));
    await expect(rx).rejects.toThrow('x gone');
    await expect(ry).rejects.toThrow('y gone');
    expect(signal!.aborted).toBe(true);
    // a new caller starts a new call
    const rz = c.execute(op, { key: 'k' });
    await clock.advance(100);
    await expect(rz).resolves.toBe('v');
    expect(clock.pendingTimers).toBe(0);
  });

  it("the shared call is not bound by the first caller's deadline: an inner timeout still ends it for the callers left", async () => {
    // Found by the soak: a caller with a 40 ms deadline started the flight, a caller with none joined it; the
    // inner 60 ms timeout deferred to the first caller's deadline, which nothing enforced once that caller left.
    const clock = new TestClock(START);
    const p = policy({ clock }).timeout(60).cache({ ttlMs: 1_000 });
    let started = 0;
    const deaf = (): Promise<string> => (started++, new Promise<string>(() => {}));
    const first = p.execute(deaf, { key: 'k', timeout: 40 });
    const firstCheck = expect(first).rejects.toBeInstanceOf(TimeoutError);
    const second = p.execute(deaf, { key: 'k' });
    const secondCheck = expect(second).rejects.toBeInstanceOf(TimeoutError);
    await clock.advance(40);
    await firstCheck;
    await clock.advance(20);
    await secondCheck;
    expect(started).toBe(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('stale() reads the last known value even after it expired; staleFallback answers with it', async () => {
    const clock = new TestClock(START);
    const c = cache({ ttlMs: 100, clock });
    expect(await c.stale('k')).toBeUndefined();
    await c.execute(() => ({ id: 1 }), { key: 'k' });
    await clock.advance(10_000);
    expect(await c.stale('k')).toEqual({ value: { id: 1 }, storedAt: START, ageMs: 10_000 });
    const p = policy({ clock }).cache({ ttlMs: 100 }).fallback(staleFallback<{ id: number }>(c));
    await expect(p.execute(() => Promise.reject(new Error('down')), { key: 'k' })).resolves.toEqual({ id: 1 });
    await expect(p.execute(() => Promise.reject(new Error('down')), { key: 'none' })).rejects.toThrow('down');
  });

  it('bad options are a ConfigError naming the option', () => {
    const issue = (f: () => unknown): string => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as ConfigError).issues.map((i) => i.path).join(',');
      }
      throw new Error('no error');
    };
    expect(issue(() => cache({} as never))).toBe('ttlMs');
    expect(issue(() => cache({ ttlMs: 0 }))).toBe('ttlMs');
    expect(issue(() => cache({ ttlMs: 10, staleWhileRevalidateMs: -1 }))).toBe('staleWhileRevalidateMs');
    expect(issue(() => cache({ ttlMs: 10, store: {} as never }))).toBe('store');
    expect(issue(() => cache({ ttlMs: 10, key: 'id' as never }))).toBe('key');
    expect(issue(() => cache({ ttlMs: 100, retainMs: 50 }))).toBe('retainMs');
    expect(issue(() => cache({ ttlMs: 10, size: 5 } as never))).toBe('size');
  });
});
