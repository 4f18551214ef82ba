import { Observable, type Subscriber, type Subscription } from 'rxjs';

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

/** A bulkhead (or a leaky bucket) queued the call: it waits for a slot. */
export interface QueuedEvent extends EventBase {
  readonly type: 'queued';
  /** Calls waiting, this one included. */
  readonly queued: number;
}

/** A bulkhead or a rate limiter refused the call. */
export interface LimitRejectedEvent extends EventBase {
  readonly type: 'limitRejected';
  /** `'bulkheadFull'`: no slot and no queue room; `'rateLimited'`: over the rate. */
  readonly reason: 'bulkheadFull' | 'rateLimited';
  /** For `'rateLimited'`: milliseconds until a call would be admitted. */
  readonly retryAfterMs?: number;
  /** The `Criticality` the refused call carried in `ctx.meta`, when it carried one (spelt out: importing it would close a circle through lib/policy.ts). */
  readonly criticality?: 'critical' | 'default' | 'sheddable';
  /** The refused call's partition, when the bulkhead has partitions and the call is in one. */
  readonly partition?: string;
}

/**
 * The events of every policy, by their `type`. Each policy declares its own events
 * in its folder's `events.ts` and adds them here by declaration merging, so
 * the core need not know them; the events shared by many policies are here.
 *
 * @example
 * ```ts
 * type Retried = PolicyEventTypes['retry']; // RetryEvent
 * ```
 */
export interface PolicyEventTypes {
  /** Every policy: one per call it handled. */
  outcome: OutcomeEvent;
  /** bulkhead() and the leaky bucket of rateLimiter(): a call waits for a slot. */
  queued: QueuedEvent;
  /** bulkhead() and rateLimiter(): a call was refused. */
  limitRejected: LimitRejectedEvent;
}

/**
 * Every event a breakwater policy emits, discriminated by `type`: the
 * members of {@link PolicyEventTypes}.
 */
export type PolicyEvent = PolicyEventTypes[keyof PolicyEventTypes];

/**
 * A policy's event source, exposed as `events$`. Check
 * {@link EventSource.observed} before building an event, so an unobserved
 * policy builds no event object. `events$` is made on its first read, so a
 * source nobody ever subscribes to is one small object.
 *
 * It behaves as an rxjs `Subject` would (hot; each subscriber gets the
 * events emitted while it is subscribed, in subscription order; a
 * subscriber that throws is reported asynchronously by rxjs and the call
 * goes on), but `emit` hands the event straight to each subscriber: no
 * closure and no copy of the subscriber list per event.
 */
export class EventSource<E extends PolicyEvent = PolicyEvent> {
  /** The subscribers, replaced (never changed in place) on every subscribe and unsubscribe, so an emit in progress is not disturbed. */
  private subscribers: readonly Subscriber<E>[] = NONE;
  private observable: Observable<E> | undefined = undefined;

  /** All events, hot. */
  get events$(): Observable<E> {
    return (this.observable ??= new Observable<E>((subscriber) => {
      this.subscribers = [...this.subscribers, subscriber];
      return () => {
        this.subscribers = this.subscribers.filter((s) => s !== subscriber);
      };
    }));
  }

  /** True while someone is subscribed. */
  get observed(): boolean {
    return this.subscribers.length > 0;
  }

  /** Emits `event` to subscribers (rxjs reports a throwing subscriber asynchronously; the call goes on). */
  emit(event: E): void {
    const subscribers = this.subscribers;
    for (let i = 0; i < subscribers.length; i++) subscribers[i]!.next(event);
  }
}

const NONE: readonly never[] = /* @__PURE__ */ Object.freeze([]);

/**
 * A value replayed to each new subscriber, then every change, as an rxjs
 * `BehaviorSubject`'s `asObservable()` gives it (the subscriber is added,
 * then handed the current value; a throwing subscriber is reported
 * asynchronously by rxjs), built on `Observable` alone so that a bundle with
 * a breaker takes no `Subject`. A breaker's `state$` is one.
 */
export class ValueSource<T> {
  private subscribers: readonly Subscriber<T>[] = NONE;
  private observable: Observable<T> | undefined = undefined;

  constructor(private current: T) {}

  /** The current value, then each new one. */
  get value$(): Observable<T> {
    return (this.observable ??= new Observable<T>((subscriber) => {
      this.subscribers = [...this.subscribers, subscriber];
      subscriber.next(this.current);
      return () => {
        this.subscribers = this.subscribers.filter((s) => s !== subscriber);
      };
    }));
  }

  /** Sets the value and hands it to every subscriber. */
  next(value: T): void {
    this.current = value;
    const subscribers = this.subscribers;
    for (let i = 0; i < subscribers.length; i++) subscribers[i]!.next(value);
  }
}

/**
 * The events of every source as one Observable, as rxjs's `merge` gives them
 * (each event as it comes; an error from any source ends it; it completes when
 * every source has), in a few lines of our own so that a bundle of `pipe()`
 * takes no rxjs operator.
 */
export function mergeEvents<E>(sources: readonly Observable<E>[]): Observable<E> {
  if (sources.length === 1) return sources[0]!;
  return new Observable<E>((subscriber) => {
    let open = sources.length;
    const subscriptions: Subscription[] = [];
    for (const source of sources) {
      if (subscriber.closed) break;
      subscriptions.push(
        source.subscribe({
          next: (event) => subscriber.next(event),
          error: (error: unknown) => subscriber.error(error),
          complete: () => {
            if (--open === 0) subscriber.complete();
          },
        }),
      );
    }
    if (sources.length === 0) subscriber.complete();
    return () => {
      for (const s of subscriptions) s.unsubscribe();
    };
  });
}

