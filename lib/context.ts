import { deadlineTimerOf, isClock, systemClock, type Clock, type DeadlineEntry, type DeadlineTimer } from './clock.js';
import { ConfigError, isTimeoutError, TimeoutError, type ConfigIssue } from './errors.js';
import { RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from './policy.js';
import { seal } from './settle.js';

/** Something that wants to know when a scope aborts. */
export interface AbortListener {
  onAbort(scope: Scope): void;
}

const EMPTY_META: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({});

/**
 * A cancellation scope: the caller's signal, a deadline, or both, linked to an
 * enclosing scope. Internal listeners cost a field write, not an
 * `AbortController`; the `AbortSignal` users see is made only when read.
 */
// Scope state bits (one small integer where five booleans would be five fields).
const ABORTED = 1;
const BY_CALLER = 2;
const COOPERATIVE = 4;
const EXPIRED = 8;
const COOP = 16;
/** The first bit a subclass may use for its own flags. */
export const SCOPE_FREE_BIT = 32;

export class Scope implements AbortListener, DeadlineEntry {
  /** State bits: aborted, byCaller, cooperative, expired, own deadline cooperative; higher bits for subclasses. */
  protected flags: number;
  heapIndex = -1;
  /** The earliest deadline of this scope and every scope enclosing it (`Infinity`: none). */
  readonly limit: number;
  /** The earliest aggressive deadline of this scope and every scope enclosing it: the one that ends the call, not only asks. */
  readonly hardLimit: number;
  private first: AbortListener | undefined = undefined;
  /** What most scopes never need (a reason, a signal handed out, a second listener, the caller's signal), made when first needed. */
  private x: ScopeExtra | undefined = undefined;

  /**
   * @param parent enclosing scope, whose abort this one follows
   * @param callerSignal the caller's own signal (root scopes only)
   * @param at deadline in clock ms, `Infinity` for none
   * @param timer the shared timer to schedule `at` on
   * @param owner name put on the `TimeoutError` when `at` passes
   * @param coop whether this scope's own deadline is cooperative
   */
  constructor(
    private readonly parent: Scope | undefined,
    callerSignal: AbortSignal | undefined,
    readonly at: number,
    private readonly timer: DeadlineTimer | undefined,
    private readonly owner: string,
    coop: boolean,
  ) {
    this.flags = coop ? COOP : 0;
    if (callerSignal !== undefined) this.extra().callerSignal = callerSignal;
    const hardAt = coop ? Infinity : at;
    this.limit = parent === undefined || parent.limit > at ? at : parent.limit;
    this.hardLimit = parent === undefined || parent.hardLimit > hardAt ? hardAt : parent.hardLimit;
    if (parent !== undefined) {
      if (parent.aborted) {
        this.follow(parent);
        // After a cooperative abort a hard one may still come: stay linked for it.
        if (!parent.cooperative) return;
      }
      parent.add(this);
    }
    if (callerSignal !== undefined) {
      if (callerSignal.aborted) {
        this.callerAborted(callerSignal.reason);
        return;
      }
      joinSignal(callerSignal, this);
    }
    if (at !== Infinity && timer !== undefined) timer.add(this);
  }

  /** The abort reason: the caller's `signal.reason` or a `TimeoutError`; `undefined` until aborted. */
  get reason(): unknown {
    return this.x?.reason;
  }

  /** The caller's own signal this scope follows (root scopes only). */
  private get callerSignal(): AbortSignal | undefined {
    return this.x?.callerSignal;
  }

  private extra(): ScopeExtra {
    return (this.x ??= { reason: undefined, ctrl: undefined, rest: undefined, callerSignal: undefined });
  }

  /** True once aborted (by the caller, a deadline, or the enclosing scope). */
  get aborted(): boolean {
    return (this.flags & ABORTED) !== 0;
  }

  /** True when the abort came from the caller's own signal. */
  get byCaller(): boolean {
    return (this.flags & BY_CALLER) !== 0;
  }

  /** True when the abort asks the operation to stop but nobody should stop waiting for it (cooperative timeout). */
  get cooperative(): boolean {
    return (this.flags & COOPERATIVE) !== 0;
  }

  /** True when this scope's own deadline passed (not an enclosing one, not the caller). */
  get expired(): boolean {
    return (this.flags & EXPIRED) !== 0;
  }

  /** The signal operations see; made on first read. */
  get signal(): AbortSignal {
    let ctrl = this.x?.ctrl;
    if (ctrl === undefined) {
      const callerSignal = this.callerSignal;
      if (callerSignal !== undefined && this.at === Infinity && this.parent === undefined) return callerSignal;
      ctrl = this.extra().ctrl = new AbortController();
      // A user policy that builds its own context from this signal is found to be inside this scope.
      signalScopes.set(ctrl.signal, this);
      if (this.aborted) ctrl.abort(this.reason);
    }
    return ctrl.signal;
  }

  /** Adds `l`, told once when this scope next aborts; an abort that already happened is not told (read `aborted` first). */
  add(l: AbortListener): void {
    if (this.first === undefined) this.first = l;
    else (this.extra().rest ??= []).push(l);
  }

  /** Removes `l`; harmless if absent. */
  remove(l: AbortListener): void {
    const rest = this.x?.rest;
    if (this.first === l) {
      this.first = rest?.pop();
      return;
    }
    if (rest === undefined) return;
    const i = rest.indexOf(l);
    if (i >= 0) {
      rest[i] = rest[rest.length - 1]!;
      rest.pop();
    }
  }

  /** Aborts this scope and every scope and listener under it. */
  abort(reason: unknown, byCaller: boolean, cooperative: boolean): void {
    // A cooperative abort may still be hardened by a later aggressive one.
    if (this.aborted && (!this.cooperative || cooperative)) return;
    this.flags = (this.flags & ~(BY_CALLER | COOPERATIVE)) | ABORTED | (byCaller ? BY_CALLER : 0) | (cooperative ? COOPERATIVE : 0);
    const x = this.extra();
    x.reason = reason;
    // A cooperative abort keeps the links and this scope's own deadline: a later
    // hard abort (the caller, an outer deadline, or this scope's own aggressive
    // deadline under an earlier cooperative one) must still arrive.
    if (!cooperative) this.detach();
    const ctrl = x.ctrl;
    if (ctrl !== undefined && !ctrl.signal.aborted) ctrl.abort(reason);
    const first = this.first;
    const rest = x.rest;
    this.first = undefined;
    x.rest = undefined;
    if (first !== undefined) first.onAbort(this);
    if (rest !== undefined) for (const l of rest) l.onAbort(this);
  }

  /** Releases the timer entry and the links to the parent and the caller's signal. Call when the owner's call settles. */
  dispose(): void {
    this.detach();
    this.first = undefined;
    if (this.x !== undefined) this.x.rest = undefined;
  }

  /** True when `signal` is this scope's or an enclosing scope's (its own or the caller's). */
  knows(signal: AbortSignal): boolean {
    for (let s: Scope | undefined = this; s !== undefined; s = s.parent) {
      const x = s.x;
      if (x !== undefined && (x.callerSignal === signal || (x.ctrl !== undefined && x.ctrl.signal === signal))) return true;
    }
    return false;
  }

  /** @internal the enclosing scope aborted. */
  onAbort(parent: Scope): void {
    this.follow(parent);
  }

  /**
   * @internal the caller's signal aborted. A timeout reason (`AbortSignal.timeout()`'s
   * `DOMException`, or a breakwater `TimeoutError`) is an enclosing deadline passing
   * now; any other reason is the caller's own cancellation.
   */
  callerAborted(reason: unknown): void {
    if (isTimeoutReason(reason)) this.abort(new TimeoutError(this.owner, undefined, { cause: reason }), false, false);
    else this.abort(reason, true, false);
  }

  /** @internal the deadline passed. */
  expire(): void {
    this.flags |= EXPIRED;
    this.abort(new TimeoutError(this.owner), false, (this.flags & COOP) !== 0);
  }

  private follow(parent: Scope): void {
    this.abort(parent.reason, parent.byCaller, parent.cooperative);
  }

  private detach(): void {
    if (this.heapIndex >= 0) this.timer!.remove(this);
    if (this.parent !== undefined) this.parent.remove(this);
    const callerSignal = this.callerSignal;
    if (callerSignal !== undefined) leaveSignal(callerSignal, this);
  }
}

/** The fields of a {@link Scope} that most scopes never use. */
interface ScopeExtra {
  reason: unknown;
  ctrl: AbortController | undefined;
  rest: AbortListener[] | undefined;
  callerSignal: AbortSignal | undefined;
}

/** Scopes whose `signal` was handed out, by that signal. */
const signalScopes = new WeakMap<AbortSignal, Scope>();

/**
 * The one listener breakwater adds to a caller's signal, however many calls
 * share it (a process-wide shutdown signal would otherwise collect one
 * listener per call and trip Node's MaxListenersExceededWarning).
 */
class SignalHub {
  readonly scopes = new Set<Scope>();
  constructor(private readonly signal: AbortSignal) {}

  handleEvent(): void {
    hubs.delete(this.signal);
    this.signal.removeEventListener('abort', this);
    const reason = this.signal.reason;
    const scopes = [...this.scopes];
    this.scopes.clear();
    for (const scope of scopes) scope.callerAborted(reason);
  }
}

const hubs = new WeakMap<AbortSignal, SignalHub>();

function joinSignal(signal: AbortSignal, scope: Scope): void {
  let hub = hubs.get(signal);
  if (hub === undefined) {
    hub = new SignalHub(signal);
    hubs.set(signal, hub);
    signal.addEventListener('abort', hub);
  }
  hub.scopes.add(scope);
}

function leaveSignal(signal: AbortSignal, scope: Scope): void {
  const hub = hubs.get(signal);
  if (hub === undefined || !hub.scopes.delete(scope) || hub.scopes.size > 0) return;
  hubs.delete(signal);
  signal.removeEventListener('abort', hub);
}

/**
 * True for an abort reason that means "a deadline passed": what
 * `AbortSignal.timeout()` aborts with (a `DOMException` named `TimeoutError`),
 * or a breakwater {@link TimeoutError}.
 */
export function isTimeoutReason(reason: unknown): boolean {
  if (isTimeoutError(reason)) return true;
  return typeof DOMException === 'function' && reason instanceof DOMException && reason.name === 'TimeoutError';
}

function isAbortSignal(value: unknown): value is AbortSignal {
  const s = value as AbortSignal;
  return typeof value === 'object' && value !== null && typeof s.aborted === 'boolean' && typeof s.addEventListener === 'function' && typeof s.removeEventListener === 'function';
}

/**
 * The execution context breakwater passes along a pipeline. `signal` is made
 * lazily: a call whose operation never reads it allocates no `AbortController`.
 */
export class Context implements ExecutionContext {
  private ctrl: AbortController | undefined = undefined;

  constructor(
    readonly clock: Clock,
    /** The cancellation scope, `undefined` when nothing can cancel this call. */
    readonly scope: Scope | undefined,
    readonly deadline: number | undefined,
    readonly attempt: number,
    readonly key: string | undefined,
    readonly meta: Readonly<Record<string, string>>,
    /**
     * @internal The clock time this call (attempt) entered breakwater's
     * layers, read once by the first layer that needs it ({@link startOf})
     * and shared by the layers inside, which enter it in the same turn; NaN
     * until read. The public {@link runNext} forgets it: a layer that calls it may have waited.
     */
    public start: number = NaN,
  ) {}

  get signal(): AbortSignal {
    if (this.scope !== undefined) return this.scope.signal;
    // Nothing can abort this call; still hand each call its own signal, so
    // listeners an operation forgets to remove die with the call.
    return (this.ctrl ??= new AbortController()).signal;
  }

  /** The same call, for attempt `attempt` (a later attempt starts later: its start is read anew). */
  withAttempt(attempt: number): Context {
    return attempt === this.attempt ? this : new Context(this.clock, this.scope, this.deadline, attempt, this.key, this.meta);
  }

  /** The same call under `scope` (a nearer deadline), entered now: it keeps the start. */
  withScope(scope: Scope): Context {
    const deadline = this.deadline === undefined || scope.at < this.deadline ? (scope.at === Infinity ? undefined : scope.at) : this.deadline;
    return new Context(this.clock, scope, deadline, this.attempt, this.key, this.meta, this.start);
  }
}

/**
 * The clock time `ctx`'s call entered this layer, on `clock`: the time an
 * enclosing breakwater layer read in the same turn when there is one (one
 * clock read per call, shared by every layer), else a fresh read, kept for
 * the layers inside.
 */
export function startOf(ctx: ExecutionContext, clock: Clock): number {
  if (ctx instanceof Context && ctx.clock === clock) {
    const s = ctx.start;
    return s === s ? s : (ctx.start = clock.now());
  }
  return clock.now();
}

/**
 * Turns any {@link ExecutionContext} (a user policy may make its own, or
 * spread ours: `{ ...ctx, deadline }`) into breakwater's `Context`. The
 * enclosing scope is found from the spread `scope` or from the signal, so the
 * caller's abort and every enclosing deadline still reach the call, and the
 * deadline shown inside is never later than the enclosing one. A nearer
 * deadline, or a signal of the user's own, gets a scope of its own; the
 * caller of `toContext` owns it (see {@link runNext}).
 */
export function toContext(ctx: ExecutionContext): Context {
  if (ctx instanceof Context) return ctx;
  const copied = (ctx as { scope?: unknown }).scope;
  // A spread Context has no `signal` (a getter of Context's prototype).
  const signal: unknown = (ctx as { signal?: unknown }).signal;
  let parent = copied instanceof Scope ? copied : undefined;
  let foreign: AbortSignal | undefined;
  if (isAbortSignal(signal)) {
    if (parent === undefined) parent = signalScopes.get(signal);
    if (parent === undefined || !parent.knows(signal)) foreign = signal;
  }
  const clock = isClock(ctx.clock) ? ctx.clock : systemClock;
  const asked = typeof ctx.deadline === 'number' && ctx.deadline === ctx.deadline ? ctx.deadline : Infinity;
  const enclosing = parent === undefined ? Infinity : parent.limit;
  const own = asked < enclosing ? asked : Infinity;
  const at = own < enclosing ? own : enclosing;
  const deadline = at === Infinity ? undefined : at;
  const attempt = typeof ctx.attempt === 'number' && ctx.attempt >= 1 ? ctx.attempt : 1;
  const key = typeof ctx.key === 'string' ? ctx.key : undefined;
  const meta = typeof ctx.meta === 'object' && ctx.meta !== null ? ctx.meta : EMPTY_META;
  made = undefined;
  if (own === Infinity && foreign === undefined) return new Context(clock, parent, deadline, attempt, key, meta);
  const scope = new Scope(parent, foreign, own, own === Infinity ? undefined : deadlineTimerOf(clock), 'deadline', false);
  made = scope;
  return new Context(clock, scope, deadline, attempt, key, meta);
}

/** The scope the last {@link toContext} call made, if it made one (read at once by its caller). */
let made: Scope | undefined;

/** True when `ctx` was cancelled by the caller itself (not by a deadline): nothing is recorded, retried or answered. */
export function cancelledByCaller(ctx: ExecutionContext): boolean {
  if (ctx instanceof Context) {
    // Reading ctx.signal would make an AbortController; the scope already knows.
    const scope = ctx.scope;
    return scope !== undefined && scope.aborted && scope.byCaller;
  }
  return ctx.signal.aborted && !isTimeoutReason(ctx.signal.reason);
}

/** True when `ctx` has been cancelled in a way callers stop waiting for (the caller, or an aggressive deadline). */
export function hardAborted(ctx: ExecutionContext): boolean {
  if (ctx instanceof Context) {
    const scope = ctx.scope;
    return scope !== undefined && scope.aborted && !scope.cooperative;
  }
  return ctx.signal.aborted;
}

/**
 * Calls the rest of a chain: `next`'s policy, or the operation itself when
 * `next` is `undefined`. A policy's `[RUN]` calls its inner layers only
 * through this. The operation may return a value or a thenable, or throw
 * synchronously: each becomes a promise. When the call can be cancelled,
 * the promise settles at once on cancellation, whatever the operation does;
 * once the caller or an aggressive deadline has given up, the operation is
 * not started at all.
 */
export function runNext<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
  // Whoever calls this may have waited since the call's start was read, and the promise it gets
  // back passes through its hands: the layers around it read their own time and settle on their own.
  if (ctx instanceof Context) ctx.start = NaN;
  const inner = callNext(op, ctx, next);
  seal();
  return inner;
}

