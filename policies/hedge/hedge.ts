import { PolicyBase, refuseAborted } from '../../lib/base.js';
import { deadlineTimerOf, systemClock } from '../../lib/clock.js';
import { toContext, type Scope } from '../../lib/context.js';
import { checkOptions } from '../../lib/options.js';
import { thrownOutcome } from '../../lib/outcome.js';
import { RUN, type Chain, type ExecutionContext, type Operation } from '../../lib/policy.js';
import { hedgeOptions, type HedgeDelay, type HedgeOptions } from './options.js';
import { HedgeRun, type HedgeOwner } from './run.js';

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
export class HedgePolicy extends PolicyBase {
  private delayMs!: number;
  private delay: HedgeDelay | undefined;
  /** What a hedged run reads and calls of this policy; only the runs hold it. */
  private readonly runs: HedgeOwner;

  constructor(options: HedgeOptions = {}) {
    const o = checkOptions(hedgeOptions, options, 'hedge');
    super(o.name, o.clock ?? systemClock);
    this.runs = {
      name: this.name,
      maxHedged: 0,
      clock: this.clock,
      timer: deadlineTimerOf(this.clock),
      handle: undefined,
      handleResult: undefined,
      delayFor: (n, ctx) => this.delayFor(n, ctx),
      hedged: (attempt, delayMs) => this.hedged(attempt, delayMs),
      won: (attempt) => this.won(attempt),
      settled: (start, won, thrown, outcome, scope) => this.settled(start, won, thrown, outcome, scope),
    };
    this.apply(o);
  }

  /** Extra attempts at most. */
  get maxHedged(): number {
    return this.runs.maxHedged;
  }

  /**
   * Hot reload: new `delayMs`, `delay`, `maxHedged`, `handle` and `handleResult` (omitted ones take their defaults,
   * as at construction) for the calls that start after; calls in flight finish as they began. A bad option is a
   * `ConfigError` and changes nothing.
   */
  reconfigure(options: Omit<HedgeOptions, 'clock' | 'name'>): void {
    this.apply(checkOptions(hedgeOptions, { ...options, name: this.name }, this.name));
  }

  /** Takes the options a reload may change (at construction, all of them). */
  private apply(o: ReturnType<typeof hedgeOptions>): void {
    this.delayMs = o.delayMs ?? 2_000;
    this.delay = o.delay;
    this.runs.maxHedged = o.maxHedged;
    this.runs.handle = o.handle;
    this.runs.handleResult = o.handleResult;
  }

  [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const c = toContext(ctx);
    const refused = refuseAborted(c);
    if (refused !== undefined) return refused;
    // Read whether or not anyone listens: a subscriber may join before the call settles.
    const start = this.clock.now();
    return new HedgeRun<R>(this.runs, op, c, next, start).begin();
  }

  /** Milliseconds before hedge `n` starts; `Infinity` for "only after a failure". */
  private delayFor(n: number, ctx: ExecutionContext): number {
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

  private hedged(attempt: number, delayMs: number): void {
    if (this.events.observed) this.events.emit({ type: 'hedged', policy: this.name, attempt, delayMs });
  }

  private won(attempt: number): void {
    if (this.events.observed) this.events.emit({ type: 'won', policy: this.name, attempt });
  }

  /**
   * The call settled: an attempt won, or it ends with `outcome`,
   * thrown (`thrown`) or a result `handleResult` judged a failure, under `scope`.
   */
  private settled(start: number, won: boolean, thrown: boolean, outcome: unknown, scope: Scope | undefined): void {
    if (!this.events.observed) return;
    // Not won and not thrown: a result `handleResult` judged a failure.
    const result = won ? 'success' : thrown ? thrownOutcome(outcome, scope) : 'failure';
    this.outcome(result, start, thrown ? outcome : undefined);
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
