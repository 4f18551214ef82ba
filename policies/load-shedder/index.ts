export { loadShedder, LoadShedder, ShedderPermit } from './load-shedder.js';
export type { LoadShedderOptions } from './options.js';
