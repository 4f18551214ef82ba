import type { Clock, TimerHandle } from '../lib/clock.js';

/** A timer of {@link LabClock}; cleared timers stay in the heap with `fn` unset until popped. */
interface LabTimer {
  readonly at: number;
  readonly seq: number;
  fn: (() => void) | undefined;
}

/** Drains since the last full event-loop turn. */
let ticks = 0;

/**
 * Lets every promise callback that is ready run: resolves once the microtask queue is empty. Node runs
 * `process.nextTick` callbacks only when the microtask queue has drained, so a tick does what a full event-loop
 * turn (`setImmediate`) does at a fraction of its cost (no poll of the OS), as long as the simulation schedules
 * nothing outside its clock. Every 1024th drain is a full turn all the same: Node reports unhandled rejections
 * only when no tick is pending, and would keep every rejected promise until then.
 */
function drain(): Promise<void> {
  return new Promise((resolve) => ((++ticks & 1023) === 0 ? setImmediate(resolve) : process.nextTick(resolve)));
}

/**
 * The lab's event loop: a {@link Clock} in virtual time with a binary heap of
 * timers, fast enough for millions of them. `run(until)` fires timers in
 * order of time (then of creation). Promise callbacks are drained (until
 * none is left: a `process.nextTick`) whenever time is about to move past the current
 * `tickMs` slot, so everything a batch of timers set off settles before a
 * later slot starts; within one slot timers fire back to back, as Node fires
 * the timers of one millisecond. Deterministic: nothing depends on wall time,
 * as long as one simulation runs per thread at a time.
 *
 * `TestClock` (breakwater/testing) does the same with a setImmediate after
 * every timer and a linear scan, which is exact but about 50× slower here.
 */
export class LabClock implements Clock {
  private time: number;
  private seq = 0;
  private readonly heap: LabTimer[] = [];
  /** Timers fired so far (for the speed figure). */
  fired = 0;

  /**
   * @param startEpochMs the initial time.
   * @param tickMs the slot within which timers fire without draining promise callbacks between them. @defaultValue 1
   */
  constructor(startEpochMs = 0, private readonly tickMs = 1) {
    this.time = startEpochMs;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: LabTimer = { at: this.time + (ms > 0 ? ms : 0), seq: this.seq++, fn };
    this.push(timer);
    return timer;
  }

  clearTimeout(handle: TimerHandle): void {
    if (handle !== null && typeof handle === 'object' && 'fn' in handle) (handle as LabTimer).fn = undefined;
  }

  /** Fires every timer due up to `until` (epoch ms), then sets the time to `until`. */
  async run(until: number): Promise<void> {
    const heap = this.heap;
    await drain();
    let slotEnd = this.time + this.tickMs;
    while (heap.length > 0) {
      const top = heap[0]!;
      if (top.at > until) break;
      if (top.at >= slotEnd) {
        await drain();
        // a drained callback may have armed an earlier timer: look again
        if (heap[0] !== top) continue;
        slotEnd = top.at + this.tickMs;
      }
      this.pop();
      const fn = top.fn;
      if (fn === undefined) continue;
      top.fn = undefined;
      if (top.at > this.time) this.time = top.at;
      this.fired++;
      fn();
    }
    await drain();
    if (until > this.time) this.time = until;
  }

  private push(timer: LabTimer): void {
    const heap = this.heap;
    let i = heap.length;
    heap.push(timer);
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = heap[p]!;
      if (parent.at < timer.at || (parent.at === timer.at && parent.seq < timer.seq)) break;
      heap[i] = parent;
      i = p;
    }
    heap[i] = timer;
  }

  private pop(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    const n = heap.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      const r = c + 1;
      if (r < n && (heap[r]!.at < heap[c]!.at || (heap[r]!.at === heap[c]!.at && heap[r]!.seq < heap[c]!.seq))) c = r;
      const child = heap[c]!;
      if (last.at < child.at || (last.at === child.at && last.seq < child.seq)) break;
      heap[i] = child;
      i = c;
    }
    heap[i] = last;
  }
}
