import type { Observable } from 'rxjs';
import { PolicyBase, refuseAborted } from '../../lib/base.js';
import type { Clock } from '../../lib/clock.js';
import { callNext, cancelledByCaller, Context, hardAborted, startOf } from '../../lib/context.js';
import { BrokenCircuitError, ConfigError, isShedRejection } from '../../lib/errors.js';
import { ValueSource, type OutcomeResult, type PolicyEvent } from '../../lib/events.js';
import type { BreakerState, StateChangeReason } from './events.js';
import { judge } from '../../lib/judge.js';
import { refuseReshape } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { FAILURE, IsolationHandle, BreakerPermit, RELEASE, SUCCESS, TIMEOUT, type Settlement } from '../../lib/permit.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { readSettledAt, settlingOf, shareSettledAt, Step } from '../../lib/settle.js';

export { FAILURE, IsolationHandle, BreakerPermit, RELEASE, SUCCESS, TIMEOUT, type Settlement };

/**
 * An operator's control over a breaker (resilience4j's special states):
 * `'enforcing'` (normal), `'disabled'` (every call passes; outcomes are still
 * reported, the breaker's own window is not fed and its state does not
 * change), `'metricsOnly'` (shadow mode: the breaker runs as usual, its
 * window, state changes and `rejected` events included (with `enforced:
 * false`), but every call passes), `'forcedOpen'` (every call is refused,
 * as under `isolate()`).
 */
export type BreakerControl = 'enforcing' | 'disabled' | 'metricsOnly' | 'forcedOpen';

/** Every {@link BreakerControl}, in order. */
export const BREAKER_CONTROLS: readonly BreakerControl[] = /* @__PURE__ */ Object.freeze(['enforcing', 'disabled', 'metricsOnly', 'forcedOpen']);

/** The token of a call a control let pass without the breaker admitting it: settling it records nothing. */
const PASSED = -1;

/** A breaker's last state change, as {@link BreakerPolicy.health} reports it. */
export interface BreakerTransition {
  readonly from: BreakerState;
  readonly to: BreakerState;
  readonly reason: StateChangeReason;
  /** Clock time of the change. */
  readonly at: number;
}

/** What {@link BreakerPolicy.health} tells of a breaker now. */
export interface BreakerHealth {
  readonly name: string;
  readonly state: BreakerState;
  readonly control: BreakerControl;
  /** The breaker's window figures (its `stats()`), when it has them. */
  readonly stats?: Readonly<Record<string, unknown>>;
  /** The last state change since the breaker was made, `undefined` if none. */
  readonly lastTransition: BreakerTransition | undefined;
}

/** What a breaker does with its call's outcome, as a step of the call's one settlement. */
class BreakerStep extends Step {
  constructor(
    private readonly policy: BreakerPolicy,
    private readonly token: number,
    private readonly start: number,
    private readonly ctx: ExecutionContext,
  ) {
    super();
  }

  onValue(value: unknown): unknown {
    this.policy.stepValue(this.token, this.start, value);
    return value;
  }

  onError(error: unknown): unknown {
    return this.policy.stepError(this.token, this.start, error, this.ctx);
  }
}

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
export abstract class BreakerPolicy<S extends BreakerState = BreakerState> extends PolicyBase<never, PolicyEvent> {
  /** The clock the breaker runs on. */
  declare readonly clock: Clock;
  private subject: ValueSource<BreakerState> | undefined = undefined;
  /** Live isolation handles. */
  protected isolations = 0;
  private isolationEpoch = 0;
  /** True when the breaker judges calls by their duration (`slowCallRatio`). */
  protected timed = false;
  private controlMode: BreakerControl = 'enforcing';
  /** True under `disabled` and `metricsOnly`: admission goes through {@link admitControlled}. */
  private controlled = false;
  /** True while `metricsOnly` asks the breaker whether it would admit: a shed is reported as not enforced. */
  private shadow = false;
  private forced: IsolationHandle | undefined = undefined;
  private last: BreakerTransition | undefined = undefined;

  constructor(
    name: string,
    clock: Clock,
    private handle: ((error: unknown) => boolean) | undefined,
    private handleResult: ((result: unknown) => boolean) | undefined,
  ) {
    super(name, clock);
  }

