/**
 * breakwater: fault tolerance for Node.js services.
 * @packageDocumentation
 */
export { ANSWER, RUN, type AltOf, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../lib/policy.js';
export { systemClock, type Clock, type TimerHandle, type DeadlineEntry } from '../lib/clock.js';
export { executeWith, runNext, cancelledByCaller, type Scope, type AbortListener } from '../lib/context.js';
export { pipe, Pipeline } from '../lib/pipe.js';
export { policy, PolicyBuilder, type BuilderEnv } from './builder.js';
export {
  ResilienceError,
  BrokenCircuitError,
  TimeoutError,
  RateLimitedError,
  BulkheadRejectedError,
  OverloadedError,
  ConcurrencyLimitedError,
  IdempotencyInProgressError,
  IdempotencyKeyMissingError,
  IdempotencyResultNotStorableError,
  StoreUnavailableError,
  ConfigError,
  isResilienceError,
  isBrokenCircuitError,
  isTimeoutError,
  isRateLimitedError,
  isBulkheadRejectedError,
  isOverloadedError,
  isConcurrencyLimitedError,
  isIdempotencyInProgressError,
  isIdempotencyKeyMissingError,
  isIdempotencyResultNotStorableError,
  isStoreUnavailableError,
  isConfigError,
  type ConfigIssue,
  type ResilienceErrorCode,
} from '../lib/errors.js';
export { EventSource } from '../lib/events.js';
export { RollingWindow, goZeroOrigin, leapArrayOrigin, snapshotWindow, restoreWindow, type WindowSnapshot } from '../lib/window.js';
export { BreakerPolicy, BreakerPermit, IsolationHandle } from '../policies/breaker/breaker.js';
export { Permit } from '../lib/permit.js';
export type {
  PolicyEvent,
  PolicyEventTypes,
  EventBase,
  OutcomeEvent,
  OutcomeResult,
  QueuedEvent,
  LimitRejectedEvent,
} from '../lib/events.js';
export type { BreakerState, StateChangeReason, StateChangeEvent, BreakerRejectedEvent, ForcePassEvent } from '../policies/breaker/events.js';
export * from '../policies/timeout/index.js';
export { TimeoutOptionsSchema } from '../policies/timeout/schema.js';
export * from '../policies/retry/index.js';
export { RetryOptionsSchema, ExponentialOptionsSchema, TokenBudgetOptionsSchema, SloBudgetOptionsSchema } from '../policies/retry/schema.js';
export * from '../policies/fallback/index.js';
export { FallbackOptionsSchema } from '../policies/fallback/schema.js';
export * from '../policies/degrade/index.js';
export { DegradeOptionsSchema, DecisionTreeOptionsSchema } from '../policies/degrade/schema.js';
export * from '../policies/load-shedder/index.js';
export { LoadShedderOptionsSchema } from '../policies/load-shedder/schema.js';
export { healthOf, isSignalSource, processCpu, toSignal, type Signal, type SignalSource } from '../lib/signals.js';
export * from '../policies/hedge/index.js';
export { HedgeOptionsSchema } from '../policies/hedge/schema.js';
export * from '../policies/chaos/index.js';
export { ChaosOptionsSchema } from '../policies/chaos/schema.js';
export * from '../policies/cache/index.js';
export { CacheOptionsSchema, MemoryCacheStoreOptionsSchema } from '../policies/cache/schema.js';
export * from '../config/index.js';
export * from '../policies/sre-breaker/index.js';
export { SreBreakerOptionsSchema, SreBreakerShape, SreBreakerSnapshotSchema, checkSre } from '../policies/sre-breaker/schema.js';
export * from '../policies/adaptive-breaker/index.js';
export { AdaptiveBreakerOptionsSchema, AdaptiveBreakerShape, AdaptiveBreakerSnapshotSchema, checkAdaptive } from '../policies/adaptive-breaker/schema.js';
export * from '../policies/circuit-breaker/index.js';
export { CircuitBreakerOptionsSchema, CircuitBreakerVariants, CircuitBreakerSnapshotSchema } from '../policies/circuit-breaker/schema.js';
export * from '../policies/breaker-registry/index.js';
export { BreakerRegistryOptionsSchema } from '../policies/breaker-registry/schema.js';
export * from '../policies/bulkhead/index.js';
export { BulkheadOptionsSchema } from '../policies/bulkhead/schema.js';
export * from '../policies/rate-limiter/index.js';
export {
  RateLimiterOptionsSchema,
  RateAlgorithmConfigSchema,
  TokenBucketOptionsSchema,
  LeakyBucketOptionsSchema,
  SlidingWindowOptionsSchema,
} from '../policies/rate-limiter/schema.js';
export * from '../policies/adaptive-limiter/index.js';
export {
  AdaptiveLimiterOptionsSchema,
  AdaptiveLimiterShape,
  AimdOptionsSchema,
  checkLimits,
  GradientOptionsSchema,
  LimitAlgorithmSchema,
  VegasOptionsSchema,
} from '../policies/adaptive-limiter/schema.js';
export * from '../policies/idempotent/index.js';
export { IdempotentOptionsSchema, MemoryStoreOptionsSchema } from '../policies/idempotent/schema.js';
export * from '../config/strategies/index.js';
export * from '../integrations/log/index.js';
export type { WatchHandle } from '../integrations/shared/handle.js';
export type { Observed } from '../integrations/shared/observed.js';
export * from '../integrations/fetch/index.js';
