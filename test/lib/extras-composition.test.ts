import { describe, expect, it } from 'vitest';
import { policy, staleFallback, cache } from '../../api/index.js';
import { seededRandom, TestClock } from '../../lib/testing.js';
import { after } from '../helpers/track.js';

const START = 1_700_000_000_000;

describe('hedge, chaos and cache together', () => {
  it('hedge inside cache: 100 callers share one hedged call', async () => {
    const clock = new TestClock(START);
    const calls: number[] = [];
    const p = policy({ clock }).hedge({ delayMs: 20 }).cache({ ttlMs: 1_000 });
    const all = Array.from({ length: 100 }, () =>
      p.execute(
        (ctx) => {
          calls.push(ctx.attempt);
          return after(clock, ctx.attempt === 1 ? 500 : 10, `a${ctx.attempt}`, ctx);
        },
        { key: 'k' },
      ),
    );
    await clock.advance(30);
    expect(new Set(await Promise.all(all))).toEqual(new Set(['a2']));
    expect(calls).toEqual([1, 2]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('chaos faults inside a cache with a stale fallback: callers keep getting the last good value', async () => {
    const clock = new TestClock(START);
    const users = cache({ ttlMs: 10, clock });
    const p = policy({ clock, random: seededRandom(5) })
      .chaos({ fault: () => new Error('injected'), injectionRate: 0.5 })
      .use(users)
      .fallback(staleFallback<string>(users));
    let first: string | undefined;
    for (let i = 0; i < 50 && first === undefined; i++) first = await p.execute(() => 'v', { key: 'u' }).catch(() => undefined);
    expect(first).toBe('v');
    let answered = 0;
    for (let i = 0; i < 200; i++) {
      await clock.advance(20); // always expired
      if ((await p.execute(() => 'v', { key: 'u' })) === 'v') answered++;
    }
    expect(answered).toBe(200);
  });
});