  /**
   * Hot reload: checks `options` with `check` under this breaker's name,
   * refuses with a `ConfigError` a change of any `fixed` option (they shape
   * the window; nothing changes then), and takes the new `handle` and
   * `handleResult`. Returns the parsed options for the subclass to keep.
   */
  protected reparse<O extends Judged>(check: (input: unknown, policy: string) => O, options: object, current: O, fixed: readonly (keyof O & string)[]): O {
    const o = check({ ...options, name: this.name }, this.name);
    refuseReshape(this.name, fixed, current, o, 'window', 'breaker');
    this.handle = o.handle;
    this.handleResult = o.handleResult;
    return o;
  }

  /** The current state; reading it never causes a transition. */
  abstract get state(): S;

  /** Every event of this breaker: `outcome`, `stateChange`, `rejected` (and `forcePass` for the SRE and the default breaker). */
  override get events$(): Observable<PolicyEvent> {
    return super.events$;
  }

  /** The current state, replayed to each new subscriber, then every transition. */
  get state$(): Observable<S> {
    return (this.subject ??= new ValueSource<BreakerState>(this.state)).value$ as Observable<S>;
  }

  /**
   * Asks to make a call: returns a {@link BreakerPermit} to settle, or throws
   * `BrokenCircuitError` when the breaker sheds it.
   */
  allow(): BreakerPermit {
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    return new BreakerPermit(this, this.controlled ? this.admitControlled(start) : this.admit(start), start);
  }

  /** The operator's control now (see {@link BreakerControl}). */
  get control(): BreakerControl {
    return this.controlMode;
  }

  /**
   * Sets the operator's control (see {@link BreakerControl}); an unknown value is a `ConfigError` and changes
   * nothing. Leaving `'forcedOpen'` ends its isolation (closed with empty counters, unless `isolate()` handles are
   * still live); `'disabled'` and `'metricsOnly'` keep the breaker's state, which rules again under `'enforcing'`.
   */
  setControl(control: BreakerControl): void {
    if (!BREAKER_CONTROLS.includes(control)) {
      throw new ConfigError(this.name, [{ path: 'control', message: `expected one of ${BREAKER_CONTROLS.map((c) => `'${c}'`).join(', ')}, got ${String(control)}` }]);
    }
    const from = this.controlMode;
    if (from === control) return;
    this.controlMode = control;
    this.controlled = control === 'disabled' || control === 'metricsOnly';
    const forced = this.forced;
    this.forced = control === 'forcedOpen' ? this.isolate() : undefined;
    forced?.dispose();
    if (this.events.observed) this.events.emit({ type: 'controlChanged', policy: this.name, from, to: control });
  }

  /** The breaker's state, control, window figures and last state change, for a health endpoint. */
  health(): BreakerHealth {
    const stats = (this as { stats?: () => object }).stats;
    const base = { name: this.name, state: this.state as BreakerState, control: this.controlMode, lastTransition: this.last };
    return typeof stats === 'function' ? { ...base, stats: { ...stats.call(this) } } : base;
  }

