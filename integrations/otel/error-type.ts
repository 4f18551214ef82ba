/**
 * The fallback `error.type` of the OpenTelemetry semantic conventions, for
 * a failure that names no type: a value `handleResult` judged a failure, or
 * a thrown value that is not an error object.
 */
export const OTHER_ERROR_TYPE = '_OTHER';

/**
 * The `error.type` attribute of a failed call (OpenTelemetry semantic
 * conventions): a low-cardinality name of the error's class, never its
 * message. In this order: the error's `name` when it is not plain `'Error'`
 * (`TimeoutError`, `BrokenCircuitError`, `TypeError`, `AbortError`); its
 * `code` (`ECONNRESET`, or a gRPC status number); its constructor's name
 * (a subclass that sets no `name`); `'Error'`; and {@link OTHER_ERROR_TYPE}
 * for anything else (`undefined`, a string, a plain object).
 *
 * `name` comes before the constructor because bundlers minify class names,
 * and every breakwater error sets its `name`.
 *
 * @example
 * ```ts
 * errorType(new TimeoutError('payments')); // 'TimeoutError'
 * errorType(Object.assign(new Error('reset'), { code: 'ECONNRESET' })); // 'ECONNRESET'
 * errorType('boom'); // '_OTHER'
 * ```
 */
export function errorType(error: unknown): string {
  if (typeof error !== 'object' || error === null) return OTHER_ERROR_TYPE;
  try {
    const { name, code } = error as { name?: unknown; code?: unknown };
    if (typeof name === 'string' && name !== '' && name !== 'Error') return name;
    if (typeof code === 'string' && code !== '') return code;
    if (Number.isInteger(code)) return String(code);
    const ctor = (error as { constructor?: { name?: unknown } }).constructor?.name;
    if (typeof ctor === 'string' && ctor !== '' && ctor !== 'Object' && ctor !== 'Error') return ctor;
    return name === 'Error' ? 'Error' : OTHER_ERROR_TYPE;
  } catch {
    // a getter or a proxy that throws: the error still counts, under the fallback
    return OTHER_ERROR_TYPE;
  }
}
