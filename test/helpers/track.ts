import type { Clock } from '../../lib/clock.js';

/** How a tracked promise settled, and when on the clock. */
export type Settled<T> = { ok: true; value: T; at: number } | { ok: false; error: unknown; at: number };

/** Something that settles later, observed from the start so a rejection is never unhandled. */
export interface Tracked<T> {
  /** Resolves (never rejects) with how the promise settled. */
  readonly settled: Promise<Settled<T>>;
  /** `undefined` until the promise settles. */
  readonly now: Settled<T> | undefined;
}

/** Attaches handlers to `p` at once and records the clock time it settles at. */
export function track<T>(p: Promise<T>, clock: Clock): Tracked<T> {
  let now: Settled<T> | undefined;
  const settled = p.then(
    (value) => (now = { ok: true, value, at: clock.now() }),
    (error: unknown) => (now = { ok: false, error, at: clock.now() }),
  );
  return {
    settled,
    get now() {
      return now;
    },
  };
}

/** The error `p` rejected with; fails if it resolved. */
export async function rejection(t: Tracked<unknown>): Promise<unknown> {
  const s = await t.settled;
  if (s.ok) throw new Error(`expected a rejection, got ${String(s.value)}`);
  return s.error;
}

/** Resolves `value` after `ms` on `clock`, rejecting with the signal's reason if aborted first (an operation that honours `ctx.signal`). */
export function after<T>(clock: Clock, ms: number, value: T, ctx: { readonly signal: AbortSignal }): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const h = clock.setTimeout(() => {
      ctx.signal.removeEventListener('abort', onAbort);
      resolve(value);
    }, ms);
    const onAbort = (): void => {
      clock.clearTimeout(h);
      reject(ctx.signal.reason);
    };
    ctx.signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** A promise with its resolve and reject, to settle from the test. */
export function deferred<T = void>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