  /** Admission under `disabled` (pass, record nothing) or `metricsOnly` (the breaker decides and records, but a shed call passes). */
  private admitControlled(start: number): number {
    if (this.controlMode === 'disabled') return PASSED;
    this.shadow = true;
    try {
      return this.admit(start);
    } catch (error) {
      if (error instanceof BrokenCircuitError) return PASSED;
      throw error;
    } finally {
      this.shadow = false;
    }
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    // No scope: nothing can cancel the call, so there is no abort to check (and, innermost, no check before the operation).
    const bare = ctx instanceof Context && ctx.scope === undefined;
    if (!bare) {
      const refused = refuseAborted(ctx);
      if (refused !== undefined) return refused;
    }
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = startOf(ctx, this.clock);
    let token: number;
    try {
      token = this.controlled ? this.admitControlled(start) : this.admit(start);
    } catch (error) {
      return Promise.reject(error);
    }
    let inner: Promise<R>;
    try {
      // What runNext would do, without its checks.
      inner = bare && next === undefined ? Promise.resolve(op(ctx)) : callNext(op, ctx, next);
    } catch (error) {
      inner = Promise.reject(error);
    }
    // One settlement for the call: a step on the inner layer's promise instead of a promise of our own
    // (nothing is on offer when the operation is next).
    if (next !== undefined) {
      const s = settlingOf(inner);
      if (s !== undefined && s.push(new BreakerStep(this, token, start, ctx))) return inner;
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

  private failed(token: number, start: number, error: unknown, ctx: ExecutionContext, now?: number): never {
    this.finish(token, start, this.settlementOf(error, ctx), this.events.observed ? thrownOutcome(error, ctx) : 'failure', error, now);
    throw error;
  }

  /** @internal A call admitted with `token` at `start` settled (through a step, at the settlement's time). */
  stepValue(token: number, start: number, value: unknown): void {
    const now = readSettledAt(this.clock);
    if (this.handleResult !== undefined && judge(this.handleResult, value)) shareSettledAt(this.clock, this.finish(token, start, FAILURE, 'failure', value, now));
    else shareSettledAt(this.clock, this.finish(token, start, SUCCESS, 'success', undefined, now));
  }

  /** @internal A call admitted with `token` at `start` threw `error` (through a step); rethrows it. */
  stepError(token: number, start: number, error: unknown, ctx: ExecutionContext): never {
    return this.failed(token, start, error, ctx, readSettledAt(this.clock));
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
    if (this.events.observed) {
      if (settlement === RELEASE) result = error === undefined ? 'cancelled' : thrownOutcome(error, undefined);
      else if (settlement === TIMEOUT) result = 'timeout';
      else if (settlement === FAILURE) result = thrownOutcome(error, undefined);
    }
    this.finish(token, start, settlement, result, error);
  }

  /** Records (or releases) an admitted call and reports it as `result`, which only matters when someone listens. */
  private finish(token: number, start: number, settlement: Settlement, result: OutcomeResult, error: unknown, at?: number): number {
    let now = NaN;
    if (token === PASSED) {
      // let through by a control: the breaker admitted nothing to record
    } else if (settlement === RELEASE) this.release(token, start);
    else now = this.record(token, start, settlement, at);
    if (this.events.observed) {
      // One clock read serves the window and the event, when the breaker read one.
      this.outcome(result, start, error, now === now ? now : at !== undefined && at === at ? at : undefined);
    }
    return now;
  }

  /**
   * Decides whether a call may go; returns a token handed back to
   * {@link record}/{@link release}, or throws via {@link shed}. `start` is the
   * call's clock time, read once for the window and the outcome's duration.
   */
  protected abstract admit(start: number): number;
  /**
   * Records an admitted call's outcome; returns the clock time it read for it, or NaN when it read none.
   * `now`, when given, is the clock time the call settled, already read (a breaker may use it instead of reading its own).
   */
  protected abstract record(token: number, start: number, settlement: Settlement, now?: number): number;
  /** An admitted call (started at clock time `start`) ends recording nothing. */
  protected abstract release(token: number, start: number): void;
  /** The first isolation began: force open. */
  protected abstract onIsolate(): void;
  /** Back to closed with empty counters. */
  protected abstract onReset(): void;

  /** Reports a transition (after the state has changed). */
  protected transition(from: S, to: S, reason: StateChangeReason, figure: number | undefined): void {
    if (from === to) return;
    this.last = { from, to, reason, at: this.clock.now() };
    this.subject?.next(to);
    if (this.events.observed) this.events.emit({ type: 'stateChange', policy: this.name, from, to, reason, figure });
  }

  /** Reports and throws a shed call. */
  protected shed(error: BrokenCircuitError, dropRatio: number | undefined): never {
    if (this.shadow) {
      // metricsOnly: what the breaker would have done; the call passes, and its own outcome is reported when it settles
      if (this.events.observed) {
        const state = this.state;
        if (dropRatio !== undefined) this.events.emit({ type: 'rejected', policy: this.name, state, dropRatio, enforced: false });
        else this.events.emit({ type: 'rejected', policy: this.name, state, retryAfterMs: error.retryAfterMs, enforced: false });
      }
      throw error;
    }
    if (this.events.observed) {
      const state = this.state;
      if (dropRatio !== undefined) this.events.emit({ type: 'rejected', policy: this.name, state, dropRatio });
      else this.events.emit({ type: 'rejected', policy: this.name, state, retryAfterMs: error.retryAfterMs });
      // Shed at admission: no time passed.
      this.outcome(thrownOutcome(error, undefined), 0, error, 0);
    }
    throw error;
  }

  /** What a thrown value means for the breaker: the caller's abort and a shed rejection record nothing, a passed deadline is a timeout, else `handle` decides. */
  private settlementOf(error: unknown, ctx: ExecutionContext): Settlement {
    // The caller's own abort records nothing; an enclosing deadline is a failure now.
    if (hardAborted(ctx)) return cancelledByCaller(ctx) ? RELEASE : TIMEOUT;
    if (isShedRejection(error)) return RELEASE;
    return this.handle === undefined || judge(this.handle, error) ? FAILURE : SUCCESS;
  }
}
