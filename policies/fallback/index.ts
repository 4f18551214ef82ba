export { fallback, fallbackChain, FallbackPolicy, type AnswerOf } from './fallback.js';
export type { FallbackHandler, FallbackOptions } from './options.js';
