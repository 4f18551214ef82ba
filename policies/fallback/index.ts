export { fallback, fallbackChain, FallbackPolicy, type AnswerOf } from './fallback.js';
export type { FallbackHandler, FallbackOptions } from './options.js';
export type { FallbackEvent, FallbackFailedEvent } from './events.js';
