export { chaos, ChaosPolicy } from './chaos.js';
export type { ChaosOptions, ChaosResult, ChaosFault } from './options.js';
export type { InjectedEvent } from './events.js';
