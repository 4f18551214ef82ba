import type { EventBase } from '../../lib/events.js';

/** An idempotent call joined a run of the same key already in flight in this process. */
export interface JoinedEvent extends EventBase {
  readonly type: 'joined';
  readonly key: string;
  /** Callers sharing the run, this one included. */
  readonly callers: number;
}

/** An idempotent call was answered from the store's record without running the operation. */
export interface ServedEvent extends EventBase {
  readonly type: 'served';
  readonly key: string;
}

/** An idempotent call claimed its key (no record, or a failed one) and runs the operation. */
export interface ClaimedEvent extends EventBase {
  readonly type: 'claimed';
  readonly key: string;
  /** The fencing token of the claim. */
  readonly token: string;
}

/** An idempotent call took over a key whose claimant's lease had expired. */
export interface TakeoverEvent extends EventBase {
  readonly type: 'takeover';
  readonly key: string;
  /** The fencing token of the new claim. */
  readonly token: string;
}

/**
 * An idempotent run succeeded but its result does not survive the codec's
 * round trip: its callers got the result, the record says "ran, result not
 * storable" for `ttlMs`, and later callers of the key get
 * `IdempotencyResultNotStorableError` without running anything.
 */
export interface NotStorableEvent extends EventBase {
  readonly type: 'notStorable';
  readonly key: string;
  /** Why it could not be stored: the round trip's `TypeError`, or what the codec threw. */
  readonly error: unknown;
}

declare module '../../lib/events.js' {
  interface PolicyEventTypes {
    // idempotent(): joined a run in flight.
    joined: JoinedEvent;
    // idempotent(): answered from the store.
    served: ServedEvent;
    // idempotent(): claimed the key and runs.
    claimed: ClaimedEvent;
    // idempotent(): took over an expired claim.
    takeover: TakeoverEvent;
    // idempotent(): the result could not be stored.
    notStorable: NotStorableEvent;
  }
}
