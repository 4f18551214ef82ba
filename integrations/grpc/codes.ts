import { status } from '@grpc/grpc-js';

/**
 * The status codes that count as failures for a breaker (go-zero's
 * `codeutil.Acceptable`, inverted): DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED,
 * UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS. Every other code (OK,
 * NOT_FOUND, INVALID_ARGUMENT, ... and UNKNOWN, what a non-gRPC error becomes)
 * is the caller's problem, not the dependency's, and counts as a success.
 */
export const FAILURE_CODES: ReadonlySet<number> = new Set([
  status.DEADLINE_EXCEEDED,
  status.RESOURCE_EXHAUSTED,
  status.UNIMPLEMENTED,
  status.INTERNAL,
  status.UNAVAILABLE,
  status.DATA_LOSS,
]);

/**
 * True when `code` counts as a failure (see {@link FAILURE_CODES}).
 * @example
 * ```ts
 * serverInterceptor({ source, isFailure: (code) => isFailureCode(code) || code === status.ABORTED });
 * ```
 */
export function isFailureCode(code: number): boolean {
  return FAILURE_CODES.has(code);
}

/** The details of the UNAVAILABLE status a shed call gets (go-zero's `breaker.ErrServiceUnavailable`). */
export const SHED_DETAILS = 'circuit breaker is open';
