import type { EventBase } from '../../lib/events.js';

/** Cache answered from the store. */
export interface CacheHitEvent extends EventBase {
  readonly type: 'hit';
  readonly key: string;
  /** True when the entry was past its TTL but within the stale-while-revalidate window. */
  readonly stale: boolean;
}

/** Cache had nothing fresh: the call ran (or joined a run already in flight for the key). */
export interface CacheMissEvent extends EventBase {
  readonly type: 'miss';
  readonly key: string;
  /** True when this caller shared a call already in flight instead of starting one. */
  readonly coalesced: boolean;
}

/** A background stale-while-revalidate refresh settled. */
export interface RevalidatedEvent extends EventBase {
  readonly type: 'revalidated';
  readonly key: string;
  /** False when the refresh failed; the stale entry stays. */
  readonly ok: boolean;
  readonly error?: unknown;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // cache(): answered from the store.
    hit: CacheHitEvent;
    // cache(): nothing fresh, the call ran.
    miss: CacheMissEvent;
    // cache(): a background refresh settled.
    revalidated: RevalidatedEvent;
  }
}
