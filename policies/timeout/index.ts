export { timeout, TimeoutPolicy } from './timeout.js';
export type { TimeoutOptions } from './options.js';
export type { TimeoutEvent } from './events.js';
