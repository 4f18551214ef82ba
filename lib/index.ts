/**
 * breakwater: fault tolerance for Node.js services.
 * @packageDocumentation
 */
export { ANSWER, RUN, type AltOf, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from './policy.js';
export { systemClock, type Clock, type TimerHandle, type DeadlineEntry } from './clock.js';
export { executeWith, runNext, cancelledByCaller, type Scope, type AbortListener } from './context.js';
export { pipe, Pipeline } from './pipe.js';
export { policy, PolicyBuilder, type BuilderEnv } from './builder.js';
export {
  ResilienceError,
  BrokenCircuitError,
  TimeoutError,
  RateLimitedError,
  BulkheadRejectedError,
  IdempotencyInProgressError,
  IdempotencyKeyMissingError,
  StoreUnavailableError,
  ConfigError,
  isResilienceError,
  isBrokenCircuitError,
  isTimeoutError,
  isRateLimitedError,
  isBulkheadRejectedError,
  isIdempotencyInProgressError,
  isIdempotencyKeyMissingError,
  isStoreUnavailableError,
  isConfigError,
  type ConfigIssue,
  type ResilienceErrorCode,
} from './errors.js';
export { EventSource } from './events.js';
export type {
  PolicyEvent,
  EventBase,
  OutcomeEvent,
  OutcomeResult,
  TimeoutEvent,
  RetryEvent,
  GiveUpEvent,
  SuccessEvent,
  FallbackEvent,
  FallbackFailedEvent,
} from './events.js';
export * from '../policies/timeout/index.js';
export * from '../policies/retry/index.js';
export * from '../policies/fallback/index.js';
export * from '../integrations/log/index.js';
export type { WatchHandle } from '../integrations/shared/handle.js';
export type { Observed } from '../integrations/shared/observed.js';
export * from '../integrations/fetch/index.js';
