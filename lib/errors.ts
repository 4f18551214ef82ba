const BRAND = /* @__PURE__ */ Symbol.for('breakwater.error');

/** The literal `code` of every error breakwater throws. */
export type ResilienceErrorCode =
  | 'BREAKER_OPEN'
  | 'TIMEOUT'
  | 'RATE_LIMITED'
  | 'BULKHEAD_FULL'
  | 'OVERLOADED'
  | 'CONCURRENCY_LIMITED'
  | 'IDEMPOTENCY_IN_PROGRESS'
  | 'IDEMPOTENCY_KEY_MISSING'
  | 'IDEMPOTENCY_RESULT_NOT_STORABLE'
  | 'STORE_UNAVAILABLE'
  | 'INVALID_CONFIG';

/**
 * Base of every error breakwater throws. Check it with the guards
 * ({@link isResilienceError} and friends), which read a brand and so still
 * work when an app holds two copies of the package.
 */
export abstract class ResilienceError extends Error {
  /** What went wrong, as a literal. */
  abstract readonly code: ResilienceErrorCode;
  /** Name of the policy that threw. */
  readonly policy: string;

  constructor(message: string, policy: string, options?: { cause?: unknown }) {
    super(message, options && 'cause' in options ? { cause: options.cause } : undefined);
    this.policy = policy;
  }

  /** The brand the guards read. */
  get [BRAND](): ResilienceErrorCode {
    return this.code;
  }
}

/** A breaker shed the call (`BREAKER_OPEN`). */
export class BrokenCircuitError extends ResilienceError {
  readonly code = 'BREAKER_OPEN' as const;
  override readonly name = 'BrokenCircuitError';
  /** Milliseconds until the breaker may admit a call again, when it knows. */
  readonly retryAfterMs: number | undefined;
  constructor(policy: string, retryAfterMs?: number, message = `circuit breaker is open (${policy})`) {
    super(message, policy);
    this.retryAfterMs = retryAfterMs;
  }
}

/** A deadline passed before the call settled (`TIMEOUT`). */
export class TimeoutError extends ResilienceError {
  readonly code = 'TIMEOUT' as const;
  override readonly name = 'TimeoutError';
  constructor(policy: string, message = `operation timed out (${policy})`, options?: { cause?: unknown }) {
    super(message, policy, options);
  }
}

/** A rate limiter refused the call (`RATE_LIMITED`). */
export class RateLimitedError extends ResilienceError {
  readonly code = 'RATE_LIMITED' as const;
  override readonly name = 'RateLimitedError';
  /** Milliseconds until a call would be admitted. */
  readonly retryAfterMs: number;
  constructor(policy: string, retryAfterMs: number) {
    super(`rate limit exceeded (${policy}); retry after ${retryAfterMs} ms`, policy);
    this.retryAfterMs = retryAfterMs;
  }
}

/** A bulkhead had no slot and no queue room (`BULKHEAD_FULL`). */
export class BulkheadRejectedError extends ResilienceError {
  readonly code = 'BULKHEAD_FULL' as const;
  override readonly name = 'BulkheadRejectedError';
  constructor(policy: string, message = `bulkhead is full (${policy})`) {
    super(message, policy);
  }
}

/** A load shedder refused the call while the process is overloaded (`OVERLOADED`). */
export class OverloadedError extends ResilienceError {
  readonly code = 'OVERLOADED' as const;
  override readonly name = 'OverloadedError';
  constructor(policy: string, message = `service overloaded, call shed (${policy})`) {
    super(message, policy);
  }
}

/**
 * An adaptive concurrency limiter had as many calls in flight as its current
 * limit and shed this one at once (`CONCURRENCY_LIMITED`).
 */
export class ConcurrencyLimitedError extends ResilienceError {
  readonly code = 'CONCURRENCY_LIMITED' as const;
  override readonly name = 'ConcurrencyLimitedError';
  /** The limit the call was refused at. */
  readonly limit: number;
  /** Milliseconds in which a slot is likely to free: the recent mean response time, when the limiter has measured one. */
  readonly retryAfterMs: number | undefined;
  constructor(policy: string, limit: number, retryAfterMs?: number) {
    super(`concurrency limit of ${limit} reached (${policy})`, policy);
    this.limit = limit;
    this.retryAfterMs = retryAfterMs;
  }
}

/** Another caller holds the idempotency key and `onInProgress` is `'reject'` (`IDEMPOTENCY_IN_PROGRESS`). */
export class IdempotencyInProgressError extends ResilienceError {
  readonly code = 'IDEMPOTENCY_IN_PROGRESS' as const;
  override readonly name = 'IdempotencyInProgressError';
  /** The key in progress. */
  readonly key: string;
  constructor(policy: string, key: string) {
    super(`operation for key "${key}" is already in progress (${policy})`, policy);
    this.key = key;
  }
}

/** The idempotent executor found no key (`IDEMPOTENCY_KEY_MISSING`). */
export class IdempotencyKeyMissingError extends ResilienceError {
  readonly code = 'IDEMPOTENCY_KEY_MISSING' as const;
  override readonly name = 'IdempotencyKeyMissingError';
  constructor(policy: string) {
    super(`no idempotency key: pass { key } to execute or a key(ctx) option (${policy})`, policy);
  }
}

