/**
 * `breakwater/config`: pipelines built from data, and the zod schemas that
 * check it. `fromConfig` and {@link ConfigPipeline} (hot reload),
 * `PipelineConfigSchema` (whose JSON Schema is `breakwater/schema.json`), the
 * strategies as data, and every policy's options schema. The policies check
 * their options with plain rules that say the same (a test keeps the two
 * equal); only this entry loads zod.
 * @packageDocumentation
 */
export { fromConfig, type FromConfigResult } from '../config/from-config.js';
export { ConfigPipeline } from '../config/pipeline.js';
export { PipelineConfigSchema, PoliciesConfigSchema, type PipelineConfig, type PolicyConfig } from '../config/schema.js';
export { PolicyConfigSchema, entrySchemas, type EntryConfig } from '../config/entries.js';
export type { Handlers, BuildEnv } from '../config/resolve.js';
export type { ConfigAnswer, EntryAnswer, StrategyAnswer } from '../config/types.js';
export type { ConfigAppliedEvent, ConfigRejectedEvent } from '../config/events.js';
export { StrategyConfigSchema, strategySchemas, WriteBehindConfigSchema, type StrategyConfig, type StrategyName } from '../config/strategies/schemas.js';
export { WriteBehindOptionsSchema } from '../config/write-behind/schema.js';
export { LogEventsOptionsSchema } from '../integrations/log/schema.js';
export { ConfigError, isConfigError, type ConfigIssue } from '../lib/errors.js';
export { toConfigIssues } from '../lib/schemas.js';
export { TimeoutOptionsSchema } from '../policies/timeout/schema.js';
export { RetryOptionsSchema, ExponentialOptionsSchema, TokenBudgetOptionsSchema, SloBudgetOptionsSchema } from '../policies/retry/schema.js';
export { FallbackOptionsSchema } from '../policies/fallback/schema.js';
export { DegradeOptionsSchema, DecisionTreeOptionsSchema } from '../policies/degrade/schema.js';
export { LoadShedderOptionsSchema } from '../policies/load-shedder/schema.js';
export { HedgeOptionsSchema } from '../policies/hedge/schema.js';
export { ChaosOptionsSchema } from '../policies/chaos/schema.js';
export { CacheOptionsSchema, MemoryCacheStoreOptionsSchema } from '../policies/cache/schema.js';
export { SreBreakerOptionsSchema, SreBreakerSnapshotSchema } from '../policies/sre-breaker/schema.js';
export { AdaptiveBreakerOptionsSchema, AdaptiveBreakerSnapshotSchema } from '../policies/adaptive-breaker/schema.js';
export { CircuitBreakerOptionsSchema, CircuitBreakerSnapshotSchema, CountWindowSnapshotSchema } from '../policies/circuit-breaker/schema.js';
export { BreakerRegistryOptionsSchema } from '../policies/breaker-registry/schema.js';
export { BulkheadOptionsSchema, KeyedBulkheadOptionsSchema } from '../policies/bulkhead/schema.js';
export {
  RateLimiterOptionsSchema,
  RateAlgorithmConfigSchema,
  TokenBucketOptionsSchema,
  LeakyBucketOptionsSchema,
  SlidingWindowOptionsSchema,
  KeyedRateOptionsSchema,
} from '../policies/rate-limiter/schema.js';
export {
  AdaptiveLimiterOptionsSchema,
  AimdOptionsSchema,
  GradientOptionsSchema,
  LimitAlgorithmSchema,
  VegasOptionsSchema,
} from '../policies/adaptive-limiter/schema.js';
export { IdempotentOptionsSchema, MemoryStoreOptionsSchema } from '../policies/idempotent/schema.js';
