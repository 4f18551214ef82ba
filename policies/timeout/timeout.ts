import { PolicyBase } from '../../lib/base.js';
import { deadlineTimerOf, systemClock, type Clock, type DeadlineTimer } from '../../lib/clock.js';
import { callNext, Context, EMPTY_META, Scope, SCOPE_FREE_BIT, startOf, toContext } from '../../lib/context.js';
import { TimeoutError } from '../../lib/errors.js';
import { settledOutcome } from '../../lib/outcome.js';
import { checkOptions, omit } from '../../lib/options.js';
import { RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { offer, runSteps, withdraw, type Settling, type Step } from '../../lib/settle.js';
import { timeoutOptions, type TimeoutOptions } from './options.js';

const reconfigurable = /* @__PURE__ */ omit(timeoutOptions, ['clock', 'name']);

/**
 * Bounds how long a call may take and propagates the deadline inward: it sets
 * `ctx.deadline = min(outer deadline, now + ms)` and aborts `ctx.signal` when
 * it passes. An inner timeout never extends an outer deadline. All pending
 * deadlines of a clock share one real timer.
 *
 * @example
 * ```ts
 * const t = timeout(300);
 * await t.execute((ctx) => fetch(url, { signal: ctx.signal }));
 * ```
 */
export class TimeoutPolicy extends PolicyBase {
  private _ms: number;
  private _mode: 'aggressive' | 'cooperative';
  private readonly timer: DeadlineTimer;
  /** What a call reads and calls of this timeout; only the calls hold it. */
  private readonly calls: TimeoutOwner = {
    name: this.name,
    clock: this.clock,
    report: (call, start, thrown, error, own) => this.report(call, start, thrown, error, own),
  };

  constructor(options: number | TimeoutOptions) {
    const o = checkOptions(timeoutOptions, typeof options === 'object' && options !== null ? options : { ms: options }, 'timeout');
    super(o.name, o.clock ?? systemClock);
    this._ms = o.ms;
    this._mode = o.mode;
    this.timer = deadlineTimerOf(this.clock);
  }

  /** Milliseconds each call may take. */
  get ms(): number {
    return this._ms;
  }

  /** `'aggressive'` or `'cooperative'`. */
  get mode(): 'aggressive' | 'cooperative' {
    return this._mode;
  }

  /**
   * Changes `ms` and `mode` for calls that start from now on (hot reload);
   * validated like the constructor's options, and nothing changes if they are invalid.
   */
  reconfigure(options: number | Omit<TimeoutOptions, 'clock' | 'name'>): void {
    const o = checkOptions(reconfigurable, typeof options === 'object' && options !== null ? options : { ms: options }, this.name);
    this._ms = o.ms;
    this._mode = o.mode;
  }

  override execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R> {
    if (options !== undefined) return super.execute(op, options);
    // Nothing encloses the call: its context is the timeout's own, with no root context before it.
    const start = this.clock.now();
    const at = start + this._ms;
    const call = new TimeoutCall<R>(undefined, at, this.timer, this.calls, start, this._mode === 'cooperative');
    return this.race(op, new Context(this.clock, call, at, 1, undefined, EMPTY_META, start), undefined, call);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    const start = startOf(c, this.clock);
    const at = start + this._ms;
    const coop = this._mode === 'cooperative';
    const scope = c.scope;
    // An enclosing deadline at or before this one that binds at least as hard governs: this one
    // adds nothing but its outcome. An earlier cooperative deadline only asks, so an aggressive
    // timeout inside it still arms, or an operation that ignores its signal would hang the call.
    if (scope !== undefined && (coop ? scope.limit : scope.hardLimit) <= at) return this.pass(op, c, next, start);
    const call = new TimeoutCall<R>(scope, at, this.timer, this.calls, start, coop);
    return this.race(op, c.withScope(call), next, call);
  }

  private race<R>(op: Operation<R>, child: Context, next: Chain | undefined, call: TimeoutCall<R>): Promise<R> {
    let inner: R | PromiseLike<R>;
    try {
      // The call already races the operation against its scope: call it directly, not through a second race.
      if (next === undefined) {
        call.guardsOperation();
        inner = op(child);
      } else inner = callNext(op, child, next);
    } catch (error) {
      inner = Promise.reject(error);
    }
    return call.watch(inner);
  }

  /** Runs the call under the enclosing deadline that governs it, reporting its outcome. */
  private pass<R>(op: Operation<R>, c: Context, next: Chain | undefined, start: number): Promise<R> {
    const scope = c.scope!;
    return callNext(op, c, next).then(
      (value) => {
        this.report(scope, start, false, undefined, false);
        return value;
      },
      (error: unknown) => {
        this.report(scope, start, true, error, false);
        throw error;
      },
    );
  }

  /**
   * Reports a call that settled: with a value, or having thrown `error`, under `call`'s
   * scope. The `timeout` event is for this timeout's own deadline (`own`), not an enclosing one it deferred to.
   */
  private report(call: Scope, start: number, thrown: boolean, error?: unknown, own = true): number {
    if (!this.events.observed) return NaN;
    const now = this.clock.now();
    if (thrown && own && call.expired) this.events.emit({ type: 'timeout', policy: this.name, timeoutMs: this._ms, mode: this._mode });
    this.outcome(settledOutcome(thrown, error, call), start, error, now);
    return now;
  }
}

/** What a call needs of its timeout: the name for its `TimeoutError`, its clock, and where to report its outcome (returning the clock time it read, NaN for none). */
interface TimeoutOwner {
  readonly name: string;
  readonly clock: Clock;
  report(call: Scope, start: number, thrown: boolean, error?: unknown, own?: boolean): number;
}

// The executor of every call's promise: one shared function instead of a closure per call.
let capturedResolve: ((value: never) => void) | undefined;
let capturedReject: ((error: unknown) => void) | undefined;
function capture(resolve: (value: never) => void, reject: (error: unknown) => void): void {
  capturedResolve = resolve;
  capturedReject = reject;
}

/**
 * One call through a timeout: its cancellation scope and, in the same
 * object, the race of the operation against it (one allocation where a
 * scope and a guard would be two). Settles with the operation's outcome,
 * or at once when the scope aborts hard (this deadline if aggressive, an
 * enclosing one, the caller). Its promise is offered to the breakwater
 * layers around it, which register their steps on it (lib/settle.ts):
 * the whole call then settles once, through this promise.
 */
class TimeoutCall<R> extends Scope implements Settling {
  // Declared, not initialised: Scope's constructor may abort (an enclosing scope
  // already aborted) before these exist; `watch` then settles.
  declare readonly promise: Promise<R>;
  declare private resolve: (value: R) => void;
  declare private reject: (error: unknown) => void;
  declare private readonly policy: TimeoutOwner;
  declare private readonly start: number;
  /** The steps of the layers around this call, innermost first. */
  declare private steps: Step | undefined;

  constructor(parent: Scope | undefined, at: number, timer: DeadlineTimer, policy: TimeoutOwner, start: number, coop: boolean) {
    super(parent, undefined, at, timer, policy.name, coop);
    this.promise = new Promise<R>(capture);
    this.resolve = capturedResolve as (value: R) => void;
    this.reject = capturedReject as (error: unknown) => void;
    this.policy = policy;
    this.start = start;
    this.steps = undefined;
  }

  /** Starts watching the operation's `value`; returns the call's promise. */
  watch(value: R | PromiseLike<R>): Promise<R> {
    if (this.races()) this.fail(this.reason);
    if (this.settled) {
      // The abandoned value may still reject; nobody may see that as unhandled.
      Promise.resolve(value).then(undefined, noop);
      return this.promise;
    }
    // Bound methods: two small objects, where two arrow functions would also need a context.
    Promise.resolve(value).then(this.ok.bind(this), this.err.bind(this));
    offer(this);
    return this.promise;
  }

  /** Registers the step of a layer around this call, outermost so far; false once settled. */
  push(step: Step): boolean {
    if (this.settled) return false;
    let s = this.steps;
    if (s === undefined) this.steps = step;
    else {
      while (s.outer !== undefined) s = s.outer;
      s.outer = step;
    }
    return true;
  }

  override abort(reason: unknown, byCaller: boolean, cooperative: boolean): void {
    super.abort(reason, byCaller, cooperative);
    // Before the constructor has finished there is nothing to settle yet (watch does it).
    if (this.promise !== undefined && this.races()) this.fail(this.reason);
  }

  /** Marks this call as the one watching the operation itself (no policy between them). */
  guardsOperation(): void {
    this.flags |= GUARDS_OPERATION;
  }

  /**
   * Whether the abort ends the call now: the caller's cancellation and this
   * timeout's own aggressive deadline do; an enclosing deadline reaches the
   * layers inside, which settle (a fallback there may answer it), unless
   * nothing but the operation is inside.
   */
  private races(): boolean {
    if (!this.aborted || this.cooperative) return false;
    return (this.flags & GUARDS_OPERATION) !== 0 || this.byCaller || this.expired;
  }

  private ok(value: R): void {
    if (this.settled) return;
    const at = this.policy.report(this, this.start, false);
    this.finish();
    const steps = this.steps;
    if (steps === undefined) this.resolve(value);
    else runSteps(steps, false, value, this.resolve as (value: never) => void, this.reject, this.policy.clock, at);
  }

  private err(error: unknown): void {
    if (this.settled) return;
    // cooperative: the operation gave up after our deadline
    if (this.expired) error = new TimeoutError(this.policy.name, undefined, { cause: error });
    const at = this.policy.report(this, this.start, true, error);
    this.finish();
    const steps = this.steps;
    if (steps === undefined) this.reject(error);
    else runSteps(steps, true, error, this.resolve as (value: never) => void, this.reject, this.policy.clock, at);
  }

  /** Rejects now, leaving the watched value to settle unobserved. */
  private fail(error: unknown): void {
    if (this.settled) return;
    this.policy.report(this, this.start, true, error);
    this.finish();
    const steps = this.steps;
    if (steps === undefined) this.reject(error);
    // An abort (a timer, the caller's signal) is no place to run the layers around: they run next, as a rejection's handlers would.
    else queueMicrotask(() => runSteps(steps, true, error, this.resolve as (value: never) => void, this.reject, undefined, NaN));
  }

  private get settled(): boolean {
    return (this.flags & SETTLED) !== 0;
  }

  private finish(): void {
    this.flags |= SETTLED;
    this.dispose();
    withdraw(this);
  }
}

function noop(): void {}

const SETTLED = SCOPE_FREE_BIT;
const GUARDS_OPERATION = SCOPE_FREE_BIT << 1;

/**
 * Makes a {@link TimeoutPolicy}: `timeout(300)` or `timeout({ ms: 300, mode: 'cooperative' })`.
 *
 * @example
 * ```ts
 * const p = policy().timeout(300).retry({ maxAttempts: 3 }); // 300 ms per attempt
 * ```
 */
export function timeout(options: number | TimeoutOptions): TimeoutPolicy {
  return new TimeoutPolicy(options);
}
