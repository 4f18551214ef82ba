import { PolicyBase } from '../../lib/base.js';
import { systemClock } from '../../lib/clock.js';
import { sleep } from '../../lib/sleep.js';
import { callNext, hardAborted, runNext, startOf, toContext, type Context } from '../../lib/context.js';
import { ConfigError, isShedRejection } from '../../lib/errors.js';
import type { OutcomeResult } from '../../lib/events.js';
import type { GiveUpEvent } from './events.js';
import { judge } from '../../lib/judge.js';
import { checkOptions, omit, type RuleOutput } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { settledAt, settlingOf, Step } from '../../lib/settle.js';
import { exponential, fromFunction, isBackoff, type Backoff } from './backoff.js';
import type { RetryBudget } from './budget.js';
import { retryOptions, type RetryOptions } from './options.js';

type RetryOptionsParsed = RuleOutput<typeof retryOptions>;

const reconfigurable = /* @__PURE__ */ omit(retryOptions, ['clock', 'random', 'name']);

// How an attempt ended: 0 success, 1 a failure to retry, 2 a failure not to retry.
type AttemptEnd = 0 | 1 | 2;

/** The longest delay a `setTimeout` honours (2^31 − 1 ms, about 24.8 days). */
const LONGEST_TIMER_MS = 2_147_483_647;

/** Marks a retry loop whose first attempt has not run yet. */
const NOT_TRIED: unique symbol = /* @__PURE__ */ Symbol('notTried');

/**
 * Tries a call again when it fails: `maxAttempts` tries in all, with backoff
 * and jitter between them. The last error is rethrown unchanged. It never
 * retries the caller's own cancellation or breakwater's load-shedding
 * rejections, never starts a sleep that would end at or past the deadline,
 * and a caller's abort ends a sleep at once.
 *
 * @example
 * ```ts
 * const r = retry({ maxAttempts: 3, backoff: exponential({ initial: 100, jitter: 'full' }) });
 * ```
 */
export class RetryPolicy extends PolicyBase {
  private _maxAttempts!: number;
  private backoff!: Backoff;
  private maxDelayMs!: number;
  private handle: ((error: unknown) => boolean) | undefined;
  private handleResult: ((result: unknown) => boolean) | undefined;
  private budget: RetryBudget | undefined;
  private readonly random: () => number;

  constructor(options: RetryOptions = {}) {
    const o = checkOptions(retryOptions, options, 'retry');
    super(o.name, o.clock ?? systemClock);
    this.apply(o);
    this.random = o.random ?? Math.random;
  }

  /** Total tries, the first included. */
  get maxAttempts(): number {
    return this._maxAttempts;
  }

  /**
   * Changes the retry options for calls that start from now on (hot reload);
   * validated like the constructor's, and nothing changes if they are invalid.
   */
  reconfigure(options: Omit<RetryOptions, 'clock' | 'random' | 'name'>): void {
    this.apply(checkOptions(reconfigurable, options, this.name));
  }

  private apply(o: Pick<RetryOptionsParsed, 'maxAttempts' | 'backoff' | 'maxDelayMs' | 'handle' | 'handleResult' | 'budget'>): void {
    this._maxAttempts = o.maxAttempts;
    this.backoff = o.backoff === undefined ? exponential() : isBackoff(o.backoff) ? o.backoff : fromFunction(o.backoff);
    const max = this.backoff.max;
    // Timers fire at once past 2^31 − 1 ms (Node, browsers): "no cap" is that long.
    this.maxDelayMs = Math.min(o.maxDelayMs ?? (typeof max === 'number' && max >= 0 ? max : LONGEST_TIMER_MS), LONGEST_TIMER_MS);
    this.handle = o.handle;
    this.handleResult = o.handleResult;
    this.budget = o.budget;
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    if (this.budget !== undefined || this.handleResult !== undefined) return this.run(op, c, next, NOT_TRIED, 0);
    // No budget and no result to judge: the first attempt's promise passes through with
    // handlers attached (no async frame); the retry loop starts only once it has failed.
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = startOf(c, this.clock);
    let first: Promise<R>;
    try {
      first = callNext(op, c.withAttempt(1), next);
    } catch (error) {
      return this.run(op, c, next, error, start);
    }
    // One settlement for the call: a step on the inner layer's promise instead of a promise of our own.
    const s = settlingOf(first);
    if (s !== undefined && s.push(new RetryStep(this, op, c, next, start))) return first;
    const observed = this.events.observed;
    const onFailure = (error: unknown) => this.run(op, c, next, error, start);
    if (!observed) return first.then(undefined, onFailure);
    return first.then((value) => {
      if (this.events.observed) this.succeeded(1, start);
      return value;
    }, onFailure);
  }

  /** @internal The first attempt answered `value` (through a step): report it. */
  firstSucceeded(start: number): void {
    if (!this.events.observed) return;
    this.events.emit({ type: 'success', policy: this.name, attempts: 1 });
    this.outcome('success', start, undefined, settledAt(this.clock));
  }

