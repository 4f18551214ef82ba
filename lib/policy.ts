import type { Observable } from 'rxjs';
import type { Clock } from './clock.js';
import type { PolicyEvent } from './events.js';

/**
 * The work a policy protects: a function of the execution context that returns
 * a value, a promise or any thenable. It may also throw, synchronously or not,
 * any value at all; breakwater treats every throw as a failure.
 *
 * @example
 * ```ts
 * const getUser: Operation<User> = (ctx) => fetch(url, { signal: ctx.signal }).then((r) => r.json());
 * ```
 */
export type Operation<R> = (ctx: ExecutionContext) => R | PromiseLike<R>;

/**
 * What every layer of a pipeline, and finally the operation, sees of the call.
 */
export interface ExecutionContext {
  /** Aborts when the caller cancels or any enclosing deadline passes. Created lazily: reading it costs one `AbortController` the first time. */
  readonly signal: AbortSignal;
  /** Clock time (epoch ms) by which the whole call must settle; `undefined` when there is none. */
  readonly deadline: number | undefined;
  /** 1 for the first try; set by `retry` (and `hedge`) for later ones. */
  readonly attempt: number;
  /** Idempotency or cache key given by the caller. */
  readonly key: string | undefined;
  /** Labels (service, method, tenant) for keyed breakers and metrics. */
  readonly meta: Readonly<Record<string, string>>;
  /** The clock every policy of the pipeline runs on. */
  readonly clock: Clock;
}

/**
 * What a caller may pass to {@link Policy.execute}.
 */
export interface ExecuteOptions {
  /** Cancels the call: it rejects at once with the signal's reason, and nothing is recorded or retried. */
  signal?: AbortSignal;
  /** Milliseconds the whole call may take; like an outermost aggressive timeout. */
  timeout?: number;
  /** Clock time (epoch ms) by which the whole call must settle. */
  deadline?: number;
  /** Idempotency or cache key, read by `idempotent` and `cache` as `ctx.key`. */
  key?: string;
  /** Labels for keyed breakers and metrics, read as `ctx.meta`. */
  meta?: Record<string, string>;
}

/**
 * The internal entry every policy implements: run `op` in the parent's
 * context, calling the rest of the chain through {@link runNext}. Pipelines
 * call their layers through it so that deadline, signal, attempt, key, meta and
 * clock flow inward without a closure per layer.
 *
 * @example
 * ```ts
 * class Logged implements Policy<never> {
 *   readonly name = 'logged';
 *   readonly events$ = EMPTY;
 *   execute<R>(op: Operation<R>, options?: ExecuteOptions) { return executeWith(this, op, options); }
 *   async [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
 *     console.log('attempt', ctx.attempt);
 *     return runNext(op, ctx, next);
 *   }
 * }
 * ```
 */
export const RUN: unique symbol = /* @__PURE__ */ Symbol.for('breakwater.run') as never;

/** A link of a composed chain: the policy to call next and what comes after it (`undefined`: the operation). */
export interface Chain {
  readonly policy: Policy<unknown>;
  readonly next: Chain | undefined;
}

/**
 * One resilience policy. `T` is what the policy may answer instead of the
 * operation's result: `never` for policies that only pass results through
 * (timeout, retry, breakers), the fallback value's type for `fallback`.
 */
export interface Policy<T = never> {
  /** Names the policy in events, errors and metrics. */
  readonly name: string;
  /**
   * Runs `op` under this policy.
   * @example
   * ```ts
   * const user = await policy().timeout(300).retry().execute((ctx) => getUser(id, ctx.signal));
   * ```
   */
  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R | T>;
  /** Every event of this policy; hot, and free while nobody subscribes. */
  readonly events$: Observable<PolicyEvent>;
  /** Type-only: what the policy may answer instead of the operation (see {@link ANSWER}). */
  readonly [ANSWER]?: () => T;
  /** The context-passing entry pipelines use; see {@link RUN}. */
  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R | T>;
}

/**
 * Key of a type-only member that carries a policy's answer type `T`
 * (never set at run time). Classes that implement {@link Policy} declare
 * `declare readonly [ANSWER]?: () => T` so that `pipe()` keeps their `T`.
 */
export const ANSWER: unique symbol = /* @__PURE__ */ Symbol.for('breakwater.answer') as never;

/**
 * The answer type `T` a policy adds to the operation's result; distributes
 * over unions, so `AltOf<P[number]>` is the union of a list's alternatives.
 */
export type AltOf<P> = P extends { readonly [ANSWER]?: () => infer T } ? T : never;
