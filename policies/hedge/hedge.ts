import type { Observable } from 'rxjs';
import { deadlineTimerOf, systemClock, type Clock, type DeadlineTimer } from '../../lib/clock.js';
import { executeWith, toContext, type Scope } from '../../lib/context.js';
import { EventSource, type PolicyEvent } from '../../lib/events.js';
import { checkOptions } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../../lib/policy.js';
import { hedgeOptions, type HedgeDelay, type HedgeOptions } from './options.js';
import { HedgeRun } from './run.js';

/**
 * Hedging (Polly's hedging strategy): when an attempt has not settled after
 * the delay, starts another beside it, up to `maxHedged` extra attempts; the
 * first accepted outcome wins and the other attempts are aborted through
 * their own `ctx.signal`. A failure that `handle` accepts waits for the
 * attempts still running and starts the next hedge at once. When every
 * attempt fails, the call rejects with the **last** failure (as Polly and
 * `retry` do). Hedged attempt `n` (1 for the primary) runs with
 * `ctx.attempt = outer attempt + n − 1`. The caller's abort or an enclosing
 * deadline ends every attempt at once.
 *
 * @example
 * ```ts
 * const h = hedge({ delayMs: 50, maxHedged: 2 });
 * const user = await h.execute((ctx) => fetch(replica(ctx.attempt), { signal: ctx.signal }));
 * ```
 */
export class HedgePolicy implements Policy<never> {
  declare readonly [ANSWER]?: () => never;
  readonly name: string;
  /** Extra attempts at most. */
  readonly maxHedged: number;
  readonly events$: Observable<PolicyEvent>;
  /** @internal */ readonly clock: Clock;
  /** @internal */ readonly timer: DeadlineTimer;
  /** @internal */ readonly handle: ((error: unknown) => boolean) | undefined;
  /** @internal */ readonly handleResult: ((result: unknown) => boolean) | undefined;
  private readonly events = new EventSource();
  private readonly delayMs: number;
  private readonly delay: HedgeDelay | undefined;

  constructor(options: HedgeOptions = {}) {
    const o = checkOptions(hedgeOptions, options, 'hedge');
    this.name = o.name;
    this.maxHedged = o.maxHedged;
    this.delayMs = o.delayMs ?? 2_000;
    this.delay = o.delay;
    this.handle = o.handle;
    this.handleResult = o.handleResult;
    this.clock = o.clock ?? systemClock;
    this.timer = deadlineTimerOf(this.clock);
    this.events$ = this.events.events$;
  }

  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R> {
    return executeWith(this, op, options, this.clock);
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    if (c.scope !== undefined && c.scope.aborted && !c.scope.cooperative) return Promise.reject(c.scope.reason);
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    return new HedgeRun<R>(this, op, c, next, start).begin();
  }

  /** @internal milliseconds before hedge `n` starts; `Infinity` for "only after a failure". */
  delayFor(n: number, ctx: ExecutionContext): number {
    if (this.delay === undefined) return this.delayMs;
    let d: number;
    try {
      d = this.delay(n, ctx);
    } catch {
      return Infinity;
    }
    if (typeof d !== 'number' || Number.isNaN(d)) return Infinity;
    return d > 0 ? d : 0;
  }

  /** @internal */
  hedged(attempt: number, delayMs: number): void {
    if (this.events.observed) this.events.emit({ type: 'hedged', policy: this.name, attempt, delayMs });
  }

  /** @internal */
  won(attempt: number): void {
    if (this.events.observed) this.events.emit({ type: 'won', policy: this.name, attempt });
  }

  /**
   * @internal the call settled: an attempt won, or it ends with `outcome`,
   * thrown (`thrown`) or a result `handleResult` judged a failure, under `scope`.
   */
  outcome(start: number, won: boolean, thrown: boolean, outcome: unknown, scope: Scope | undefined): void {
    if (!this.events.observed) return;
    const result = won ? 'success' : thrown ? thrownOutcome(outcome, scope) : 'failure';
    this.events.emit({ type: 'outcome', policy: this.name, result, durationMs: this.clock.now() - start, error: thrown ? outcome : undefined });
  }
}

/**
 * Makes a {@link HedgePolicy}. Defaults: one extra attempt after 2 s (Polly's
 * defaults), every thrown value hedged, no result hedged.
 *
 * @example
 * ```ts
 * const p = policy().timeout(500).hedge({ delayMs: 100, maxHedged: 2 }).retry();
 * ```
 */
export function hedge(options: HedgeOptions = {}): HedgePolicy {
  return new HedgePolicy(options);
}
