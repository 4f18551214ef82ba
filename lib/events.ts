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

/** A breaker's state: the SRE breaker is only ever `'closed'` or `'open'`. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** Why a breaker changed state. */
export type StateChangeReason =
  /** SRE: the step-6 drop ratio crossed 0 (up: open, down: closed). */
  | 'dropRatio'
  /** Closed → open: the strategy's threshold was met. */
  | 'threshold'
  /** Open → half-open: `openMs` passed and a call came. */
  | 'retryTimeout'
  /** Half-open → open: a probe failed (or was slow, for `slowCallRatio`). */
  | 'probeFailed'
  /** Half-open → closed: `probes` probes succeeded. */
  | 'probesSucceeded'
  /** Half-open → open: half-open lasted longer than `maxHalfOpenMs`. */
  | 'halfOpenTimeout'
  /** Forced open by `isolate()`. */
  | 'isolated'
  /** `reset()`, or the last isolation handle disposed. */
  | 'reset';

/** A breaker changed state; listeners run after the change. */
export interface StateChangeEvent extends EventBase {
  readonly type: 'stateChange';
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly reason: StateChangeReason;
  /** The figure behind the change: the ratio or count that tripped it, the SRE drop ratio; `undefined` when none applies. */
  readonly figure: number | undefined;
}

/** A breaker shed a call. */
export interface BreakerRejectedEvent extends EventBase {
  readonly type: 'rejected';
  /** The breaker's state when it shed the call. */
  readonly state: BreakerState;
  /** SRE: the probability the call was shed with (after the working-bucket discount). */
  readonly dropRatio?: number;
  /** State machine: milliseconds until the breaker may admit a call again, when known. */
  readonly retryAfterMs?: number;
}

/** The SRE breaker let a call through because nothing had passed for longer than `forcePassMs`. */
export interface ForcePassEvent extends EventBase {
  readonly type: 'forcePass';
  /** The step-6 drop ratio at the time. */
  readonly dropRatio: number;
  /** Milliseconds since the last call passed. */
  readonly sinceLastPassMs: number;
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
  | StateChangeEvent
  | BreakerRejectedEvent
  | ForcePassEvent;

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
