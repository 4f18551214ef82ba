import { Subject, type Observable } from 'rxjs';

/** Fields every event carries. */
export interface EventBase {
  /** Name of the policy that emitted the event. */
  readonly policy: string;
}

/**
 * How a call ended, from the emitting policy's point of view: what metrics
 * count. `'success'`: it returned a value (that `handleResult` does not
 * judge a failure); `'failure'`: it threw, or returned a value judged a
 * failure; `'timeout'`: a deadline ended it (its own or an enclosing one);
 * `'rejected'`: breakwater shed it; `'cancelled'`: its caller cancelled it
 * (no breaker records it, and it is not an error of the dependency);
 * `'fallback'`: a fallback (or `degrade`) answered it. `lib/outcome.ts`
 * decides, the same for every policy.
 */
export type OutcomeResult = 'success' | 'failure' | 'rejected' | 'timeout' | 'cancelled' | 'fallback';

/** One per call a policy handled. */
export interface OutcomeEvent extends EventBase {
  readonly type: 'outcome';
  readonly result: OutcomeResult;
  /** Clock milliseconds from the call entering the policy to its settling. */
  readonly durationMs: number;
  /** The thrown value, for failures, rejections, timeouts and cancellations. */
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
  readonly reason: 'maxAttempts' | 'notHandled' | 'deadline' | 'budget' | 'cancelled' | 'maxDelay' | 'invalidBackoff';
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

/** `degrade` answered a call from its `to` handler instead of calling the operation. */
export interface DegradedEvent extends EventBase {
  readonly type: 'degraded';
  /** The decision's action (`'custom'` for a predicate). */
  readonly action: string;
  /** The signal values the decision saw. */
  readonly signals: Readonly<Record<string, number>>;
}

/** A load shedder dropped a call. */
export interface ShedEvent extends EventBase {
  readonly type: 'shed';
  /** CPU utilisation (0–1) at the decision. */
  readonly cpu: number;
  /** Calls in flight. */
  readonly inFlight: number;
  /** What recent throughput and latency can carry, scaled by the overload factor. */
  readonly maxInFlight: number;
}

/** A pipeline built by `fromConfig` took a new config in place. */
export interface ConfigAppliedEvent extends EventBase {
  readonly type: 'configApplied';
  /** 1 for the first config, then +1 per applied update. */
  readonly version: number;
}

/** A pipeline built by `fromConfig` refused a config and kept the last good one. */
export interface ConfigRejectedEvent extends EventBase {
  readonly type: 'configRejected';
  /**
   * `'invalid'`: it broke a rule, or could not be parsed; `'structure'`: it changed which policies run, or their
   * order; `'error'`: the config stream failed, which ends it (the last good config keeps serving, no later one comes).
   */
  readonly reason: 'invalid' | 'structure' | 'error';
  /** Every problem, with its path. */
  readonly issues: readonly { readonly path: string; readonly message: string }[];
}

/** Hedge started another attempt beside the ones running. */
export interface HedgedEvent extends EventBase {
  readonly type: 'hedged';
  /** The hedged attempt that starts (2 for the first hedge; 1 is the primary). */
  readonly attempt: number;
  /** How long the call waited for it: the delay, or 0 when a failure started it at once. */
  readonly delayMs: number;
}

/** Hedge took this attempt's result; the others are aborted. */
export interface WonEvent extends EventBase {
  readonly type: 'won';
  /** The winning attempt (1 for the primary). */
  readonly attempt: number;
}

/** Chaos injected a fault, latency or a substitute result into this call. */
export interface InjectedEvent extends EventBase {
  readonly type: 'injected';
  readonly kind: 'fault' | 'latency' | 'result';
  /** The latency injected, for `kind: 'latency'`. */
  readonly delayMs?: number;
}

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

/** A breaker's state: the SRE breaker is only ever `'closed'` or `'open'`; the default breaker may shed a share while `'closed'`. */
export type BreakerState = 'closed' | 'open' | 'half-open';

/** Why a breaker changed state. */
export type StateChangeReason =
  /** SRE: the step-6 drop ratio crossed 0 (up: open, down: closed). */
  | 'dropRatio'
  /** Closed → open: the strategy's threshold was met (the default breaker: a run of `tripFailures` failures with no success for `tripMs`). */
  | 'threshold'
  /** Open → half-open: `openMs` passed and a call came. */
  | 'retryTimeout'
  /** Half-open → open: a probe failed (or was slow, for `slowCallRatio`; the default breaker: a run of failures while ramping back). */
  | 'probeFailed'
  /** Default breaker, open → half-open: a probe succeeded and the ramp back starts. */
  | 'probeSucceeded'
  /** Default breaker, closed or half-open → open: calls went out and nothing at all came back for too long. */
  | 'stalled'
  /** Default breaker, open or half-open → closed: nothing was recorded for a whole window, so nothing is left to judge by. */
  | 'windowExpired'
  /** Half-open → closed: `probes` probes succeeded (the default breaker: its ramp reached every call). */
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
  /** The figure behind the change: the ratio or count that tripped it, the SRE drop ratio, the default breaker's stalled wait (ms) or admitted share; `undefined` when none applies. */
  readonly figure: number | undefined;
}

