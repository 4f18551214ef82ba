import { isObservable, type Observable, type Subscription } from 'rxjs';
import type { Clock } from './clock.js';
import { isErrorOutcome } from './outcome.js';
import type { Policy } from './policy.js';
import { RollingWindow } from './window.js';

/** A live number: a constant, a function read on demand, an object with `value()`, or an `Observable` (its latest value). */
export type SignalSource = number | (() => number) | { value(): number } | Observable<number>;

/** Whether `v` is something {@link toSignal} accepts: a finite number, a function, `{ value() }` or an Observable. */
export const isSignalSource = (v: unknown): v is SignalSource =>
  (typeof v === 'number' && Number.isFinite(v)) ||
  typeof v === 'function' ||
  isObservable(v) ||
  (typeof v === 'object' && v !== null && typeof (v as { value?: unknown }).value === 'function');

interface CpuUsage {
  user: number;
  system: number;
}

/** A signal that can be read at any time. */
export interface Signal {
  /** The current value. */
  value(): number;
  /** Stops following its source (unsubscribes an Observable). */
  dispose(): void;
}

class ObservableSignal implements Signal {
  private latest: number;
  private readonly sub: Subscription;
  constructor(source: Observable<number>, initial: number) {
    this.latest = initial;
    this.sub = source.subscribe((v) => (this.latest = v));
  }
  value(): number {
    return this.latest;
  }
  dispose(): void {
    this.sub.unsubscribe();
  }
}

/** Turns any {@link SignalSource} into a {@link Signal}; an Observable reads `initial` until it first emits. */
export function toSignal(source: SignalSource, initial = 0): Signal {
  if (typeof source === 'number') return { value: () => source, dispose: noop };
  if (typeof source === 'function') return { value: source, dispose: noop };
  if (isObservable(source)) return new ObservableSignal(source as Observable<number>, initial);
  return { value: () => source.value(), dispose: noop };
}

function noop(): void {}

/**
 * Process CPU utilisation in [0, 1], relative to one core (a Node process
 * runs its JavaScript on one), from `process.cpuUsage()` sampled on demand at
 * most once per `sampleMs` of `clock` time; between samples the last value is
 * returned. Inject a function instead in tests and simulations. In a runtime
 * with no `process.cpuUsage` (a browser, an edge worker) it reads 0.
 *
 * @example
 * ```ts
 * degrade({ when: decisionTree(), signals: { cpu: processCpu({ sampleMs: 500 }) }, to: () => CACHED });
 * ```
 */
export function processCpu(options: { sampleMs?: number; clock?: Clock } = {}): Signal {
  const proc = (globalThis as { process?: { cpuUsage?: (previous?: CpuUsage) => CpuUsage } }).process;
  // a runtime with no process CPU figure (a browser, an edge worker): no load to report
  if (typeof proc?.cpuUsage !== 'function') return { value: () => 0, dispose: noop };
  const cpuUsage = proc.cpuUsage.bind(proc);
  const sampleMs = options.sampleMs ?? 1_000;
  const now = options.clock ? () => options.clock!.now() : () => Date.now();
  let lastAt = now();
  let lastUsage = cpuUsage();
  let current = 0;
  return {
    value() {
      const t = now();
      if (t - lastAt >= sampleMs) {
        const usage = cpuUsage(lastUsage);
        current = Math.min(1, (usage.user + usage.system) / 1_000 / (t - lastAt));
        lastAt = t;
        lastUsage = cpuUsage();
      }
      return current;
    },
    dispose: noop,
  };
}

/**
 * The success ratio of a policy's calls over a rolling window (downstream
 * health), read from its `outcome` events: successes / (successes +
 * failures + timeouts). Shed calls, answered calls and the callers' own
 * cancellations say nothing of the dependency and are left out. 1 while
 * there are no calls. Dispose it to unsubscribe.
 *
 * @example
 * ```ts
 * const health = healthOf(inventoryBreaker, { windowMs: 10_000, clock });
 * ```
 */
export function healthOf(policy: Pick<Policy<unknown>, 'events$'>, options: { windowMs?: number; clock: Clock }): Signal {
  const counter = new RollingCounter(options.windowMs ?? 10_000, 10);
  const clock = options.clock;
  const sub = policy.events$.subscribe((e) => {
    if (e.type !== 'outcome') return;
    const ok = e.result === 'success';
    if (!ok && !isErrorOutcome(e.result)) return;
    counter.add(clock.now(), ok ? 1 : 0);
  });
  return {
    value() {
      const { count, sum } = counter.totals(clock.now());
      return count === 0 ? 1 : sum / count;
    },
    dispose: () => sub.unsubscribe(),
  };
}

/** Counts and sums of samples over a rolling window of `slices` slices (sums of whole numbers). */
export class RollingCounter {
  /** Per slice: samples (counter 0) and the sum of their values (counter 1). */
  private readonly window: RollingWindow;

  constructor(
    readonly windowMs: number,
    slices: number,
  ) {
    this.window = new RollingWindow(slices, windowMs / slices, 0);
  }

  /** Adds one sample of `value` (a whole number >= 0) at clock time `now`. */
  add(now: number, value = 1): void {
    this.window.add(now, 1, value, 0);
  }

  /** Count and sum of the samples in the window at `now`. */
  totals(now: number): { count: number; sum: number } {
    const w = this.window;
    w.read(now);
    const { v0: count, v1: sum } = w;
    return { count, sum };
  }
}
