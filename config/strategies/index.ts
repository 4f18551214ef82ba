export { strategies, type StrategyEnv, type StrategyOptions } from './strategies.js';
export type { StrategyConfig, StrategyName } from './schemas.js';
export { writeBehind, WriteBehind, type Deliver, type WriteBehindOptions, type WriteResult } from '../write-behind/write-behind.js';
export { memoryWriteQueue, isWriteQueue, type QueuedWrite, type WriteQueue } from '../write-behind/queue.js';
export type { WriteQueuedEvent, ReplayedEvent } from '../write-behind/events.js';
