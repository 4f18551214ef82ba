export { loadShedder, LoadShedder, ShedderPermit } from './load-shedder.js';
export { LoadShedderOptionsSchema, type LoadShedderOptions } from './options.js';
