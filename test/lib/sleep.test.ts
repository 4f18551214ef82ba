import { describe, expect, it } from 'vitest';
import { Scope } from '../../lib/context.js';
import { sleep } from '../../lib/sleep.js';
import { TestClock } from '../../lib/testing.js';
import { track } from '../helpers/track.js';

const T0 = 1_700_000_000_000;

const rootScope = (): Scope => new Scope(undefined, undefined, Infinity, undefined, 'root', false);

describe('sleep', () => {
  it('resolves after ms on the clock, not before, and leaves no timer', async () => {
    const clock = new TestClock(T0);
    const r = track(sleep(clock, 50, undefined), clock);
    await clock.advance(49);
    expect(r.now).toBeUndefined();
    await clock.advance(1);
    expect(r.now).toEqual({ ok: true, value: undefined, at: T0 + 50 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('a scope that aborts ends the wait at once with its reason and clears the timer', async () => {
    const clock = new TestClock(T0);
    const scope = rootScope();
    const r = track(sleep(clock, 1_000, scope), clock);
    await clock.advance(10);
    const reason = new Error('stop');
    scope.abort(reason, true, false);
    await clock.advance(0);
    expect(r.now).toEqual({ ok: false, error: reason, at: T0 + 10 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('a scope already aborted rejects with its reason and starts no timer', async () => {
    const clock = new TestClock(T0);
    const scope = rootScope();
    const reason = new Error('gone');
    scope.abort(reason, false, false);
    await expect(sleep(clock, 10, scope)).rejects.toBe(reason);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a wait that ended leaves the scope: a later abort clears no timer of it', async () => {
    const clock = new TestClock(T0);
    let clears = 0;
    const counting = {
      now: () => clock.now(),
      setTimeout: (f: () => void, ms: number) => clock.setTimeout(f, ms),
      clearTimeout: (h: unknown) => {
        clears++;
        clock.clearTimeout(h as never);
      },
    };
    const scope = rootScope();
    const r = track(sleep(counting, 5, scope), clock);
    await clock.advance(5);
    expect(r.now).toMatchObject({ ok: true });
    scope.abort(new Error('late'), false, false);
    expect(clears).toBe(0);
    // a wait still running is told: its timer is cleared once
    const running = rootScope();
    const p = sleep(counting, 5, running).catch(() => 'aborted');
    running.abort(new Error('now'), false, false);
    expect(clears).toBe(1);
    await expect(p).resolves.toBe('aborted');
  });
});
