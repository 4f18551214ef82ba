import { PolicyBase } from '../../lib/base.js';
import type { Clock } from '../../lib/clock.js';
import { callNext, cancelledByCaller, startOf } from '../../lib/context.js';
import { ConfigError } from '../../lib/errors.js';
import type { OutcomeResult, PolicyEvent } from '../../lib/events.js';
import { judge } from '../../lib/judge.js';
import { checkOptions, Findings } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { settledAt, settlingOf, Step } from '../../lib/settle.js';
import { fallbackOptions, handlerRule, type FallbackHandler, type FallbackOptions } from './options.js';

/**
 * Answers a failed call from one or more handlers, tried in order. When
 * every handler fails, the original thrown value is rethrown,
 * unchanged, and the handlers' errors are reported in a `fallbackFailed`
 * event. The caller's own cancellation is never answered, and no handler
 * starts once the call's signal has aborted.
 *
 * @typeParam T - the union of the handlers' answer types.
 * @example
 * ```ts
 * const f = fallbackChain(() => cache.get(id), () => replica.get(id), () => DEFAULT_USER);
 * ```
 */
export class FallbackPolicy<T> extends PolicyBase<T, PolicyEvent, Clock | undefined> {
  private handle: ((error: unknown) => boolean) | undefined;
  private handleResult: ((result: unknown) => boolean) | undefined;
  /**
   * @internal the clock of `execute`'s root context and of durations;
   * without one, the context's (a pipeline's, which reads this field first).
   */
  declare readonly clock: Clock | undefined;

  constructor(
    private handlers: readonly FallbackHandler<T>[],
    options: FallbackOptions = {},
    /** The factory, for option errors. */
    factory: 'fallback' | 'fallbackChain' = 'fallback',
  ) {
    const o = checkOptions(fallbackOptions, options, factory);
    super(o.name ?? (handlers.length === 1 ? 'fallback' : 'fallbackChain'), o.clock);
    this.handle = o.handle;
    this.handleResult = o.handleResult;
  }

  /**
   * Hot reload: new handlers (as many or not: a chain may grow or shrink) and new `handle` and `handleResult`,
   * from the next failure on; failures being answered finish with the handlers they began with. The answer type
   * stays the one the policy was made with. Bad handlers or options are a `ConfigError` and change nothing.
   */
  reconfigure(handlers: readonly FallbackHandler<T>[], options: Omit<FallbackOptions, 'clock' | 'name'> = {}): void {
    checkHandlers(handlers, this.name);
    const o = checkOptions(fallbackOptions, options, this.name);
    this.handlers = [...handlers];
    this.handle = o.handle;
    this.handleResult = o.handleResult;
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T> {
    if (this.handleResult !== undefined) return this.run(op, ctx, next);
    // No result to judge: pass the inner promise through with handlers attached
    // (no async frame); with nobody listening, only a rejection handler.
    // Read whether or not anyone listens: a subscriber may join before a failure is answered.
    const start = startOf(ctx, this.clock ?? ctx.clock);
    let inner: Promise<R>;
    try {
      inner = callNext(op, ctx, next);
    } catch (error) {
      return this.failed(error, ctx, start);
    }
    // One settlement for the call: a step on the inner layer's promise instead of a promise of our own.
    const s = settlingOf(inner);
    if (s !== undefined && s.push(new FallbackStep(this, ctx, start))) return inner;
    const observed = this.events.observed;
    const onFailure = (error: unknown) => this.failed(error, ctx, start);
    if (!observed) return inner.then(undefined, onFailure);
    return inner.then((value) => {
      if (this.events.observed) this.report(ctx, 'success', start);
      return value;
    }, onFailure);
  }

  private async run<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T> {
    const start = startOf(ctx, this.clock ?? ctx.clock);
    let failure: unknown;
    try {
      const value = await callNext(op, ctx, next);
      if (this.handleResult === undefined || !judge(this.handleResult, value)) {
        if (this.events.observed) this.report(ctx, 'success', start);
        return value;
      }
      failure = value;
    } catch (error) {
      return this.failed(error, ctx, start);
    }
    return this.answer(failure, false, ctx, start);
  }

  /** @internal The inner call answered (through a step): report it. */
  stepValue(ctx: ExecutionContext, start: number): void {
    if (this.events.observed) this.outcome('success', start, undefined, settledAt(this.clock ?? ctx.clock));
  }

  /** @internal The inner call threw `error`: rethrow it (the caller's cancellation, or not handled) or answer it. */
  failed(error: unknown, ctx: ExecutionContext, start: number): Promise<T> {
    // The caller's own cancellation is never answered; a deadline that passed is (the handlers see an aborted signal).
    if (cancelledByCaller(ctx) || (this.handle !== undefined && !judge(this.handle, error))) {
      if (this.events.observed) this.report(ctx, thrownOutcome(error, ctx), start, error);
      return Promise.reject(error);
    }
    return this.answer(error, true, ctx, start);
  }

  /** Tries the handlers on `failure`: a thrown value, or (`thrown` false) a result `handleResult` judged a failure. */
  private async answer(failure: unknown, thrown: boolean, ctx: ExecutionContext, start: number): Promise<T> {
    const handlerErrors: unknown[] = [];
    const handlers = this.handlers;
    for (let i = 0; i < handlers.length; i++) {
      // Nothing answers once the caller has given up.
      if (cancelledByCaller(ctx)) break;
      try {
        const answer = await handlers[i]!(failure, ctx);
        if (this.events.observed) {
          this.events.emit({ type: 'fallback', policy: this.name, handler: i, error: failure });
          this.report(ctx, 'fallback', start, failure);
        }
        return answer;
      } catch (handlerError) {
        handlerErrors.push(handlerError);
      }
    }
    if (this.events.observed) {
      this.events.emit({ type: 'fallbackFailed', policy: this.name, error: failure, handlerErrors });
      // What the caller gets is the original failure: it counts as that (a result judged a failure stays one).
      this.report(ctx, thrown ? thrownOutcome(failure, ctx) : 'failure', start, failure);
    }
    throw failure;
  }

  /** Reports the call's outcome, timed on this policy's clock or else the context's. */
  private report(ctx: ExecutionContext, result: OutcomeResult, start: number, error?: unknown): void {
    this.outcome(result, start, error, (this.clock ?? ctx.clock).now());
  }
}

/** What a fallback does with its call's outcome, as a step of the call's one settlement. */
class FallbackStep<T> extends Step {
  constructor(
    private readonly policy: FallbackPolicy<T>,
    private readonly ctx: ExecutionContext,
    private readonly start: number,
  ) {
    super();
  }

