import { BehaviorSubject, type Observable } from 'rxjs';
import type { Clock } from '../../lib/clock.js';
import { Context, EMPTY_META, executeWith, runNext } from '../../lib/context.js';
import { ConfigError, isShedRejection, isTimeoutError, type BrokenCircuitError } from '../../lib/errors.js';
import { EventSource, type OutcomeResult, type PolicyEvent } from '../../lib/events.js';
import type { BreakerState, StateChangeReason } from './events.js';
import { judge } from '../../lib/judge.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { FAILURE, IsolationHandle, BreakerPermit, RELEASE, SUCCESS, TIMEOUT, type Settlement } from '../../lib/permit.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../../lib/policy.js';

export { FAILURE, IsolationHandle, BreakerPermit, RELEASE, SUCCESS, TIMEOUT, type Settlement };

/** What every breaker's options carry: the judges of thrown values and results. */
interface Judged {
  handle?: ((error: unknown) => boolean) | undefined;
  handleResult?: ((result: unknown) => boolean) | undefined;
}

/**
 * What both breaker families share: the permit API, `execute` through the
 * Policy contract (the caller's own cancellation and breakwater's shed
 * rejections record nothing, an enclosing deadline counts as a failure), `state$`, `events$`, `isolate()`,
 * `reset()`. Subclasses decide admission ({@link BreakerPolicy.admit}) and
 * what an outcome does ({@link BreakerPolicy.record}).
 *
 * Neither the event subject nor the state subject exists until someone asks
 * for it, so an unobserved breaker is a few fields.
 *
 * @example
 * ```ts
 * function guard(b: BreakerPolicy) {
 *   b.state$.subscribe((s) => metrics.set('breaker_state', s === 'open' ? 1 : 0));
 * }
 * ```
 */
export abstract class BreakerPolicy<S extends BreakerState = BreakerState> implements Policy<never> {
  declare readonly [ANSWER]?: () => never;
  /** @internal */ ev: EventSource | undefined = undefined;
  private subject: BehaviorSubject<BreakerState> | undefined = undefined;
  /** Live isolation handles. */
  protected isolations = 0;
  private isolationEpoch = 0;
  /** @internal registry bookkeeping: clock time of the last call and LRU links. */
  lastUsedAt = 0;
  /** @internal */ key: string | undefined = undefined;
  /** @internal */ older: BreakerPolicy | undefined = undefined;
  /** @internal */ newer: BreakerPolicy | undefined = undefined;
  /** True when the breaker judges calls by their duration (`slowCallRatio`). */
  protected timed = false;

  constructor(
    /** Names the breaker in events, errors and metrics. */
    readonly name: string,
    /** The clock the breaker runs on. */
    readonly clock: Clock,
    private handle: ((error: unknown) => boolean) | undefined,
    private handleResult: ((result: unknown) => boolean) | undefined,
  ) {}

  /**
   * Hot reload: checks `options` with `check` under this breaker's name,
   * refuses with a `ConfigError` a change of any `fixed` option (they shape
   * the window; nothing changes then), and takes the new `handle` and
   * `handleResult`. Returns the parsed options for the subclass to keep.
   */
  protected reparse<O extends Judged>(check: (input: unknown, policy: string) => O, options: object, current: O, fixed: readonly (keyof O & string)[]): O {
    const o = check({ ...options, name: this.name }, this.name);
    const changed = fixed.filter((k) => o[k] !== current[k]);
    if (changed.length > 0) throw new ConfigError(this.name, changed.map((k) => ({ path: k, message: 'cannot change in place (it shapes the window); build a new breaker' })));
    this.handle = o.handle;
    this.handleResult = o.handleResult;
    return o;
  }

  /** The current state; reading it never causes a transition. */
  abstract get state(): S;

  /** Every event of this breaker: `outcome`, `stateChange`, `rejected` (and `forcePass` for the SRE and the default breaker). */
  get events$(): Observable<PolicyEvent> {
    return (this.ev ??= new EventSource()).events$;
  }

  /** The current state, replayed to each new subscriber, then every transition. */
  get state$(): Observable<S> {
    return (this.subject ??= new BehaviorSubject<BreakerState>(this.state)).asObservable() as Observable<S>;
  }

  /** True while someone listens to `events$`. */
  protected get observed(): boolean {
    const ev = this.ev;
    return ev !== undefined && ev.observed;
  }

  /**
   * Asks to make a call: returns a {@link BreakerPermit} to settle, or throws
   * `BrokenCircuitError` when the breaker sheds it.
   */
  allow(): BreakerPermit {
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    return new BreakerPermit(this, this.admit(start), start);
  }

  /** Runs `op` through the breaker. */
  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R> {
    // Without options, straight in: executeWith's call into [RUN] is shared by every kind of policy.
    if (options === undefined) return this[RUN](op, new Context(this.clock, undefined, undefined, 1, undefined, EMPTY_META), undefined);
    return executeWith(this, op, options, this.clock);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    // No scope: nothing can cancel the call, so there is no abort to check (and, innermost, no check before the operation).
    const bare = ctx instanceof Context && ctx.scope === undefined;
    if (!bare && abortedHard(ctx)) return Promise.reject(ctx instanceof Context ? ctx.scope!.reason : ctx.signal.reason);
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    let token: number;
    try {
      token = this.admit(start);
    } catch (error) {
      return Promise.reject(error);
    }
    let inner: Promise<R>;
    try {
      // What runNext would do, without its checks.
      inner = bare && next === undefined ? Promise.resolve(op(ctx)) : runNext(op, ctx, next);
    } catch (error) {
      inner = Promise.reject(error);
    }
    // Handlers on the inner promise, not an async frame: the success path costs one reaction.
    return inner.then(
      (value) => {
        if (this.handleResult !== undefined && judge(this.handleResult, value)) this.finish(token, start, FAILURE, 'failure', value);
        else this.finish(token, start, SUCCESS, 'success', undefined);
        return value;
      },
      (error: unknown) => this.failed(token, start, error, ctx),
    );
  }

