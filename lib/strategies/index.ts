export { strategies, type StrategyEnv, type StrategyOptions } from './strategies.js';
export { StrategyConfigSchema, strategySchemas, type StrategyConfig, type StrategyName } from './schemas.js';