/**
 * The key's operation already ran, but its result does not survive the
 * codec's round trip, so there is no result to serve; it is not run again
 * until the record expires after `ttlMs` (`IDEMPOTENCY_RESULT_NOT_STORABLE`).
 */
export class IdempotencyResultNotStorableError extends ResilienceError {
  readonly code = 'IDEMPOTENCY_RESULT_NOT_STORABLE' as const;
  override readonly name = 'IdempotencyResultNotStorableError';
  /** The key whose operation ran. */
  readonly key: string;
  constructor(policy: string, key: string) {
    super(`operation for key "${key}" already ran, but its result could not be stored: it is not run again while the record is kept (${policy})`, policy);
    this.key = key;
  }
}

/** A store (Redis or another) could not be reached in time (`STORE_UNAVAILABLE`). */
export class StoreUnavailableError extends ResilienceError {
  readonly code = 'STORE_UNAVAILABLE' as const;
  override readonly name = 'StoreUnavailableError';
  constructor(policy: string, message: string, options?: { cause?: unknown }) {
    super(message, policy, options);
  }
}

/** One problem found in options or config: where, and what rule it breaks. */
export interface ConfigIssue {
  /** Where, as `policies[1].maxAttempts`; empty for the whole value. */
  readonly path: string;
  /** The rule broken, in words. */
  readonly message: string;
}

/** Options or config broke a rule (`INVALID_CONFIG`); `issues` lists every problem at once. */
export class ConfigError extends ResilienceError {
  readonly code = 'INVALID_CONFIG' as const;
  override readonly name = 'ConfigError';
  /** Every problem found, each with its path. */
  readonly issues: readonly ConfigIssue[];
  constructor(policy: string, issues: readonly ConfigIssue[]) {
    super(`invalid ${policy} options: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`, policy);
    this.issues = issues;
  }
}

function hasCode(value: unknown, code: ResilienceErrorCode): boolean {
  return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === code;
}

/** True for any error breakwater threw, from any copy of the package. */
export function isResilienceError(value: unknown): value is ResilienceError {
  return typeof value === 'object' && value !== null && typeof (value as { [BRAND]?: unknown })[BRAND] === 'string';
}
/** True for a {@link BrokenCircuitError}. */
export const isBrokenCircuitError = (value: unknown): value is BrokenCircuitError => hasCode(value, 'BREAKER_OPEN');
/** True for a {@link TimeoutError}. */
export const isTimeoutError = (value: unknown): value is TimeoutError => hasCode(value, 'TIMEOUT');
/** True for a {@link RateLimitedError}. */
export const isRateLimitedError = (value: unknown): value is RateLimitedError => hasCode(value, 'RATE_LIMITED');
/** True for a {@link BulkheadRejectedError}. */
export const isBulkheadRejectedError = (value: unknown): value is BulkheadRejectedError => hasCode(value, 'BULKHEAD_FULL');
/** True for an {@link OverloadedError}. */
export const isOverloadedError = (value: unknown): value is OverloadedError => hasCode(value, 'OVERLOADED');
/** True for a {@link ConcurrencyLimitedError}. */
export const isConcurrencyLimitedError = (value: unknown): value is ConcurrencyLimitedError => hasCode(value, 'CONCURRENCY_LIMITED');
/** True for an {@link IdempotencyInProgressError}. */
export const isIdempotencyInProgressError = (value: unknown): value is IdempotencyInProgressError =>
  hasCode(value, 'IDEMPOTENCY_IN_PROGRESS');
/** True for an {@link IdempotencyKeyMissingError}. */
export const isIdempotencyKeyMissingError = (value: unknown): value is IdempotencyKeyMissingError =>
  hasCode(value, 'IDEMPOTENCY_KEY_MISSING');
/** True for an {@link IdempotencyResultNotStorableError}. */
export const isIdempotencyResultNotStorableError = (value: unknown): value is IdempotencyResultNotStorableError =>
  hasCode(value, 'IDEMPOTENCY_RESULT_NOT_STORABLE');
/** True for a {@link StoreUnavailableError}. */
export const isStoreUnavailableError = (value: unknown): value is StoreUnavailableError => hasCode(value, 'STORE_UNAVAILABLE');
/** True for a {@link ConfigError}. */
export const isConfigError = (value: unknown): value is ConfigError => hasCode(value, 'INVALID_CONFIG');

/**
 * True for breakwater's own load-shedding rejections (open breaker, rate
 * limit, full bulkhead, overload, concurrency limit, idempotency in progress, a key whose run
 * left no storable result): never retried, never a success or failure for a
 * breaker (a shed call says nothing about the dependency); fallbacks do answer them.
 */
export function isShedRejection(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const code = (value as { [BRAND]?: unknown })[BRAND];
  return (
    code === 'BREAKER_OPEN' ||
    code === 'RATE_LIMITED' ||
    code === 'BULKHEAD_FULL' ||
    code === 'OVERLOADED' ||
    code === 'CONCURRENCY_LIMITED' ||
    code === 'IDEMPOTENCY_IN_PROGRESS' ||
    code === 'IDEMPOTENCY_RESULT_NOT_STORABLE'
  );
}
