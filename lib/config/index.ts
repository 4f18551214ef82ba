export { fromConfig, ConfigPipeline } from './from-config.js';
export { PipelineConfigSchema, PoliciesConfigSchema, type PipelineConfig, type PolicyConfig } from './schema.js';
export { PolicyConfigSchema, entrySchemas } from './entries.js';
export type { Handlers, BuildEnv } from './resolve.js';
export type { ConfigAnswer } from './types.js';