/** A breaker shed a call. */
export interface BreakerRejectedEvent extends EventBase {
  readonly type: 'rejected';
  /** The breaker's state when it shed the call. */
  readonly state: BreakerState;
  /** SRE and the default breaker: the probability the call was shed with (SRE: after the working-bucket discount). */
  readonly dropRatio?: number;
  /** State machine: milliseconds until the breaker may admit a call again, when known. */
  readonly retryAfterMs?: number;
}

/** The SRE or the default breaker let a call through because nothing had passed for longer than `forcePassMs`. */
export interface ForcePassEvent extends EventBase {
  readonly type: 'forcePass';
  /** The drop ratio at the time (SRE: before the working-bucket discount; the default breaker: the share it was shedding). */
  readonly dropRatio: number;
  /** Milliseconds since the last call passed. */
  readonly sinceLastPassMs: number;
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

/** An adaptive concurrency limiter shed a call: as many calls were in flight as its limit. */
export interface ConcurrencyRejectedEvent extends EventBase {
  readonly type: 'rejected';
  readonly reason: 'concurrencyLimited';
  /** The limit the call was refused at. */
  readonly limit: number;
  /** Calls in flight when it was refused. */
  readonly inFlight: number;
  /** The recent mean response time, the rejection's `retryAfterMs`, when measured. */
  readonly retryAfterMs?: number;
}

/**
 * Why an adaptive concurrency limiter moved its limit: `'slowStart'`, doubled
 * while no queueing has been seen yet; `'increase'`, grown by a step with
 * response times near the no-load baseline; `'queueing'`, lowered because
 * response times rose above it; `'drop'`, lowered because calls timed out
 * (or failed with an overload error); `'reset'`, back to the initial limit.
 */
export type LimitChangeReason = 'slowStart' | 'increase' | 'queueing' | 'drop' | 'reset';

/** An adaptive concurrency limiter changed its limit at the end of a sampling window. */
export interface LimitChangedEvent extends EventBase {
  readonly type: 'limitChanged';
  readonly from: number;
  readonly to: number;
  readonly reason: LimitChangeReason;
  /** Mean response time of the window's answered calls, in ms; `undefined` when none answered. */
  readonly rttMs: number | undefined;
  /** The no-load response time the window was compared with, in ms; `undefined` before the first measurement. */
  readonly baselineMs: number | undefined;
  /** Most calls in flight when any of the window's calls started. */
  readonly maxInFlight: number;
  /** Calls the window measured, drops included. */
  readonly samples: number;
  /** Calls of the window that timed out or failed with an overload error. */
  readonly drops: number;
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
  | DegradedEvent
  | ShedEvent
  | ConfigAppliedEvent
  | ConfigRejectedEvent
  | HedgedEvent
  | WonEvent
  | InjectedEvent
  | CacheHitEvent
  | CacheMissEvent
  | RevalidatedEvent
  | StateChangeEvent
  | BreakerRejectedEvent
  | ForcePassEvent
  | QueuedEvent
  | LimitRejectedEvent
  | ConcurrencyRejectedEvent
  | LimitChangedEvent
  | LocalFallbackEvent
  | JoinedEvent
  | ServedEvent
  | ClaimedEvent
  | TakeoverEvent
  | NotStorableEvent
  | WriteQueuedEvent
  | ReplayedEvent;

/**
 * A policy's event source: a private `Subject`, exposed as `events$`. Check
 * {@link EventSource.observed} before building an event, so an unobserved
 * policy builds no event object. The subject is made on the first read of
 * `events$`, so a source nobody ever subscribes to is one small object.
 */
export class EventSource<E extends PolicyEvent = PolicyEvent> {
  private subject: Subject<E> | undefined = undefined;
  private observable: Observable<E> | undefined = undefined;

  /** All events, hot. */
  get events$(): Observable<E> {
    return (this.observable ??= (this.subject = new Subject<E>()).asObservable());
  }

  /** True while someone is subscribed. */
  get observed(): boolean {
    const subject = this.subject;
    return subject !== undefined && subject.observed;
  }

  /** Emits `event` to subscribers (rxjs reports a throwing subscriber asynchronously; the call goes on). */
  emit(event: E): void {
    this.subject?.next(event);
  }
}
