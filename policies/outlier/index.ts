export { outlierDetection, OutlierDetectionPolicy, type HostStatus } from './outlier.js';
export type { OutlierDetectionOptions } from './options.js';
export type { HostEjectedEvent, EjectionSkippedEvent, HostReturnedEvent } from './events.js';