  /**
   * @internal The retry loop. `firstError` is what the first attempt threw when it has
   * already run ({@link NOT_TRIED} if not), and `start` then the clock time it started.
   */
  async run<R>(op: Operation<R>, c: Context, next: Chain | undefined, firstError: unknown, start: number): Promise<R> {
    if (firstError === NOT_TRIED) {
      start = this.clock.now();
      this.budget?.onCall(start);
    }
    let previousDelay = 0;
    for (let attempt = 1; ; attempt++) {
      let value: R | undefined;
      let error: unknown;
      let verdict: AttemptEnd;
      let thrown = false;
      const attemptStart = this.budget?.onAttempt !== undefined ? this.clock.now() : 0;
      try {
        if (attempt === 1 && firstError !== NOT_TRIED) throw firstError;
        value = await runNext(op, c.withAttempt(attempt), next);
        verdict = this.handleResult !== undefined && judge(this.handleResult, value) ? 1 : 0;
        error = value;
      } catch (e) {
        error = e;
        thrown = true;
        verdict = hardAborted(c) || isShedRejection(e) || (this.handle !== undefined && !judge(this.handle, e)) ? 2 : 1;
      }
      if (this.budget?.onAttempt !== undefined) {
        const now = this.clock.now();
        this.budget.onAttempt(now - attemptStart, now);
      }
      if (verdict === 0) {
        if (this.events.observed) this.succeeded(attempt, start);
        return value as R;
      }
      let reason: GiveUpEvent['reason'] | undefined;
      let delay = 0;
      if (verdict === 2) reason = hardAborted(c) ? abortReason(c) : 'notHandled';
      else if (attempt >= this._maxAttempts) reason = 'maxAttempts';
      else if (c.scope?.aborted) reason = abortReason(c);
      else {
        const hinted = retryAfterOf(error);
        if (hinted !== undefined) {
          delay = hinted;
          // Retrying before the server's time only earns another refusal; waiting longer than the cap is not wanted.
          if (hinted > this.maxDelayMs) reason = 'maxDelay';
        } else {
          delay = this.backoff.delay(attempt, error, previousDelay, this.random);
          if (typeof delay !== 'number' || !(delay >= 0 && delay < Infinity)) {
            error = badDelay(this.name, delay, attempt);
            thrown = true;
            reason = 'invalidBackoff';
          } else if (delay > this.maxDelayMs) delay = this.maxDelayMs;
        }
        if (reason === undefined) {
          const now = this.clock.now();
          // Rule 4: no sleep that would leave no time for the attempt after it.
          if (c.deadline !== undefined && now + delay >= c.deadline) reason = 'deadline';
          else if (this.budget !== undefined && !this.budget.tryRetry(now, attempt - 1)) reason = 'budget';
        }
      }
      if (reason !== undefined) {
        if (this.events.observed) this.gaveUp(attempt, error, reason, start, thrown ? thrownOutcome(error, c) : 'failure');
        // A result judged a failure is still the caller's answer once retrying ends.
        if (!thrown) return value as R;
        throw error;
      }
      // Emit before sleeping, so a listener can advance a test clock.
      if (this.events.observed) this.events.emit({ type: 'retry', policy: this.name, attempt: attempt + 1, delayMs: delay, error });
      previousDelay = delay;
      try {
        if (delay > 0) await sleep(this.clock, delay, c.scope);
        else if (c.scope?.aborted) throw c.scope.reason;
      } catch (abortReason) {
        // Cancelled between attempts: the caller gets the abort's reason, and so does the outcome.
        if (this.events.observed) this.gaveUp(attempt, abortReason, 'cancelled', start, thrownOutcome(abortReason, c));
        throw abortReason;
      }
    }
  }

  private succeeded(attempts: number, start: number): void {
    this.events.emit({ type: 'success', policy: this.name, attempts });
    this.outcome('success', start);
  }

  private gaveUp(attempts: number, error: unknown, reason: GiveUpEvent['reason'], start: number, result: OutcomeResult): void {
    this.events.emit({ type: 'giveUp', policy: this.name, attempts, error, reason });
    this.outcome(result, start, error);
  }
}

/** What the retry does with its first attempt's outcome, as a step of the call's one settlement. */
class RetryStep<R> extends Step {
  constructor(
    private readonly policy: RetryPolicy,
    private readonly op: Operation<R>,
    private readonly c: Context,
    private readonly next: Chain | undefined,
    private readonly start: number,
  ) {
    super();
  }

  onValue(value: unknown): unknown {
    this.policy.firstSucceeded(this.start);
    return value;
  }

  onError(error: unknown): unknown {
    return this.policy.run(this.op, this.c, this.next, error, this.start);
  }
}

/** The wait an error asks for (a 429/503's `Retry-After`), if it carries a usable one. */
function retryAfterOf(error: unknown): number | undefined {
  const hinted = (error as { retryAfterMs?: unknown } | null | undefined)?.retryAfterMs;
  return typeof hinted === 'number' && hinted >= 0 ? hinted : undefined;
}

/** A backoff that gives no usable delay is a bug in the caller's configuration, not a reason to retry at once. */
function badDelay(policy: string, delay: unknown, retry: number): ConfigError {
  const got = typeof delay === 'number' ? String(delay) : `a ${typeof delay}`;
  return new ConfigError(policy, [{ path: 'backoff', message: `returned ${got} before retry ${retry}; expected a finite number of milliseconds >= 0` }]);
}

/**
 * Makes a {@link RetryPolicy}. Defaults: 3 attempts in all, exponential
 * backoff from 100 ms (x2, max 10 s) with full jitter, every error retried.
 *
 * @example
 * ```ts
 * const p = policy().timeout(1_000).retry({ maxAttempts: 3 }); // 1 s per attempt
 * ```
 */
export function retry(options: RetryOptions = {}): RetryPolicy {
  return new RetryPolicy(options);
}

/** Why an aborted call stops retrying: the caller's own cancellation, or a deadline that passed. */
function abortReason(c: Context): 'cancelled' | 'deadline' {
  return c.scope!.byCaller ? 'cancelled' : 'deadline';
}
