import type { Observable } from 'rxjs';
import { systemClock, type Clock } from './clock.js';
import { Context, EMPTY_META, executeWith } from './context.js';
import { EventSource, type OutcomeResult, type PolicyEvent } from './events.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from './policy.js';

/**
 * The skeleton every breakwater policy extends: its `name`, its `events$`
 * (an {@link EventSource}, whose subject exists only once someone asks
 * for `events$`), `execute` through
 * {@link executeWith}, the type-only {@link ANSWER} and the check that
 * refuses a call its caller (or an aggressive deadline) already gave up.
 * A subclass writes only its `[RUN]`.
 *
 * @typeParam T - what the policy may answer instead of the operation (`never` for most).
 * @typeParam E - the events it emits.
 * @typeParam C - its clock's type: `Clock | undefined` for a policy that runs on
 *   the context's clock unless given one (`fallback`), so that a pipeline looks further for its own.
 *
 * @example
 * ```ts
 * class Logged extends PolicyBase {
 *   constructor() { super('logged', systemClock); }
 *   [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
 *     const start = this.clock.now();
 *     return runNext(op, ctx, next).finally(() => this.events.observed && this.outcome('success', start));
 *   }
 * }
 * ```
 */
export abstract class PolicyBase<T = never, E extends PolicyEvent = PolicyEvent, C extends Clock | undefined = Clock> implements Policy<T> {
  declare readonly [ANSWER]?: () => T;
  /** Names the policy in events, errors and metrics. */
  readonly name: string;
  /** The clock of `execute`'s root context and of the policy's own durations (pipelines read it as their default clock). */
  protected readonly clock: C;
  /**
   * Where its events go. Read `this.events.observed` and call
   * `this.events.emit` from the subclass's own methods on hot paths: a
   * field read there stays monomorphic, where the base's shared getters
   * see every policy class.
   */
  protected readonly events: EventSource<E> = new EventSource<E>();

  protected constructor(name: string, clock: C) {
    this.name = name;
    this.clock = clock;
  }

  /** Every event of this policy; hot, and free while nobody subscribes. */
  get events$(): Observable<E> {
    return this.events.events$;
  }

  /**
   * Reports a call that settled as `result` (decided by
   * `lib/outcome.ts`'s `settledOutcome`), `start` being the clock
   * time the call entered the policy. Call only when `events.observed`.
   */
  protected outcome(result: OutcomeResult, start: number, error?: unknown, now?: number): void {
    const durationMs = (now ?? (this.clock ?? systemClock).now()) - start;
    this.events.emit({ type: 'outcome', policy: this.name, result, durationMs, error } as E);
  }

  /** Runs `op` under this policy (see {@link Policy.execute}). */
  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R | T> {
    const clock = this.clock ?? systemClock;
    // Without options, straight in: the root context has nothing to check (what executeWith does first).
    if (options === undefined) return this[RUN](op, new Context(clock, undefined, undefined, 1, undefined, EMPTY_META), undefined);
    return executeWith(this, op, options, clock);
  }

  /** The context-passing entry pipelines use; see {@link RUN}. */
  abstract [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T>;
}

/**
 * The rejection for a call its caller, or an aggressive deadline, has
 * already given up (the abort's reason), or `undefined` when the call may
 * go on. A cooperative deadline only asks, so it refuses nothing. A
 * breakwater context is read through its scope, never its `signal`, which
 * would allocate an `AbortController`.
 *
 * @example
 * ```ts
 * const refused = refuseAborted(ctx);
 * if (refused !== undefined) return refused; // takes no slot, measures nothing
 * ```
 */
export function refuseAborted(ctx: ExecutionContext): Promise<never> | undefined {
  if (ctx instanceof Context) {
    const scope = ctx.scope;
    return scope !== undefined && scope.aborted && !scope.cooperative ? Promise.reject(scope.reason) : undefined;
  }
  const signal = ctx.signal;
  return signal.aborted ? Promise.reject(signal.reason) : undefined;
}

/**
 * Makes `policy` emit to `source` instead of an event source of its own: a
 * breaker registry gives all its breakers one, so its `events$` carries
 * every key's events. Call before anyone subscribes to the policy.
 *
 * @example
 * ```ts
 * shareEventSource(breaker, this.events);
 * ```
 */
export function shareEventSource<E extends PolicyEvent>(policy: PolicyBase<unknown, E, Clock | undefined>, source: EventSource<E>): void {
  // The one writer of the base's read-only field from outside the class.
  (policy as unknown as { events: EventSource<E> }).events = source;
}
