import type { Observable } from 'rxjs';
import { deadlineTimerOf, systemClock, type Clock, type DeadlineTimer } from '../../lib/clock.js';
import { executeWith, Guard, runNext, Scope, toContext } from '../../lib/context.js';
import { TimeoutError } from '../../lib/errors.js';
import { EventSource, type PolicyEvent } from '../../lib/events.js';
import { parseOptions } from '../../lib/options.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../../lib/policy.js';
import { TimeoutOptionsSchema, type TimeoutOptions } from './options.js';

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
export class TimeoutPolicy implements Policy<never> {
  declare readonly [ANSWER]?: () => never;
  readonly name: string;
  private _ms: number;
  private _mode: 'aggressive' | 'cooperative';
  readonly events$: Observable<PolicyEvent>;
  /** @internal */
  readonly events = new EventSource();
  private readonly clock: Clock;
  private readonly timer: DeadlineTimer;

  constructor(options: number | TimeoutOptions) {
    const o = parseOptions(TimeoutOptionsSchema, typeof options === 'object' && options !== null ? options : { ms: options }, 'timeout');
    this.name = o.name;
    this._ms = o.ms;
    this._mode = o.mode;
    this.clock = o.clock ?? systemClock;
    this.timer = deadlineTimerOf(this.clock);
    this.events$ = this.events.events$;
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
    const o = parseOptions(TimeoutOptionsSchema.omit({ clock: true, name: true }), typeof options === 'object' && options !== null ? options : { ms: options }, this.name);
    this._ms = o.ms;
    this._mode = o.mode;
  }

  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R> {
    return executeWith(this, op, options, this.clock);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    const start = this.clock.now();
    const at = start + this._ms;
    // An enclosing deadline that comes first governs; this one adds nothing.
    if (c.deadline !== undefined && c.deadline <= at) return runNext(op, c, next);
    const scope = new Scope(c.scope, undefined, at, this.timer, this.name, this._mode === 'cooperative');
    const guard = new TimeoutGuard<R>(scope, this, start);
    const child = c.withScope(scope);
    let inner: R | PromiseLike<R>;
    try {
      // The guard already races the operation against the scope: call it directly, not through a second race.
      inner = next === undefined ? op(child) : runNext(op, child, next);
    } catch (error) {
      inner = Promise.reject(error);
    }
    return guard.watch(inner);
  }

  /** @internal */
  report(result: 'success' | 'failure' | 'timeout', start: number, error?: unknown): void {
    const events = this.events;
    if (!events.observed) return;
    const durationMs = this.clock.now() - start;
    if (result === 'timeout') events.emit({ type: 'timeout', policy: this.name, timeoutMs: this._ms, mode: this._mode });
    events.emit({ type: 'outcome', policy: this.name, result, durationMs, error });
  }
}

class TimeoutGuard<R> extends Guard<R> {
  constructor(
    scope: Scope,
    private readonly owner: TimeoutPolicy,
    private readonly start: number,
  ) {
    super(scope, true);
  }

  protected override settleOk(value: R): void {
    this.owner.report('success', this.start);
    super.settleOk(value);
  }

  protected override settleErr(error: unknown): void {
    if (this.scope.expired) {
      // cooperative: the operation gave up after our deadline
      const timeoutError = new TimeoutError(this.owner.name, undefined, { cause: error });
      this.owner.report('timeout', this.start, timeoutError);
      super.settleErr(timeoutError);
      return;
    }
    this.owner.report('failure', this.start, error);
    super.settleErr(error);
  }

  protected override fail(error: unknown): void {
    if (this.settled) return;
    this.owner.report(this.scope.expired ? 'timeout' : 'failure', this.start, error);
    super.fail(error);
  }
}

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
