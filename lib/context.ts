import { deadlineTimerOf, type Clock, type DeadlineEntry, type DeadlineTimer } from './clock.js';
import { TimeoutError } from './errors.js';
import { RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from './policy.js';

/** Something that wants to know when a scope aborts. */
export interface AbortListener {
  onAbort(scope: Scope): void;
}

const EMPTY_META: Readonly<Record<string, string>> = Object.freeze({});

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
  /** The abort reason: the caller's `signal.reason` or a `TimeoutError`. */
  reason: unknown = undefined;
  heapIndex = -1;
  private ctrl: AbortController | undefined = undefined;
  private first: AbortListener | undefined = undefined;
  private rest: AbortListener[] | undefined = undefined;

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
    private readonly callerSignal: AbortSignal | undefined,
    readonly at: number,
    private readonly timer: DeadlineTimer | undefined,
    private readonly owner: string,
    coop: boolean,
  ) {
    this.flags = coop ? COOP : 0;
    if (parent !== undefined) {
      if (parent.aborted) {
        this.follow(parent);
        // After a cooperative abort a hard one may still come: stay linked for it.
        if (!parent.cooperative) return;
      }
      parent.add(this);
    }
    if (callerSignal !== undefined) callerSignal.addEventListener('abort', this);
    if (at !== Infinity && timer !== undefined) timer.add(this);
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
    if (this.ctrl === undefined) {
      if (this.callerSignal !== undefined && this.at === Infinity) return this.callerSignal;
      this.ctrl = new AbortController();
      if (this.aborted) this.ctrl.abort(this.reason);
    }
    return this.ctrl.signal;
  }

  /** Adds `l`, told once when this scope aborts (at once if it already has). */
  add(l: AbortListener): void {
    if (this.first === undefined) this.first = l;
    else (this.rest ??= []).push(l);
  }

  /** Removes `l`; harmless if absent. */
  remove(l: AbortListener): void {
    if (this.first === l) {
      this.first = this.rest?.pop();
      return;
    }
    const rest = this.rest;
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
    this.reason = reason;
    // A cooperative abort keeps the links: a later hard abort must still arrive.
    if (cooperative) {
      if (this.heapIndex >= 0) this.timer!.remove(this);
    } else this.detach();
    if (this.ctrl !== undefined && !this.ctrl.signal.aborted) this.ctrl.abort(reason);
    const first = this.first;
    const rest = this.rest;
    this.first = undefined;
    this.rest = undefined;
    if (first !== undefined) first.onAbort(this);
    if (rest !== undefined) for (const l of rest) l.onAbort(this);
  }

  /** Releases the timer entry and the links to the parent and the caller's signal. Call when the owner's call settles. */
  dispose(): void {
    this.detach();
    this.first = undefined;
    this.rest = undefined;
  }

  /** @internal the enclosing scope aborted. */
  onAbort(parent: Scope): void {
    this.follow(parent);
  }

  /** @internal the caller's signal aborted. */
  handleEvent(): void {
    this.abort(this.callerSignal!.reason, true, false);
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
    if (this.callerSignal !== undefined) this.callerSignal.removeEventListener('abort', this);
  }
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
  ) {}

  get signal(): AbortSignal {
    if (this.scope !== undefined) return this.scope.signal;
    // Nothing can abort this call; still hand each call its own signal, so
    // listeners an operation forgets to remove die with the call.
    return (this.ctrl ??= new AbortController()).signal;
  }

  /** The same call, for attempt `attempt`. */
  withAttempt(attempt: number): Context {
    return attempt === this.attempt ? this : new Context(this.clock, this.scope, this.deadline, attempt, this.key, this.meta);
  }

  /** The same call under `scope` (a nearer deadline). */
  withScope(scope: Scope): Context {
    const deadline = scope.at === Infinity ? this.deadline : scope.at;
    return new Context(this.clock, scope, deadline, this.attempt, this.key, this.meta);
  }
}

/**
 * Turns any {@link ExecutionContext} (a user policy may make its own, or
 * spread ours: `{ ...ctx, deadline }`) into breakwater's `Context`. Its
 * deadline is enforced here: a policy inside defers to an earlier enclosing
 * deadline, which only works if something ends the call at it. A spread
 * context keeps the scope it copied (the caller's abort still reaches it).
 */
