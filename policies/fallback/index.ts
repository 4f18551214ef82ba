export { fallback, fallbackChain, FallbackPolicy, type AnswerOf } from './fallback.js';
export { FallbackOptionsSchema, type FallbackHandler, type FallbackOptions } from './options.js';
export type { FallbackEvent, FallbackFailedEvent } from './events.js';
