/**
 * An opaque timer handle. Node's `Timeout` and `TestClock`'s timers also have
 * `ref()`/`unref()`, which the shared deadline timer uses when present.
 */
export type TimerHandle = unknown;

/**
 * Time as every policy sees it: epoch milliseconds and timers. Inject
 * `TestClock` from `breakwater/testing` to run policies in virtual time.
 */
export interface Clock {
  /** Current time in epoch milliseconds. */
  now(): number;
  /** Calls `fn` once, `ms` milliseconds from now. */
  setTimeout(fn: () => void, ms: number): TimerHandle;
  /** Cancels a timer made by this clock's `setTimeout`; cancelling twice is harmless. */
  clearTimeout(handle: TimerHandle): void;
}

/**
 * The wall clock: `Date.now()` and the global timers, each looked up when
 * called, so fake timers installed later (vitest's, jest's, sinon's,
 * node:test's) move it. The default of every policy.
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as Parameters<typeof clearTimeout>[0]),
};

/** True for a {@link Clock}: an object with `now`, `setTimeout` and `clearTimeout`. */
export function isClock(value: unknown): value is Clock {
  const c = value as Clock;
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof c.now === 'function' &&
    typeof c.setTimeout === 'function' &&
    typeof c.clearTimeout === 'function'
  );
}

/** An entry of the shared deadline timer. */
export interface DeadlineEntry {
  /** Clock time at which `expire` runs. */
  readonly at: number;
  /** Position in the heap; -1 when not scheduled. */
  heapIndex: number;
  /** Called once when `at` has come. */
  expire(): void;
}

type Refable = { ref?(): unknown; unref?(): unknown };

/**
 * One real timer for every pending deadline of a clock: a binary min-heap of
 * entries with the timer armed at the earliest. When the heap empties the
 * timer is not cleared (clearing and re-arming costs ~400 ns per call) but
 * unref'd: it no longer holds the process or counts as pending, and it
 * disarms itself when it fires with nothing due.
 */
export class DeadlineTimer {
  private readonly heap: DeadlineEntry[] = [];
  private timer: TimerHandle = undefined;
  private timerAt = Infinity;
  private idle = false;
  /** For the system clock: the global timer functions the timer was armed with (fake timers replace them). */
  private armedWith: unknown = undefined;
  private armedClear: ((handle: never) => void) | undefined = undefined;
  private readonly fire = (): void => this.onFire();

  constructor(private readonly clock: Clock) {}

  /** Schedules `entry` to expire at `entry.at`. */
  add(entry: DeadlineEntry): void {
    const heap = this.heap;
    entry.heapIndex = heap.length;
    heap.push(entry);
    this.up(entry.heapIndex);
    // A timer armed before fake timers were installed (or after they were removed) would never fire in their time.
    if (entry.at < this.timerAt || (this.armedWith !== undefined && this.armedWith !== globalThis.setTimeout)) this.arm(heap[0]!.at);
    else if (this.idle) {
      this.idle = false;
      (this.timer as Refable).ref?.();
    }
  }

  /** Unschedules `entry`; harmless when it already expired or was removed. */
  remove(entry: DeadlineEntry): void {
    const i = entry.heapIndex;
    if (i < 0) return;
    entry.heapIndex = -1;
    const heap = this.heap;
    const last = heap.pop()!;
    if (i < heap.length) {
      heap[i] = last;
      last.heapIndex = i;
      this.down(i);
      this.up(last.heapIndex);
    }
    if (heap.length === 0 && this.timer !== undefined && !this.idle) {
      this.idle = true;
      (this.timer as Refable).unref?.();
    }
  }

  /** How many deadlines are pending. */
  get size(): number {
    return this.heap.length;
  }

  private arm(at: number): void {
    if (this.timer !== undefined) {
      if (this.armedClear !== undefined) this.armedClear(this.timer as never);
      else this.clock.clearTimeout(this.timer);
    }
    this.idle = false;
    this.timerAt = at;
    this.timer = this.clock.setTimeout(this.fire, Math.max(0, at - this.clock.now()));
    if (this.clock === systemClock) {
      this.armedWith = globalThis.setTimeout;
      this.armedClear = globalThis.clearTimeout as (handle: never) => void;
    }
  }

  private onFire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    this.idle = false;
    const heap = this.heap;
    const now = this.clock.now();
    while (heap.length > 0 && heap[0]!.at <= now) {
      const entry = heap[0]!;
      this.remove(entry);
      entry.expire();
    }
    if (heap.length > 0 && this.timer === undefined) this.arm(heap[0]!.at);
  }

  private up(i: number): void {
    const heap = this.heap;
    const entry = heap[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p]!;
      if (parent.at <= entry.at) break;
      heap[i] = parent;
      parent.heapIndex = i;
      i = p;
    }
    heap[i] = entry;
    entry.heapIndex = i;
  }

  private down(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const entry = heap[i]!;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && heap[c + 1]!.at < heap[c]!.at) c++;
      const child = heap[c]!;
      if (child.at >= entry.at) break;
      heap[i] = child;
      child.heapIndex = i;
      i = c;
    }
    heap[i] = entry;
    entry.heapIndex = i;
  }
}

const timers = new WeakMap<Clock, DeadlineTimer>();

/** The shared deadline timer of `clock` (one per clock object). */
export function deadlineTimerOf(clock: Clock): DeadlineTimer {
  let t = timers.get(clock);
  if (t === undefined) {
    t = new DeadlineTimer(clock);
    timers.set(clock, t);
  }
  return t;
}
