export { hedge, HedgePolicy } from './hedge.js';
export { HedgeOptionsSchema, type HedgeOptions, type HedgeDelay } from './options.js';
export type { HedgedEvent, WonEvent } from './events.js';
