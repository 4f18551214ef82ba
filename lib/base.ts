import type { Observable } from 'rxjs';
import { systemClock, type Clock } from './clock.js';
import { Context, executeWith } from './context.js';
import { EventSource, type OutcomeResult, type PolicyEvent } from './events.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from './policy.js';

/**
 * The skeleton every breakwater policy extends: its `name`, its `events$`
 * (a private {@link EventSource}, made only when someone asks for
 * `events$`, so an unobserved policy holds no subject), `execute` through
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
 *     return runNext(op, ctx, next).finally(() => this.observed && this.outcome('success', start));
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
  private ev: EventSource<E> | undefined = undefined;

  protected constructor(name: string, clock: C) {
    this.name = name;
    this.clock = clock;
  }

  /** Every event of this policy; hot, and free while nobody subscribes. */
  get events$(): Observable<E> {
    return (this.ev ??= new EventSource<E>()).events$;
  }

  /** True while someone listens to `events$`: build an event only then. */
  protected get observed(): boolean {
    const ev = this.ev;
    return ev !== undefined && ev.observed;
  }

  /** Emits `event` to `events$`'s subscribers (nothing when nobody ever subscribed). */
  protected emit(event: E): void {
    this.ev?.emit(event);
  }

  /**
   * Reports a call that settled as `result` (decided by
   * `lib/outcome.ts`'s `settledOutcome`), `start` being the clock
   * time the call entered the policy. Call only when `observed`.
   */
  protected outcome(result: OutcomeResult, start: number, error?: unknown, now?: number): void {
    const durationMs = (now ?? (this.clock ?? systemClock).now()) - start;
    this.emit({ type: 'outcome', policy: this.name, result, durationMs, error } as E);
  }

  /** Runs `op` under this policy (see {@link Policy.execute}). */
  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R | T> {
    return executeWith(this, op, options, this.clock ?? systemClock);
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
  // The one writer of the base's private field from outside the class.
  (policy as unknown as { ev: EventSource<E> | undefined }).ev = source;
}
