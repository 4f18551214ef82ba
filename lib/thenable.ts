/**
 * True for a thenable: an object or a function with a `then` method, what
 * `await` and `Promise.resolve` adopt (Promises/A+ §2.3.3). An operation may
 * answer with any thenable, not only a native promise.
 *
 * @example
 * ```ts
 * const value = op(ctx);
 * if (!isThenable(value)) return done(value); // settled synchronously: no promise made
 * ```
 */
export function isThenable<T>(value: unknown): value is PromiseLike<T> {
  return value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as PromiseLike<T>).then === 'function';
}
