import type { Clock } from './clock.js';

/**
 * One settlement per call across breakwater's own layers. The innermost
 * layer that makes a promise of its own (a timeout call) offers it with
 * {@link offer}; each breakwater layer around it that would otherwise
 * attach `.then` to that promise and return a new one registers a
 * {@link Step} on it instead and returns the same promise. When the call
 * settles, the steps run in order, innermost first, and the promise
 * settles once, with what the outermost step gave. A layer that finds
 * nothing offered (a user policy between, which calls the public
 * `runNext`, seals the offer) attaches `.then` as before.
 */

/**
 * What a layer does with the outcome of the layers inside it: return the
 * outcome to pass outward (a value), throw (an error), or return a
 * `Promise` of it (the steps outside wait for it).
 */
export abstract class Step {
  /** The next step outward. */
  outer: Step | undefined = undefined;
  /** The inner layers answered `value`. */
  abstract onValue(value: unknown): unknown;
  /** The inner layers threw `error`. */
  abstract onError(error: unknown): unknown;
}

// The time the settlement being walked read, on which clock (one walk at a time: runSteps sets them as it starts).
let endAt = NaN;
let endClock: Clock | undefined;

/** The clock time the call being settled settled at, on `clock`: read once per settlement and clock, for every layer that reports it. */
export function settledAt(clock: Clock): number {
  if (endClock === clock) return endAt;
  endClock = clock;
  return (endAt = clock.now());
}

/** The settling time on `clock` when a layer has read it already, else NaN (reads nothing). */
export function readSettledAt(clock: Clock): number {
  return endClock === clock ? endAt : NaN;
}

/** Adopts a time a layer read on `clock` as the call settled (a breaker's record), so the layers outside read none. */
export function shareSettledAt(clock: Clock, at: number): void {
  if (at === at) {
    endClock = clock;
    endAt = at;
  }
}

/** A promise of a call that takes steps until it settles. */
export interface Settling {
  readonly promise: Promise<unknown>;
  /** Registers `step` outermost; false when the call has settled already (then attach `.then`). */
  push(step: Step): boolean;
}

let offered: Settling | undefined;

/** Offers `s`: the layers around the one that made `s.promise` may register steps on it. */
export function offer(s: Settling): void {
  offered = s;
}

/** Withdraws the offer of `s` if it is still on offer: a settled call must not be kept alive by it. */
export function withdraw(s: Settling): void {
  if (offered === s) offered = undefined;
}

/** Withdraws any offer: what comes back from here on passed through a layer that is not breakwater's own. */
export function seal(): void {
  offered = undefined;
}

/** The call `promise` belongs to when it is on offer: register a step on it with `push` instead of attaching `.then`. */
export function settlingOf(promise: Promise<unknown>): Settling | undefined {
  const s = offered;
  return s !== undefined && s.promise === promise ? s : undefined;
}

/**
 * Runs `step` and every step outward from it on the outcome (`thrown`,
 * `v`), then settles with `resolve` or `reject`. A step that returns a
 * promise suspends the walk until it settles. `at` is a time already read
 * on `clock` at the settlement (NaN: none).
 */
export function runSteps(
  step: Step | undefined,
  thrown: boolean,
  v: unknown,
  resolve: (value: never) => void,
  reject: (error: unknown) => void,
  clock: Clock | undefined,
  at: number,
): void {
  // No walk runs inside another: a walk starts from a promise reaction or a microtask, never from a step.
  endAt = at;
  endClock = at === at ? clock : undefined;
  for (; step !== undefined; step = step.outer) {
    let r: unknown;
    try {
      r = thrown ? step.onError(v) : step.onValue(v);
    } catch (error) {
      thrown = true;
      v = error;
      continue;
    }
    if (r instanceof Promise) {
      const rest = step.outer;
      // The steps after the wait read their own time.
      r.then(
        (value: unknown) => runSteps(rest, false, value, resolve, reject, undefined, NaN),
        (error: unknown) => runSteps(rest, true, error, resolve, reject, undefined, NaN),
      );
      return;
    }
    thrown = false;
    v = r;
  }
  if (thrown) reject(v);
  else resolve(v as never);
}
