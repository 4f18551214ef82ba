import type { Clock, TimerHandle } from './clock.js';

/** A timer of {@link TestClock}. */
export class TestTimer {
  /** @internal */ active = true;
  /** @internal */ refed = true;
  constructor(
    /** Clock time at which it fires. */
    readonly at: number,
    /** @internal */ readonly seq: number,
    /** @internal */ readonly fn: () => void,
    private readonly owner: TestClock,
  ) {}
  /** Counts the timer in `pendingTimers` again (like Node's `Timeout.ref`). */
  ref(): this {
    if (this.active && !this.refed) this.owner.refed++;
    this.refed = true;
    return this;
  }
  /** Stops counting it in `pendingTimers`; it still fires (like Node's `Timeout.unref`). */
  unref(): this {
    if (this.active && this.refed) this.owner.refed--;
    this.refed = false;
    return this;
  }
  /** True while counted in `pendingTimers`. */
  hasRef(): boolean {
    return this.refed;
  }
}

// A macrotask: Node's and Bun's setImmediate, else (browsers, Deno) a zero timeout.
const nextTurn: (fn: () => void) => unknown =
  typeof (globalThis as { setImmediate?: unknown }).setImmediate === 'function'
    ? (globalThis as unknown as { setImmediate: (fn: () => void) => unknown }).setImmediate
    : (fn) => setTimeout(fn, 0);

/** Lets every promise callback that is ready run, as a real event-loop turn would. */
function settle(): Promise<void> {
  return new Promise((resolve) => nextTurn(resolve));
}

/**
 * Virtual time for tests: `now()` moves only when the test advances it, and
 * `advance(ms)` fires every timer that falls due, in order, letting promise
 * callbacks settle between them. No test needs to sleep.
 *
 * @example
 * ```ts
 * const clock = new TestClock(1_000_000);
 * const p = policy({ clock }).timeout(100).execute(() => new Promise(() => {}));
 * await clock.advance(100);
 * await expect(p).rejects.toBeInstanceOf(TimeoutError);
 * expect(clock.pendingTimers).toBe(0);
 * ```
 */
export class TestClock implements Clock {
  private time: number;
  private seq = 0;
  private timers: TestTimer[] = [];
  /** @internal */ refed = 0;

  /** @param startEpochMs the initial time; choose one well above 0, as real epoch times are. */
  constructor(startEpochMs = 0) {
    this.time = startEpochMs;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const delay = Number.isFinite(ms) && ms > 0 ? ms : 0;
    const timer = new TestTimer(this.time + delay, this.seq++, fn, this);
    this.timers.push(timer);
    this.refed++;
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    if (!(handle instanceof TestTimer) || !handle.active) return;
    this.deactivate(handle);
  }

  /** How many timers are armed and not unref'd: 0 after a clean run. */
  get pendingTimers(): number {
    return this.refed;
  }

  /** How many timers are armed, unref'd ones included. */
  get armedTimers(): number {
    return this.timers.length;
  }

  /**
   * Moves time forward by `ms`, firing every timer that falls due in order of
   * time (then of creation), each at its own time, with promise callbacks
   * settled before and after each one.
   */
  async advance(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`TestClock.advance: expected ms >= 0, got ${ms}`);
    const target = this.time + ms;
    await settle();
    for (;;) {
      const next = this.earliest();
      if (next === undefined || next.at > target) break;
      this.time = Math.max(this.time, next.at);
      this.deactivate(next);
      next.fn();
      await settle();
    }
    this.time = target;
    await settle();
  }

  /** Sets the time to `epochMs` (not earlier than now), firing what falls due. */
  async advanceTo(epochMs: number): Promise<void> {
    await this.advance(Math.max(0, epochMs - this.time));
  }

  /** Fires timers until none is armed (at most `limit`, against timers that re-arm forever). */
  async runAll(limit = 100_000): Promise<void> {
    await settle();
    for (let i = 0; i < limit; i++) {
      const next = this.earliest();
      if (next === undefined) return;
      await this.advance(next.at - this.time);
    }
    throw new Error(`TestClock.runAll: still timers after ${limit} rounds`);
  }

  private earliest(): TestTimer | undefined {
    let best: TestTimer | undefined;
    for (const t of this.timers) {
      if (best === undefined || t.at < best.at || (t.at === best.at && t.seq < best.seq)) best = t;
    }
    return best;
  }

  private deactivate(timer: TestTimer): void {
    timer.active = false;
    if (timer.refed) this.refed--;
    const i = this.timers.indexOf(timer);
    if (i >= 0) {
      this.timers[i] = this.timers[this.timers.length - 1]!;
      this.timers.pop();
    }
  }
}

/**
 * A seeded pseudo-random source in [0, 1) (mulberry32): the same seed gives
 * the same sequence on every machine.
 *
 * @example
 * ```ts
 * const p = policy({ clock, random: seededRandom(42) }).retry();
 * ```
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random source that returns the given values in order, and throws when they run out. */
export interface ScriptedRandom {
  (): number;
  /** How many values have been drawn. */
  readonly draws: number;
}

/**
 * A random source that returns exactly the given values, in order, so a test
 * can decide each random draw; drawing past the end throws.
 *
 * @example
 * ```ts
 * const random = scriptedRandom(0.1, 0.9);
 * ```
 */
export function scriptedRandom(...values: number[]): ScriptedRandom {
  let i = 0;
  const fn = (() => {
    if (i >= values.length) throw new Error(`scriptedRandom: drew value ${i + 1} of ${values.length}`);
    return values[i++]!;
  }) as ScriptedRandom;
  Object.defineProperty(fn, 'draws', { get: () => i });
  return fn;
}
