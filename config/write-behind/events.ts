import type { EventBase } from '../../lib/events.js';

/** A write-behind writer queued a write it could not deliver now. */
export interface WriteQueuedEvent extends EventBase {
  readonly type: 'writeQueued';
  readonly id: string;
  readonly key: string;
}

/** A write-behind writer's replayer delivered a queued write. */
export interface ReplayedEvent extends EventBase {
  readonly type: 'replayed';
  readonly id: string;
  readonly key: string;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // writeBehind(): a write was queued.
    writeQueued: WriteQueuedEvent;
    // writeBehind(): a queued write was delivered.
    replayed: ReplayedEvent;
  }
}
