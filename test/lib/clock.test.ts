import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DeadlineTimer, deadlineTimerOf, isClock, systemClock, type DeadlineEntry } from '../../lib/clock.js';
import { circuitBreaker, retry, timeout, TimeoutError } from '../../api/index.js';
import { seededRandom, TestClock } from '../../lib/testing.js';
import { runs } from '../helpers/fuzz.js';

const START = 1_700_000_000_000;

describe('systemClock under fake timers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('reads the time when asked, so installed fake timers move it', () => {
    vi.useFakeTimers({ now: 1_000 });
    expect(systemClock.now()).toBe(1_000);
    vi.advanceTimersByTime(250);
    expect(systemClock.now()).toBe(1_250);
  });

  it('timeout(1000) with no clock option rejects after tick(1001), not before', async () => {
    vi.useFakeTimers();
    const t = timeout(1_000);
    let settled: unknown;
    const run = t.execute(() => new Promise(() => {})).catch((e: unknown) => (settled = e));
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2);
    await run;
    expect(settled).toBeInstanceOf(TimeoutError);
  });

  it('an open breaker on the default clock half-opens once fake time passes its open period', async () => {
    vi.useFakeTimers();
    const b = circuitBreaker({ strategy: 'consecutiveFailures', threshold: 1, openMs: 5_000 });
    await b.execute(() => Promise.reject(new Error('down'))).catch(() => undefined);
    expect(b.state).toBe('open');
    vi.advanceTimersByTime(5_001);
    await expect(b.execute(() => 'probe')).resolves.toBe('probe');
    expect(b.state).toBe('closed');
  });

  it('retry backoff sleeps run on fake timers', async () => {
    vi.useFakeTimers();
    let attempts = 0;
    const run = retry({ maxAttempts: 2 }).execute(() => (++attempts === 1 ? Promise.reject(new Error('once')) : 'ok'));
    await vi.runAllTimersAsync();
    await expect(run).resolves.toBe('ok');
    expect(attempts).toBe(2);
  });

  it('the shared deadline timer re-arms on the fake timers when it was armed before they were installed', async () => {
    // armed on real timers, far in the future
    const first = timeout(60_000).execute(() => new Promise(() => {})).catch(() => undefined);
    vi.useFakeTimers();
    const t = timeout(1_000);
    let settled: unknown;
    const run = t.execute(() => new Promise(() => {})).catch((e: unknown) => (settled = e));
    // its deadline is after the real timer's? no matter: the heap's earliest decides, on the fake timers now
    await vi.advanceTimersByTimeAsync(1_001);
    await run;
    expect(settled).toBeInstanceOf(TimeoutError);
    await vi.advanceTimersByTimeAsync(60_000);
    await first;
    vi.useRealTimers();
  });

  it('two fake-timer sessions in a row: a deadline of the second is not lost on a timer of the first', async () => {
    vi.useFakeTimers({ now: 0 });
    void timeout(100_000).execute(() => new Promise(() => {})).catch(() => undefined);
    vi.useRealTimers();
    vi.useFakeTimers({ now: 0 });
    let settled: unknown;
    const run = timeout(200_000).execute(() => new Promise(() => {})).catch((e: unknown) => (settled = e));
    await vi.advanceTimersByTimeAsync(200_001);
    await run;
    expect(settled).toBeInstanceOf(TimeoutError);
  });
});

describe('isClock', () => {
  it('accepts an object with now, setTimeout and clearTimeout, nothing else', () => {
    expect(isClock(systemClock)).toBe(true);
    expect(isClock(new TestClock(0))).toBe(true);
    expect(isClock({ now: () => 0, setTimeout: () => 0 })).toBe(false);
    expect(isClock({ setTimeout: () => 0, clearTimeout: () => undefined })).toBe(false);
    expect(isClock({ now: () => 0, clearTimeout: () => undefined })).toBe(false);
    expect(isClock({ now: 0, setTimeout: () => 0, clearTimeout: () => undefined })).toBe(false);
    expect(isClock(null)).toBe(false);
    expect(isClock(() => 0)).toBe(false);
  });
});