  private failed(token: number, start: number, error: unknown, ctx: ExecutionContext): never {
    this.finish(token, start, this.settlementOf(error, ctx), this.observed ? thrownOutcome(error, ctx) : 'failure', error);
    throw error;
  }

  /**
   * Forces the breaker open until the returned handle is disposed; with
   * several handles, until the last is. Then it closes with empty counters.
   */
  isolate(): IsolationHandle {
    if (this.isolations++ === 0) this.onIsolate();
    return new IsolationHandle(this, this.isolationEpoch);
  }

  /** Back to closed with empty counters; ends any isolation (its handles become inert). */
  reset(): void {
    this.isolations = 0;
    this.isolationEpoch++;
    this.onReset();
  }

  /** @internal */
  endIsolation(epoch: number): void {
    if (epoch !== this.isolationEpoch || this.isolations === 0) return;
    if (--this.isolations === 0) this.reset();
  }

  /**
   * @internal settles a call admitted through the permit API: `success()`,
   * `failure(error)` (classified like a thrown `error`, nothing to cancel it)
   * or `release()` (the caller cancelled).
   */
  complete(token: number, start: number, settlement: Settlement, error: unknown): void {
    let result: OutcomeResult = 'success';
    if (this.observed) {
      if (settlement === RELEASE) result = error === undefined ? 'cancelled' : thrownOutcome(error, undefined);
      else if (settlement === TIMEOUT) result = 'timeout';
      else if (settlement === FAILURE) result = thrownOutcome(error, undefined);
    }
    this.finish(token, start, settlement, result, error);
  }

  /** Records (or releases) an admitted call and reports it as `result`, which only matters when someone listens. */
  private finish(token: number, start: number, settlement: Settlement, result: OutcomeResult, error: unknown): void {
    let now = NaN;
    if (settlement === RELEASE) this.release(token, start);
    else now = this.record(token, start, settlement);
    if (this.observed) {
      // One clock read serves the window and the event, when the breaker read one.
      const durationMs = (now === now ? now : this.clock.now()) - start;
      this.ev!.emit({ type: 'outcome', policy: this.name, result, durationMs, error });
    }
  }

  /**
   * Decides whether a call may go; returns a token handed back to
   * {@link record}/{@link release}, or throws via {@link shed}. `start` is the
   * call's clock time, read once for the window and the outcome's duration.
   */
  protected abstract admit(start: number): number;
  /** Records an admitted call's outcome; returns the clock time it read for it, or NaN when it read none. */
  protected abstract record(token: number, start: number, settlement: Settlement): number;
  /** An admitted call (started at clock time `start`) ends recording nothing. */
  protected abstract release(token: number, start: number): void;
  /** The first isolation began: force open. */
  protected abstract onIsolate(): void;
  /** Back to closed with empty counters. */
  protected abstract onReset(): void;

  /** Reports a transition (after the state has changed). */
  protected transition(from: S, to: S, reason: StateChangeReason, figure: number | undefined): void {
    if (from === to) return;
    this.subject?.next(to);
    if (this.observed) this.ev!.emit({ type: 'stateChange', policy: this.name, from, to, reason, figure });
  }

  /** Reports and throws a shed call. */
  protected shed(error: BrokenCircuitError, dropRatio: number | undefined): never {
    if (this.observed) {
      const ev = this.ev!;
      const state = this.state;
      if (dropRatio !== undefined) ev.emit({ type: 'rejected', policy: this.name, state, dropRatio });
      else ev.emit({ type: 'rejected', policy: this.name, state, retryAfterMs: error.retryAfterMs });
      // Shed at admission: no time passed.
      ev.emit({ type: 'outcome', policy: this.name, result: thrownOutcome(error, undefined), durationMs: 0, error });
    }
    throw error;
  }

  /** What a thrown value means for the breaker: the caller's abort and a shed rejection record nothing, a passed deadline is a timeout, else `handle` decides. */
  private settlementOf(error: unknown, ctx: ExecutionContext): Settlement {
    // The caller's own abort records nothing; an enclosing deadline is a failure now.
    if (abortedHard(ctx)) return abortedByCaller(ctx) ? RELEASE : TIMEOUT;
    if (isShedRejection(error)) return RELEASE;
    return this.handle === undefined || judge(this.handle, error) ? FAILURE : SUCCESS;
  }
}

// context.ts's hardAborted/cancelledByCaller read `ctx.signal` when a Context
// has no scope, which makes an AbortController per call (~µs); these do not.

/** True when the call's scope has aborted in a way callers stop waiting for (caller, or an aggressive deadline). */
function abortedHard(ctx: ExecutionContext): boolean {
  if (ctx instanceof Context) {
    const scope = ctx.scope;
    return scope !== undefined && scope.aborted && !scope.cooperative;
  }
  return ctx.signal.aborted;
}

/** True when the abort came from the caller's own signal, not a deadline. */
function abortedByCaller(ctx: ExecutionContext): boolean {
  if (ctx instanceof Context) return ctx.scope !== undefined && ctx.scope.byCaller;
  return !isTimeoutError(ctx.signal.reason);
}
