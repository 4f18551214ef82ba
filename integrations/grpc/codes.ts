import { status } from '@grpc/grpc-js';
import { isConcurrencyLimitedError } from '../../lib/errors.js';

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

/** The details of the UNAVAILABLE status a call shed by a concurrency limit gets (Netflix concurrency-limits' server interceptor says the same). */
export const LIMIT_DETAILS = 'concurrency limit reached';

/** The details a shed call's UNAVAILABLE status carries: {@link LIMIT_DETAILS} for a concurrency limit, else {@link SHED_DETAILS}. */
export function shedDetails(error: unknown): string {
  return isConcurrencyLimitedError(error) ? LIMIT_DETAILS : SHED_DETAILS;
}
