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
export { RollingWindow, snapshotWindow, restoreWindow, type WindowSnapshot } from '../lib/window.js';
export { healthReport, type HealthReport } from '../policies/breaker/health.js';
export { BreakerPolicy, BreakerPermit, IsolationHandle, BREAKER_CONTROLS, type BreakerControl, type BreakerHealth, type BreakerTransition } from '../policies/breaker/breaker.js';
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
export type { BreakerState, StateChangeReason, StateChangeEvent, BreakerRejectedEvent, ForcePassEvent, ControlChangedEvent } from '../policies/breaker/events.js';
export * from '../policies/timeout/index.js';
export * from '../policies/retry/index.js';
export * from '../policies/fallback/index.js';
export * from '../policies/degrade/index.js';
export * from '../policies/load-shedder/index.js';
export { criticalityOf, isCriticality, CRITICALITY_META, CRITICALITIES, type Criticality } from '../lib/criticality.js';
export type { CriticalityReserve } from '../lib/shedding.js';
export { healthOf, isSignalSource, processCpu, toSignal, type Signal, type SignalSource } from '../lib/signals.js';
export * from '../policies/hedge/index.js';
export * from '../policies/chaos/index.js';
export * from '../policies/cache/index.js';
export * from '../policies/sre-breaker/index.js';
export * from '../policies/adaptive-breaker/index.js';
export * from '../policies/circuit-breaker/index.js';
export * from '../policies/breaker-registry/index.js';
export * from '../policies/bulkhead/index.js';
export * from '../policies/rate-limiter/index.js';
export * from '../policies/adaptive-limiter/index.js';
export * from '../policies/idempotent/index.js';
export * from '../policies/outlier/index.js';
export * from '../config/strategies/index.js';
export { ConfigPipeline } from '../config/pipeline.js';
export type { Handlers, BuildEnv } from '../config/resolve.js';
export type { ConfigAppliedEvent, ConfigRejectedEvent } from '../config/events.js';
export * from '../integrations/log/index.js';
export type { WatchHandle } from '../integrations/shared/handle.js';
export type { Observed } from '../integrations/shared/observed.js';
export * from '../integrations/fetch/index.js';
