import { Subject, type Observable } from 'rxjs';

/** Fields every event carries. */
export interface EventBase {
  /** Name of the policy that emitted the event. */
  readonly policy: string;
}

/** How a call ended, from the emitting policy's point of view: what metrics count. */
export type OutcomeResult = 'success' | 'failure' | 'rejected' | 'timeout' | 'fallback';

/** One per call a policy handled. */
export interface OutcomeEvent extends EventBase {
  readonly type: 'outcome';
  readonly result: OutcomeResult;
  /** Clock milliseconds from the call entering the policy to its settling. */
  readonly durationMs: number;
  /** The thrown value, for failures, rejections and timeouts. */
  readonly error?: unknown;
}

/** A timeout's deadline passed before the call settled. */
export interface TimeoutEvent extends EventBase {
  readonly type: 'timeout';
  /** The timeout in milliseconds. */
  readonly timeoutMs: number;
  readonly mode: 'aggressive' | 'cooperative';
}

/** Retry will try again after `delayMs`. */
export interface RetryEvent extends EventBase {
  readonly type: 'retry';
  /** The attempt that is about to start (2 for the first retry). */
  readonly attempt: number;
  readonly delayMs: number;
  /** What the failed attempt threw (or the result judged a failure). */
  readonly error: unknown;
}

/** Retry stopped trying and rethrew the last error. */
export interface GiveUpEvent extends EventBase {
  readonly type: 'giveUp';
  /** Attempts made in all. */
  readonly attempts: number;
  readonly error: unknown;
  /** Why retry stopped. */
  readonly reason: 'maxAttempts' | 'notHandled' | 'deadline' | 'budget' | 'cancelled';
}

/** Retry's call succeeded. */
export interface SuccessEvent extends EventBase {
  readonly type: 'success';
  /** Attempts made in all, the successful one included. */
  readonly attempts: number;
}

/** A fallback answered instead of the operation. */
export interface FallbackEvent extends EventBase {
  readonly type: 'fallback';
  /** Index of the handler that answered (0 for `fallback`). */
  readonly handler: number;
  /** The error it answered. */
  readonly error: unknown;
}

/** Fallback handlers failed; the original error is rethrown. */
export interface FallbackFailedEvent extends EventBase {
  readonly type: 'fallbackFailed';
  /** The error the handlers were answering. */
  readonly error: unknown;
  /** What each handler that ran threw, in order. */
  readonly handlerErrors: readonly unknown[];
}

/** A bulkhead (or a leaky bucket) queued the call: it waits for a slot. */
export interface QueuedEvent extends EventBase {
  readonly type: 'queued';
  /** Calls waiting, this one included. */
  readonly queued: number;
}

/** A bulkhead or a rate limiter refused the call. */
export interface LimitRejectedEvent extends EventBase {
  readonly type: 'rejected';
  /** `'bulkheadFull'`: no slot and no queue room; `'rateLimited'`: over the rate. */
  readonly reason: 'bulkheadFull' | 'rateLimited';
  /** For `'rateLimited'`: milliseconds until a call would be admitted. */
  readonly retryAfterMs?: number;
}

/** A distributed rate limiter lost (`active: true`) or regained (`active: false`) its store and limits locally meanwhile. */
export interface LocalFallbackEvent extends EventBase {
  readonly type: 'localFallback';
  /** True while limiting locally. */
  readonly active: boolean;
  /** Why the store was given up, when `active`. */
  readonly error?: unknown;
}

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
 * Every event a breakwater policy emits, discriminated by `type`. Later
 * policies add their members here.
 */
export type PolicyEvent =
  | OutcomeEvent
  | TimeoutEvent
  | RetryEvent
  | GiveUpEvent
  | SuccessEvent
  | FallbackEvent
  | FallbackFailedEvent
  | QueuedEvent
  | LimitRejectedEvent
  | LocalFallbackEvent
  | JoinedEvent
  | ServedEvent
  | ClaimedEvent
  | TakeoverEvent;

/**
 * A policy's event source: a private `Subject`, exposed as `events$`. Check
 * {@link EventSource.observed} before building an event, so an unobserved
 * policy builds no event object.
 */
export class EventSource<E extends PolicyEvent = PolicyEvent> {
  private readonly subject = new Subject<E>();
  /** All events, hot. */
  readonly events$: Observable<E> = this.subject.asObservable();

  /** True while someone is subscribed. */
  get observed(): boolean {
    return this.subject.observed;
  }

  /** Emits `event` to subscribers (rxjs reports a throwing subscriber asynchronously; the call goes on). */
  emit(event: E): void {
    this.subject.next(event);
  }
}
