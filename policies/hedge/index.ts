export { hedge, HedgePolicy } from './hedge.js';
export type { HedgeOptions, HedgeDelay } from './options.js';
