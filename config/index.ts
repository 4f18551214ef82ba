export { fromConfig, ConfigPipeline, type FromConfigResult } from './from-config.js';
export { PipelineConfigSchema, PoliciesConfigSchema, type PipelineConfig, type PolicyConfig } from './schema.js';
export { PolicyConfigSchema, entrySchemas, type EntryConfig } from './entries.js';
export type { Handlers, BuildEnv } from './resolve.js';
export type { ConfigAnswer, EntryAnswer, StrategyAnswer } from './types.js';
export type { ConfigAppliedEvent, ConfigRejectedEvent } from './events.js';
