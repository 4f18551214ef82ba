import { cancelledByCaller, Context, Scope } from './context.js';
import { isShedRejection, isTimeoutError } from './errors.js';
import type { OutcomeResult } from './events.js';
import { judge } from './judge.js';
import type { ExecutionContext } from './policy.js';

/**
 * Every `result` of an `outcome` event, and so every value of the metrics'
 * `result` label, in the order the docs list them.
 *
 * @example
 * ```ts
 * const help = `Calls by result: ${OUTCOME_RESULTS.join(', ')}.`;
 * ```
 */
export const OUTCOME_RESULTS: readonly OutcomeResult[] = /* @__PURE__ */ Object.freeze([
  'success',
  'failure',
  'timeout',
  'rejected',
  'cancelled',
  'fallback',
] as const);

/**
 * What a call that threw `error` counts as, the same for every policy, so
 * `calls_total{result}` means one thing whichever policy is outermost. In
 * this order:
 *
 * - `'cancelled'`: the call's caller cancelled it (its own signal aborted);
 *   whatever was thrown, it is the caller's doing, not the dependency's;
 * - `'timeout'`: a breakwater `TimeoutError`, or an enclosing deadline ended the call;
 * - `'rejected'`: breakwater shed it (open breaker, rate limit, full
 *   bulkhead, overload, concurrency limit, idempotency key in progress);
 * - `'failure'`: anything else.
 *
 * `at` says where the call's cancellation is: its context, the scope of a
 * policy that makes its own (a timeout), or `undefined` when nothing can
 * cancel it (the permit API). A breakwater context is read through its
 * scope, never its `signal`, which would allocate.
 *
 * @example
 * ```ts
 * const result = thrownOutcome(error, ctx); // 'cancelled' after the caller's abort
 * ```
 */
export function thrownOutcome(error: unknown, at: ExecutionContext | Scope | undefined): OutcomeResult {
  const abort = abortOf(at);
  if (abort === BY_CALLER) return 'cancelled';
  if (abort === BY_DEADLINE || isTimeoutError(error)) return 'timeout';
  if (isShedRejection(error)) return 'rejected';
  return 'failure';
}

/**
 * What a call that returned `value` counts as: `'failure'` when the
 * policy's `handleResult` judges the value a failure (a throw inside it
 * counts as yes), `'success'` otherwise.
 *
 * @example
 * ```ts
 * valueOutcome({ status: 503 }, (r) => (r as Response).status >= 500); // 'failure'
 * ```
 */
export function valueOutcome(value: unknown, handleResult: ((result: unknown) => boolean) | undefined): 'success' | 'failure' {
  return handleResult !== undefined && judge(handleResult, value) ? 'failure' : 'success';
}

/**
 * True for the results that count as errors of the dependency: `'failure'`
 * and `'timeout'`. Not a shed call (`'rejected'`: it never reached the
 * dependency), not the caller's own cancellation (`'cancelled'`: a client
 * that gave up says nothing of the dependency), not an answered call
 * (`'fallback'`).
 *
 * @example
 * ```ts
 * events$.subscribe((e) => e.type === 'outcome' && isErrorOutcome(e.result) && errors++);
 * ```
 */
export function isErrorOutcome(result: OutcomeResult): boolean {
  return result === 'failure' || result === 'timeout';
}

/**
 * True when a call with this result did work worth timing: every result but
 * `'rejected'` (a shed call returns at once, and its near-zero durations
 * would drag every latency quantile down).
 *
 * @example
 * ```ts
 * if (isTimedOutcome(e.result)) histogram.observe(e.durationMs / 1000);
 * ```
 */
export function isTimedOutcome(result: OutcomeResult): boolean {
  return result !== 'rejected';
}

const NOT_ABORTED = 0;
const BY_CALLER = 1;
const BY_DEADLINE = 2;

/** How the call's cancellation ended it, if it did: by its caller or by a deadline (any other abort). */
function abortOf(at: ExecutionContext | Scope | undefined): number {
  if (at === undefined) return NOT_ABORTED;
  let scope: Scope | undefined;
  if (at instanceof Scope) scope = at;
  else if (at instanceof Context) scope = at.scope;
  else {
    // A context a user policy made: only its own signal can tell.
    if (cancelledByCaller(at)) return BY_CALLER;
    return at.signal.aborted ? BY_DEADLINE : NOT_ABORTED;
  }
  if (scope === undefined || !scope.aborted) return NOT_ABORTED;
  return scope.byCaller ? BY_CALLER : BY_DEADLINE;
}

/**
 * What a settled call counts as, the one decision every policy reports
 * through: a call that threw (`thrown`) is classified by
 * {@link thrownOutcome} under `at`, a call that returned `value` by
 * {@link valueOutcome} with the policy's `handleResult` (none: `'success'`).
 *
 * @example
 * ```ts
 * const result = settledOutcome(thrown, thrown ? error : value, ctx, handleResult);
 * ```
 */
export function settledOutcome(
  thrown: boolean,
  valueOrError: unknown,
  at: ExecutionContext | Scope | undefined,
  handleResult?: (result: unknown) => boolean,
): OutcomeResult {
  if (thrown) return thrownOutcome(valueOrError, at);
  return handleResult === undefined ? 'success' : valueOutcome(valueOrError, handleResult);
}