/**
 * @internal What {@link runNext} does, for breakwater's own layers: they
 * call the layers inside in the same turn as they entered, so the call's
 * start stays shared, and they may take steps on the promise that comes
 * back (lib/settle.ts).
 */
export function callNext<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
  // A context a user policy made (or spread) becomes ours here, so every policy's [RUN] and the operation get a Context.
  if (!(ctx instanceof Context)) return adopt(op, ctx, next);
  if (next !== undefined) return next.policy[RUN](op, ctx, next.next) as Promise<R>;
  const scope = ctx.scope;
  if (scope !== undefined && scope.aborted && !scope.cooperative) return Promise.reject(scope.reason);
  let value: R | PromiseLike<R>;
  try {
    value = op(ctx);
  } catch (error) {
    return Promise.reject(error);
  }
  if (scope === undefined) return Promise.resolve(value);
  return new Guard<R>(scope, false, RACE_ALL).watch(value);
}

/** Runs the rest of the chain in a user policy's own context; a scope made for it ends (and is released) with that call. */
function adopt<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
  const c = toContext(ctx);
  const scope = made;
  made = undefined;
  let inner: Promise<R>;
  try {
    inner = runNext(op, c, next);
  } catch (error) {
    inner = Promise.reject(error);
  }
  if (scope === undefined) return inner;
  return new Guard<R>(scope, true, RACE_OWN).watch(inner);
}

