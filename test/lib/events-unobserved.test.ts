import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventSource, policy } from '../../api/index.js';
import { seededRandom, TestClock } from '../../lib/testing.js';

// quality.md "Performance": unsubscribed, no event object is built. Every
// event goes through EventSource.emit; with nobody subscribed it must never be called.

const START = 1_700_000_000_000;

function chain(clock: TestClock) {
  return policy({ clock, random: seededRandom(7) }).timeout(1000).retry({ maxAttempts: 3 }).breaker().fallback(() => 0);
}

afterEach(() => vi.restoreAllMocks());

describe('events of an unsubscribed chain', () => {
  it('builds no event object on success, retries, timeouts, fallbacks and shed calls', async () => {
    const emit = vi.spyOn(EventSource.prototype, 'emit');
    const clock = new TestClock(START);
    const c = chain(clock);
    expect(await c.execute(async () => 1)).toBe(1);
    expect(await c.execute(() => 2)).toBe(2);
    // failures: retried, then answered by the fallback (clock advanced through the backoff)
    for (let i = 0; i < 30; i++) {
      const p = c.execute(() => Promise.reject(new Error('down')));
      await clock.runAll();
      expect(await p).toBe(0);
    }
    expect((c.policies[2] as unknown as { state: string }).state).toBe('open'); // the breaker has been shedding
    // a hanging call: the timeout fires, the fallback answers
    const hanging = c.execute(() => new Promise<number>(() => {}));
    await clock.runAll();
    expect(await hanging).toBe(0);
    expect(emit).not.toHaveBeenCalled();
  });

  it('does build them once someone subscribes (the spy sees emits)', async () => {
    const emit = vi.spyOn(EventSource.prototype, 'emit');
    const clock = new TestClock(START);
    const c = chain(clock);
    const seen: string[] = [];
    const sub = c.events$.subscribe((e) => seen.push(e.type));
    expect(await c.execute(async () => 1)).toBe(1);
    sub.unsubscribe();
    expect(emit).toHaveBeenCalled();
    expect(seen).toContain('outcome');
  });
});
