export { timeout, TimeoutPolicy } from './timeout.js';
export type { TimeoutOptions } from './options.js';
