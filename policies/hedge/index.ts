export { hedge, HedgePolicy } from './hedge.js';
export type { HedgeOptions, HedgeDelay } from './options.js';
export type { HedgedEvent, WonEvent } from './events.js';