  onValue(value: unknown): unknown {
    this.policy.stepValue(this.ctx, this.start);
    return value;
  }

  onError(error: unknown): unknown {
    return this.policy.failed(error, this.ctx, this.start);
  }
}

function checkHandlers(handlers: readonly unknown[], policy: string): void {
  if (handlers.length === 0) throw new ConfigError(policy, [{ path: '', message: 'expected at least one handler' }]);
  handlers.forEach((h, i) => {
    const found = new Findings();
    handlerRule(h, [i], found);
    if (found.list.length > 0) throw new ConfigError(policy, found.issues());
  });
}

/**
 * Answers a failed call with `handler(error, ctx)`: a value or a promise.
 * `T` is the handler's answer type, so `fallback(() => null)` makes the
 * pipeline's result `R | null`.
 *
 * @example
 * ```ts
 * const user = await policy().timeout(300).fallback(() => GUEST).execute(getUser); // User | typeof GUEST
 * ```
 */
export function fallback<F>(handler: FallbackHandler<F>, options?: FallbackOptions): FallbackPolicy<F> {
  checkHandlers([handler], 'fallback');
  return new FallbackPolicy<F>([handler], options);
}

/** The union of the answer types of fallback handlers. */
export type AnswerOf<H extends readonly FallbackHandler<unknown>[]> = H[number] extends FallbackHandler<infer F> ? F : never;

/**
 * Tries each handler in order until one answers; when all
 * fail, rejects with the original thrown value, unchanged. Options, if any,
 * come last: `fallbackChain(fromCache, () => DEFAULT, { clock })`.
 *
 * @example
 * ```ts
 * const p = policy().timeout(300).fallbackChain(fromCache, fromReplica, () => DEFAULT);
 * ```
 */
export function fallbackChain<const H extends readonly FallbackHandler<unknown>[]>(...handlers: H): FallbackPolicy<AnswerOf<H>>;
export function fallbackChain<const H extends readonly FallbackHandler<unknown>[]>(
  ...args: [...handlers: H, options: FallbackOptions]
): FallbackPolicy<AnswerOf<H>>;
export function fallbackChain(...args: unknown[]): FallbackPolicy<unknown> {
  // Handlers are functions: a last argument that is an object is the options.
  const last = args[args.length - 1];
  const hasOptions = typeof last === 'object' && last !== null;
  const handlers = hasOptions ? args.slice(0, -1) : args;
  checkHandlers(handlers, 'fallbackChain');
  return new FallbackPolicy<unknown>(handlers as FallbackHandler<unknown>[], hasOptions ? (last as FallbackOptions) : undefined, 'fallbackChain');
}

