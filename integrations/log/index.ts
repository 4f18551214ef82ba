export { logEvents, type EventLogger } from './log-events.js';
export type { LogEventsOptions } from './options.js';
export type { LogLevel } from './lines.js';
