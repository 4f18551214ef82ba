import { describe, expect, it } from 'vitest';
import { Context, Scope } from '../../../lib/context.js';
import type { Chain, Operation } from '../../../lib/policy.js';
import { TestClock } from '../../../lib/testing.js';
import { Flight, type FlightInfo, type FlightOwner } from '../../../policies/cache/flight.js';
import type { CacheRecord } from '../../../policies/cache/store.js';

const T0 = 1_700_000_000_000;

/** A cache stand-in: a record to find (or a lookup to hold), and a log of what the flight tells it. */
function owner(clock: TestClock, record?: CacheRecord | Promise<CacheRecord | undefined>) {
  const log: unknown[][] = [];
  const o: FlightOwner = {
    name: 'cache',
    clock,
    lookup: async (key) => {
      log.push(['lookup', key]);
      return record;
    },
    save: async (key, value) => {
      log.push(['save', key, value]);
      return true;
    },
    revalidate: <R>(key: string, _op: Operation<R>, _ctx: Context, _next: Chain | undefined, until: number) => void log.push(['revalidate', key, until]),
    announce: (flight: FlightInfo, count: number, coalesced: boolean) => void log.push(['announce', flight.kind, count, coalesced]),
    forget: (flight) => void log.push(['forget', flight.key]),
    settled: () => {},
    listening: () => false,
  };
  return { o, log };
}

const contextOf = (clock: TestClock, scope?: Scope) => new Context(clock, scope, T0 + 1_000, 3, 'k', { tenant: 'a' });
const rec = (value: unknown, expiresAt: number, staleUntil: number): CacheRecord => ({ value, storedAt: T0 - 10, expiresAt, staleUntil });

describe('Flight', () => {
  it('a fresh record answers without a call; nothing is saved or refreshed', async () => {
    const clock = new TestClock(T0);
    const { o, log } = owner(clock, rec('cached', T0 + 1, T0 + 1));
    let calls = 0;
    const f = new Flight(o, 'k', () => ++calls, contextOf(clock), undefined);
    const answer = f.join(contextOf(clock), T0);
    await f.run();
    expect(await answer).toBe('cached');
    expect(f.kind).toBe('hit');
    expect(calls).toBe(0);
    expect(log).toEqual([['lookup', 'k'], ['announce', 'hit', 1, false], ['forget', 'k']]);
  });

  it('a record past its expiry but in its stale window answers and asks for one refresh until staleUntil', async () => {
    const clock = new TestClock(T0);
    const { o, log } = owner(clock, rec('old', T0, T0 + 50));
    const f = new Flight(o, 'k', () => 'new', contextOf(clock), undefined);
    const answer = f.join(contextOf(clock), T0);
    await f.run();
    expect(await answer).toBe('old');
    expect(f.kind).toBe('stale');
    expect(log).toEqual([['lookup', 'k'], ['announce', 'stale', 1, false], ['forget', 'k'], ['revalidate', 'k', T0 + 50]]);
  });

  it('no record, or one past its stale window, is a miss: the one call runs, its value is saved, then the flight is forgotten', async () => {
    const clock = new TestClock(T0);
    for (const found of [undefined, rec('dead', T0 - 5, T0)]) {
      const { o, log } = owner(clock, found);
      let seen: Context | undefined;
      const f = new Flight(
        o,
        'k',
        (ctx) => {
          seen = ctx as Context;
          return 'fresh';
        },
        contextOf(clock),
        undefined,
      );
      const answer = f.join(contextOf(clock), T0);
      await f.run();
      expect(await answer).toBe('fresh');
      expect(f.kind).toBe('miss');
      expect(log).toEqual([['lookup', 'k'], ['announce', 'miss', 1, false], ['save', 'k', 'fresh'], ['forget', 'k']]);
      // the call runs under the flight's scope, without the first caller's deadline, with its attempt, key and meta
      expect(seen!.scope).toBe(f.scope);
      expect(seen!.deadline).toBeUndefined();
      expect([seen!.attempt, seen!.key, seen!.meta]).toEqual([3, 'k', { tenant: 'a' }]);
    }
  });

  it('a failed call rejects every caller and is forgotten without saving', async () => {
    const clock = new TestClock(T0);
    const { o, log } = owner(clock);
    const boom = new Error('boom');
    const f = new Flight(o, 'k', () => Promise.reject(boom), contextOf(clock), undefined);
    const a = f.join(contextOf(clock), T0);
    const b = f.join(contextOf(clock), T0);
    await f.run();
    await expect(a).rejects.toBe(boom);
    await expect(b).rejects.toBe(boom);
    expect(log).toEqual([['lookup', 'k'], ['announce', 'miss', 2, false], ['forget', 'k']]);
  });

  it('callers joining after the lookup is known are announced one by one, coalesced once another joined', async () => {
    const clock = new TestClock(T0);
    let found!: (r: CacheRecord | undefined) => void;
    let release!: (v: string) => void;
    const { o, log } = owner(clock, new Promise((r) => (found = r)));
    const f = new Flight(o, 'k', () => new Promise<string>((r) => (release = r)), contextOf(clock), undefined);
    const answers = [f.join(contextOf(clock), T0)];
    const running = f.run();
    found(undefined);
    await clock.advance(0);
    answers.push(f.join(contextOf(clock), T0));
    release('v');
    await running;
    expect(await Promise.all(answers)).toEqual(['v', 'v']);
    expect(log.filter((e) => e[0] === 'announce')).toEqual([
      ['announce', 'miss', 1, false],
      ['announce', 'miss', 1, true],
    ]);
  });

  it('every caller leaving during the lookup abandons the flight: no call is made, the run ends with their reason', async () => {
    const clock = new TestClock(T0);
    let found!: (r: CacheRecord | undefined) => void;
    const { o, log } = owner(clock, new Promise((r) => (found = r)));
    let calls = 0;
    const callerScope = new Scope(undefined, undefined, Infinity, undefined, 'caller', false);
    const f = new Flight(o, 'k', () => ++calls, contextOf(clock, callerScope), undefined);
    const answer = f.join(contextOf(clock, callerScope), T0);
    const running = f.run();
    const gone = new Error('gone');
    callerScope.abort(gone, true, false);
    await expect(answer).rejects.toBe(gone);
    found(undefined);
    await running;
    await expect(f.promise).rejects.toBe(gone);
    expect(calls).toBe(0);
    expect(log).toEqual([['lookup', 'k'], ['forget', 'k']]);
  });
});