export function toContext(ctx: ExecutionContext): Context {
  if (ctx instanceof Context) return ctx;
  const copied = (ctx as { scope?: unknown }).scope;
  const parent = copied instanceof Scope ? copied : undefined;
  // A spread Context has no `signal` (a getter of Context's prototype).
  const signal = (ctx as { signal?: AbortSignal }).signal;
  const at = ctx.deadline ?? Infinity;
  const scope = new Scope(parent, signal, at, at === Infinity ? undefined : deadlineTimerOf(ctx.clock), '', false);
  if (signal?.aborted) scope.abort(signal.reason, true, false);
  return new Context(ctx.clock, scope, ctx.deadline, ctx.attempt, ctx.key, ctx.meta);
}

/** True when `ctx` was cancelled by the caller itself (not by a deadline): nothing is recorded, retried or answered. */
export function cancelledByCaller(ctx: ExecutionContext): boolean {
  if (ctx instanceof Context) {
    // Reading ctx.signal would make an AbortController; the scope already knows.
    const scope = ctx.scope;
    return scope !== undefined && scope.aborted && scope.byCaller;
  }
  return ctx.signal.aborted && !(ctx.signal.reason instanceof TimeoutError);
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
 * the promise settles at once on cancellation, whatever the operation does.
 */
export function runNext<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
  // A context a user policy made (or spread) becomes ours here, so every policy's [RUN] gets a Context.
  if (next !== undefined) return next.policy[RUN](op, ctx instanceof Context ? ctx : toContext(ctx), next.next) as Promise<R>;
  const scope = (ctx as Context).scope;
  if (scope !== undefined && scope.aborted && !scope.cooperative) return Promise.reject(scope.reason);
  let value: R | PromiseLike<R>;
  try {
    value = op(ctx);
  } catch (error) {
    return Promise.reject(error);
  }
  if (scope === undefined) return Promise.resolve(value);
  return new Guard<R>(scope, false).watch(value);
}

/**
 * Settles with the first of: the watched value, or the scope's abort. With
 * `cooperative`, an abort of the scope's own (cooperative) deadline does not
 * settle it; the value does.
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
  ) {
    this.promise = new Promise<R>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Starts watching `value`; returns the guarded promise. */
  watch(value: R | PromiseLike<R>): Promise<R> {
    if (this.scope.aborted && !this.scope.cooperative) {
      this.fail(this.scope.reason);
      // The abandoned value may still reject; nobody may see that as unhandled.
      Promise.resolve(value).then(undefined, noop);
      return this.promise;
    }
    this.scope.add(this);
    Promise.resolve(value).then(this.ok, this.err);
    return this.promise;
  }

  onAbort(scope: Scope): void {
    if (scope.cooperative) {
      // keep listening: a later hard abort still settles us
      scope.add(this);
      return;
    }
    this.fail(scope.reason);
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

/**
 * Implements {@link Policy.execute} for a policy: builds the root context
 * from `options` (caller signal, timeout, deadline, key, meta) and runs the
 * policy's `[RUN]` in it. A caller signal that is already aborted rejects at
 * once with its reason, running nothing.
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
  const { signal, key, meta } = options;
  if (signal?.aborted) return Promise.reject(signal.reason);
  let at = Infinity;
  if (options.deadline !== undefined) at = options.deadline;
  if (options.timeout !== undefined) at = Math.min(at, clock.now() + options.timeout);
  if (Number.isNaN(at)) return Promise.reject(new TypeError('execute: timeout and deadline must be numbers'));
  if (signal === undefined && at === Infinity) {
    return policy[RUN](op, new Context(clock, undefined, undefined, 1, key, meta ?? EMPTY_META), undefined);
  }
  const scope = new Scope(undefined, signal, at, at === Infinity ? undefined : deadlineTimerOf(clock), policy.name, false);
  const ctx = new Context(clock, scope, at === Infinity ? undefined : at, 1, key, meta ?? EMPTY_META);
  let inner: Promise<R | T>;
  try {
    inner = policy[RUN](op, ctx, undefined);
  } catch (error) {
    scope.dispose();
    return Promise.reject(error);
  }
  return new Guard<R | T>(scope, true).watch(inner);
}

export { EMPTY_META };
