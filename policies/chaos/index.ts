export { chaos, ChaosPolicy } from './chaos.js';
export { ChaosOptionsSchema, type ChaosOptions, type ChaosResult, type ChaosFault } from './options.js';
export type { InjectedEvent } from './events.js';