/** Guard modes: which hard aborts of the scope settle the guarded promise at once. */
/** Every one: the guarded value is the operation (or a wait), which may never settle. */
export const RACE_ALL = 0;
/** The caller's own cancellation and the scope's own deadline; an enclosing deadline reaches the layers inside, which settle. */
export const RACE_OWN = 1;
/** Only the caller's own cancellation: the root of a call, so a fallback inside may answer the call's deadline. */
export const RACE_CALLER = 2;

/**
 * Settles with the first of: the watched value, or the scope's abort (as
 * `mode` says; a cooperative abort never settles it, a later hard one may).
 */
export class Guard<R> implements AbortListener {
  /** The guarded promise. */
  readonly promise: Promise<R>;
  private resolve!: (value: R) => void;
  private reject!: (error: unknown) => void;
  /** True once the guarded promise has settled. */
  protected settled = false;

  constructor(
    readonly scope: Scope,
    private readonly disposeScope: boolean,
    private readonly mode: number = RACE_ALL,
  ) {
    this.promise = new Promise<R>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Starts watching `value`; returns the guarded promise. */
  watch(value: R | PromiseLike<R>): Promise<R> {
    if (this.races(this.scope)) {
      this.fail(this.scope.reason);
      // The abandoned value may still reject; nobody may see that as unhandled.
      Promise.resolve(value).then(undefined, noop);
      return this.promise;
    }
    // Hard-aborted already but not ours to race: the value settles soon, from the layers inside.
    if (!this.scope.aborted || this.scope.cooperative) this.scope.add(this);
    Promise.resolve(value).then(this.ok, this.err);
    return this.promise;
  }

  onAbort(scope: Scope): void {
    if (this.races(scope)) this.fail(scope.reason);
    // A cooperative abort: keep listening, a later hard abort may still settle us.
    else if (scope.cooperative) scope.add(this);
  }

  private races(scope: Scope): boolean {
    if (!scope.aborted || scope.cooperative) return false;
    const mode = this.mode;
    return mode === RACE_ALL || scope.byCaller || (mode === RACE_OWN && scope.expired);
  }

  /** Called with the value's outcome; override to map it. */
  protected settleOk(value: R): void {
    this.finish();
    this.resolve(value);
  }

  /** Called with the value's rejection; override to map it. */
  protected settleErr(error: unknown): void {
    this.finish();
    this.reject(error);
  }

  /** Rejects now, leaving the watched value to settle unobserved. */
  protected fail(error: unknown): void {
    if (this.settled) return;
    this.finish();
    this.reject(error);
  }

  private finish(): void {
    this.settled = true;
    if (this.disposeScope) this.scope.dispose();
    else this.scope.remove(this);
  }

  private readonly ok = (value: R): void => {
    if (!this.settled) this.settleOk(value);
  };

  private readonly err = (error: unknown): void => {
    if (!this.settled) this.settleErr(error);
  };
}

function noop(): void {}

/** The rejection for a caller's signal that had already aborted: a timeout reason is a deadline that has passed. */
function abortedBefore(reason: unknown, owner: string): unknown {
  return isTimeoutReason(reason) ? new TimeoutError(owner, undefined, { cause: reason }) : reason;
}

/** Why an execute option is refused, or `undefined` when it is fine. */
function badOption(options: ExecuteOptions): ConfigIssue | undefined {
  const { signal, timeout, deadline, key, meta } = options;
  if (timeout !== undefined && !(typeof timeout === 'number' && timeout >= 0 && timeout !== Infinity)) {
    return { path: 'timeout', message: `expected a finite number of milliseconds >= 0, got ${describe(timeout)}` };
  }
  if (deadline !== undefined && !(typeof deadline === 'number' && deadline >= 0 && deadline !== Infinity)) {
    return { path: 'deadline', message: `expected a finite clock time in epoch milliseconds >= 0, got ${describe(deadline)}` };
  }
  if (signal !== undefined && !isAbortSignal(signal)) return { path: 'signal', message: `expected an AbortSignal, got ${describe(signal)}` };
  if (key !== undefined && typeof key !== 'string') return { path: 'key', message: `expected a string, got ${describe(key)}` };
  if (meta !== undefined && (typeof meta !== 'object' || meta === null)) return { path: 'meta', message: `expected an object of string labels, got ${describe(meta)}` };
  return undefined;
}

function describe(value: unknown): string {
  return typeof value === 'string' ? `the string '${value}'` : typeof value === 'object' && value !== null ? 'an object' : String(value);
}

/**
 * Implements {@link Policy.execute} for a policy: builds the root context
 * from `options` (caller signal, timeout, deadline, key, meta) and runs the
 * policy's `[RUN]` in it. Runs nothing when the call is over before it
 * starts: a caller signal that is already aborted rejects at once with its
 * reason (a timeout reason as a `TimeoutError`), a deadline already past
 * (or `timeout: 0`) with a `TimeoutError`. Bad options reject with a
 * `ConfigError` naming the option; `execute` never throws.
 */
export function executeWith<R, T>(
  policy: Policy<T>,
  op: Operation<R>,
  options: ExecuteOptions | undefined,
  clock: Clock,
): Promise<R | T> {
  if (options === undefined) {
    return policy[RUN](op, new Context(clock, undefined, undefined, 1, undefined, EMPTY_META), undefined);
  }
  if (typeof options !== 'object' || options === null) {
    return Promise.reject(new ConfigError(policy.name, [{ path: 'execute', message: `expected an object of execute options, got ${describe(options)}` }]));
  }
  const problem = badOption(options);
  if (problem !== undefined) return Promise.reject(new ConfigError(policy.name, [{ path: `execute.${problem.path}`, message: problem.message }]));
  const { signal, key, meta, timeout, deadline } = options;
  if (signal?.aborted) return Promise.reject(abortedBefore(signal.reason, policy.name));
  let at = deadline ?? Infinity;
  let now = NaN;
  if (timeout !== undefined || deadline !== undefined) {
    now = clock.now();
    // The nearer of the two governs.
    if (timeout !== undefined && now + timeout < at) at = now + timeout;
    if (at <= now) return Promise.reject(new TimeoutError(policy.name));
  }
  if (signal === undefined && at === Infinity) {
    return policy[RUN](op, new Context(clock, undefined, undefined, 1, key, meta ?? EMPTY_META), undefined);
  }
  const scope = new Scope(undefined, signal, at, at === Infinity ? undefined : deadlineTimerOf(clock), policy.name, false);
  // The time read for the deadline is the call's start, for every layer.
  const ctx = new Context(clock, scope, at === Infinity ? undefined : at, 1, key, meta ?? EMPTY_META, now);
  let inner: Promise<R | T>;
  try {
    inner = policy[RUN](op, ctx, undefined);
  } catch (error) {
    scope.dispose();
    return Promise.reject(error);
  }
  return new Guard<R | T>(scope, true, RACE_CALLER).watch(inner);
}

export { EMPTY_META };
