import { describe, expect, it } from 'vitest';
import { Context } from '../../../lib/context.js';
import type { Chain } from '../../../lib/policy.js';
import { TestClock } from '../../../lib/testing.js';
import { Flight, type FlightOwner } from '../../../policies/idempotent/flight.js';

const T0 = 1_700_000_000_000;

/** An idempotent policy stand-in whose run is whatever `runFlight` says; it logs what the flight tells it. */
function owner(runFlight: <R>(f: Flight<R>, next: Chain | undefined) => Promise<R>) {
  const log: unknown[][] = [];
  const o: FlightOwner = {
    name: 'idempotent',
    runFlight,
    forget: (flight) => void log.push(['forget', flight.key]),
    settled: () => {},
    listening: () => false,
  };
  return { o, log };
}

const first = (clock: TestClock) => new Context(clock, undefined, T0 + 500, 2, 'caller-key', { tenant: 't' });

describe('Flight', () => {
  it('its run sees its own scope, no deadline, the key and the first caller’s attempt and meta', async () => {
    const clock = new TestClock(T0);
    let seen: Flight<unknown> | undefined;
    const { o } = owner(async (f) => {
      seen = f as Flight<unknown>;
      return undefined as never;
    });
    const f = new Flight(o, 'k', () => 1, first(clock), undefined);
    await f.promise;
    expect(seen).toBe(f);
    expect(f.ctx.scope).toBe(f.scope);
    expect([f.ctx.deadline, f.ctx.attempt, f.ctx.key, f.ctx.meta, f.ctx.clock]).toEqual([undefined, 2, 'k', { tenant: 't' }, clock]);
    expect(f.leaseEndsAt).toBe(Infinity);
  });

  it('is forgotten once its run settles, either way', async () => {
    const clock = new TestClock(T0);
    const ok = owner(async () => 'v' as never);
    await new Flight(ok.o, 'a', () => 1, first(clock), undefined).promise;
    await clock.advance(0);
    expect(ok.log).toEqual([['forget', 'a']]);
    const boom = new Error('boom');
    const bad = owner(() => Promise.reject(boom));
    const f = new Flight(bad.o, 'b', () => 1, first(clock), undefined);
    await expect(f.promise).rejects.toBe(boom);
    await clock.advance(0);
    expect(bad.log).toEqual([['forget', 'b']]);
  });

  it('op remembers whether the operation’s call fulfilled and with what, sync or async', async () => {
    const clock = new TestClock(T0);
    const { o } = owner(() => new Promise(() => {}));
    let answer: unknown = 'sync';
    const f = new Flight(o, 'k', () => answer as never, first(clock), undefined);
    expect(f.lastOk).toBe(false);
    expect(f.op(f.ctx)).toBe('sync');
    expect([f.lastOk, f.lastValue]).toEqual([true, 'sync']);
    answer = Promise.resolve('async');
    expect(await f.op(f.ctx)).toBe('async');
    expect([f.lastOk, f.lastValue]).toEqual([true, 'async']);
    answer = Promise.reject(new Error('no'));
    await expect(f.op(f.ctx)).rejects.toThrow('no');
    await clock.advance(0);
    expect(f.lastOk).toBe(false);
  });

  it('idle resolves at once with no call running, else once the last running call settles', async () => {
    const clock = new TestClock(T0);
    const { o } = owner(() => new Promise(() => {}));
    const finishes: ((v: string) => void)[] = [];
    const f = new Flight(o, 'k', () => new Promise<string>((r) => finishes.push(r)), first(clock), undefined);
    let idle = false;
    await f.idle().then(() => (idle = true));
    expect(idle).toBe(true);
    void f.op(f.ctx);
    void f.op(f.ctx);
    idle = false;
    void f.idle().then(() => (idle = true));
    finishes[0]!('one');
    await clock.advance(0);
    expect(idle).toBe(false);
    finishes[1]!('two');
    await clock.advance(0);
    expect(idle).toBe(true);
    expect(f.lastValue).toBe('two');
  });
});