describe('DeadlineTimer', () => {
  it('works on a clock whose timer handles are plain numbers (no ref or unref)', async () => {
    const inner = new TestClock(0);
    const handles = new Map<number, unknown>();
    let id = 0;
    const clock = {
      now: () => inner.now(),
      setTimeout: (fn: () => void, ms: number) => (handles.set(++id, inner.setTimeout(fn, ms)), id),
      clearTimeout: (h: unknown) => inner.clearTimeout(handles.get(h as number)),
    };
    const timer = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = { at: 50, heapIndex: -1, expire: () => log.push(50) };
    timer.add(a);
    timer.remove(a);
    timer.add({ at: 80, heapIndex: -1, expire: () => log.push(80) });
    await inner.runAll();
    expect(log).toEqual([80]);
  });

  const entry = (at: number, log: number[]) => ({ at, heapIndex: -1, expire: () => log.push(at) });

  it('expires entries in deadline order on one armed timer, ties and removals included', async () => {
    const clock = new TestClock(0);
    const timer = new DeadlineTimer(clock);
    const log: number[] = [];
    const es = [50, 10, 30, 10, 40, 20].map((at) => entry(at, log));
    for (const e of es) timer.add(e);
    expect(clock.pendingTimers).toBe(1);
    timer.remove(es[2]!);
    timer.remove(es[2]!);
    expect(timer.size).toBe(5);
    await clock.advance(10);
    expect(log).toEqual([10, 10]);
    await clock.runAll();
    expect(log).toEqual([10, 10, 20, 40, 50]);
    expect(timer.size).toBe(0);
    expect(clock.pendingTimers).toBe(0);
  });

  it('any sequence of adds, removals and waits: each entry expires once, exactly at its time, unless removed; one timer, pending only while entries are', async () => {
    const step = fc.oneof(
      fc.record({ add: fc.integer({ min: 0, max: 100 }) }),
      fc.record({ remove: fc.nat() }),
      fc.record({ wait: fc.integer({ min: 0, max: 60 }) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 60 }), async (steps) => {
        const clock = new TestClock(1_000);
        const timer = new DeadlineTimer(clock);
        const live = new Set<{ at: number; heapIndex: number; expire(): void }>();
        const expired: { at: number; now: number }[] = [];
        const check = () => {
          expect(timer.size).toBe(live.size);
          expect(clock.pendingTimers).toBe(live.size > 0 ? 1 : 0);
          expect(clock.armedTimers).toBeLessThanOrEqual(1);
        };
        for (const s of steps) {
          if ('add' in s) {
            const e = {
              at: clock.now() + s.add,
              heapIndex: -1,
              expire() {
                // Never a removed entry, never twice.
                expect(live.has(e)).toBe(true);
                live.delete(e);
                expired.push({ at: e.at, now: clock.now() });
              },
            };
            live.add(e);
            timer.add(e);
          } else if ('remove' in s) {
            const all = [...live];
            if (all.length === 0) continue;
            const e = all[s.remove % all.length]!;
            live.delete(e);
            timer.remove(e);
          } else {
            await clock.advance(s.wait);
          }
          check();
        }
        await clock.runAll();
        check();
        expect(live.size).toBe(0);
        for (const x of expired) expect(x.now).toBe(x.at);
        // Expired in deadline order.
        expect(expired.map((x) => x.at)).toEqual([...expired.map((x) => x.at)].sort((a, b) => a - b));
      }),
      { numRuns: runs(300) },
    );
  });

  it('arms its timer again only for an entry earlier than the one it is armed for', async () => {
    const clock = new TestClock(0);
    const arm = vi.spyOn(clock, 'setTimeout');
    const timer = new DeadlineTimer(clock);
    const log: number[] = [];
    for (const at of [50, 50, 70]) timer.add(entry(at, log));
    expect(arm).toHaveBeenCalledTimes(1);
    timer.add(entry(40, log));
    expect(arm).toHaveBeenCalledTimes(2);
    await clock.runAll();
    expect(log).toEqual([40, 50, 50, 70]);
  });

  it('when emptied early, its timer no longer counts as pending, and it comes back for a new entry', async () => {
    const clock = new TestClock(0);
    const timer = deadlineTimerOf(clock);
    expect(deadlineTimerOf(clock)).toBe(timer);
    const log: number[] = [];
    const a = entry(100, log);
    timer.add(a);
    timer.remove(a);
    expect(clock.pendingTimers).toBe(0);
    timer.add(entry(200, log));
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(200);
    expect(log).toEqual([200]);
    expect(clock.pendingTimers).toBe(0);
  });
});

describe('DeadlineTimer: one timer, a min-heap of entries', () => {
  function entry(at: number, log: number[]): DeadlineEntry {
    return { at, heapIndex: -1, expire: () => log.push(at) };
  }

  it('expires entries in time order, each at its own time, with one timer armed', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const fired: number[] = [];
    for (const d of [50, 10, 30, 20, 40, 60, 5]) {
      t.add({ at: START + d, heapIndex: -1, expire: () => (log.push(d), fired.push(clock.now() - START)) });
    }
    expect(t.size).toBe(7);
    expect(clock.armedTimers).toBe(1);
    await clock.advance(4);
    expect(log).toEqual([]);
    await clock.advance(1);
    expect(log).toEqual([5]);
    await clock.advance(100);
    expect(log).toEqual([5, 10, 20, 30, 40, 50, 60]);
    expect(fired).toEqual([5, 10, 20, 30, 40, 50, 60]);
    expect(t.size).toBe(0);
    expect(clock.armedTimers).toBe(0);
  });

  it('removal anywhere in the heap keeps the order; removed entries never expire; removing twice is harmless', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const clock = new TestClock(START);
      const t = new DeadlineTimer(clock);
      const random = seededRandom(seed);
      const log: number[] = [];
      const entries = Array.from({ length: 200 }, () => entry(START + 1 + Math.floor(random() * 10_000), log));
      for (const e of entries) t.add(e);
      const removed = new Set<DeadlineEntry>();
      for (let k = 0; k < 100; k++) {
        const e = entries[Math.floor(random() * entries.length)]!;
        t.remove(e);
        expect(e.heapIndex).toBe(-1);
        removed.add(e);
      }
      expect(t.size).toBe(200 - removed.size);
      const kept = entries.filter((e) => !removed.has(e)).map((e) => e.at);
      await clock.advance(20_000);
      expect(log).toEqual([...kept].sort((a, b) => a - b));
      expect(t.size).toBe(0);
    }
  });

  it('an expired entry is out of the heap; removing it after is harmless', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = entry(START + 10, log);
    const b = entry(START + 20, log);
    t.add(a);
    t.add(b);
    await clock.advance(10);
    expect(a.heapIndex).toBe(-1);
    t.remove(a);
    expect(t.size).toBe(1);
    expect(b.heapIndex).toBe(0);
    await clock.advance(10);
    expect(log).toEqual([START + 10, START + 20]);
  });

  it('an earlier entry re-arms the one timer; a later one does not', () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    t.add(entry(START + 100, log));
    t.add(entry(START + 200, log));
    expect(clock.armedTimers).toBe(1);
    t.add(entry(START + 50, log));
    expect(clock.armedTimers).toBe(1);
    expect(clock.pendingTimers).toBe(1);
  });

  it('an empty heap unrefs the timer instead of clearing it; the next entry refs it again', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = entry(START + 100, log);
    t.add(a);
    t.remove(a);
    expect(clock.pendingTimers).toBe(0);
    expect(clock.armedTimers).toBe(1);
    // a later entry reuses the armed timer and refs it
    const b = entry(START + 150, log);
    t.add(b);
    expect(clock.pendingTimers).toBe(1);
    expect(clock.armedTimers).toBe(1);
    t.remove(b);
    expect(clock.pendingTimers).toBe(0);
    // the idle timer fires with nothing due and disarms
    await clock.advance(100);
    expect(clock.armedTimers).toBe(0);
    expect(log).toEqual([]);
    // then the next entry arms a fresh timer
    const c = entry(START + 130, log);
    t.add(c);
    expect(clock.pendingTimers).toBe(1);
    await clock.advance(30);
    expect(log).toEqual([START + 130]);
  });

  it('re-arming from idle for an earlier entry leaves the idle state: emptying again unrefs', () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = entry(START + 100, log);
    t.add(a);
    t.remove(a); // idle, unref'd timer at +100
    const b = entry(START + 50, log); // earlier: a fresh timer
    t.add(b);
    expect(clock.armedTimers).toBe(1);
    expect(clock.pendingTimers).toBe(1);
    t.remove(b);
    expect(clock.pendingTimers).toBe(0);
  });

  it('the timer firing early for a removed root re-arms for the next entry', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    const a = entry(START + 10, log);
    t.add(a);
    t.add(entry(START + 40, log));
    t.remove(a); // the timer stays armed at +10
    await clock.advance(10);
    expect(log).toEqual([]);
    expect(clock.pendingTimers).toBe(1); // re-armed for +40
    await clock.advance(30);
    expect(log).toEqual([START + 40]);
    expect(clock.armedTimers).toBe(0);
  });

  it('an entry already due expires on the next turn of the clock', async () => {
    const clock = new TestClock(START);
    const t = new DeadlineTimer(clock);
    const log: number[] = [];
    t.add(entry(START - 50, log));
    await clock.advance(0);
    expect(log).toEqual([START - 50]);
  });

  it('deadlineTimerOf gives one timer per clock', () => {
    const c1 = new TestClock(START);
    const c2 = new TestClock(START);
    expect(deadlineTimerOf(c1)).toBe(deadlineTimerOf(c1));
    expect(deadlineTimerOf(c1)).not.toBe(deadlineTimerOf(c2));
    expect(deadlineTimerOf(c1)).toBeInstanceOf(DeadlineTimer);
  });
});
