import type { Clock, DeadlineEntry, DeadlineTimer } from '../../lib/clock.js';
import { Context, hardAborted, runNext, Scope } from '../../lib/context.js';
import { isShedRejection } from '../../lib/errors.js';
import { judge } from '../../lib/judge.js';
import type { Chain, ExecutionContext, Operation } from '../../lib/policy.js';

/** What a hedged run needs of its policy: its tuning, its timer and where to report. */
export interface HedgeOwner {
  readonly name: string;
  /** Read when a call starts (a reload changes it for the calls after). */
  maxHedged: number;
  readonly clock: Clock;
  readonly timer: DeadlineTimer;
  handle: ((error: unknown) => boolean) | undefined;
  handleResult: ((result: unknown) => boolean) | undefined;
  delayFor(n: number, ctx: ExecutionContext): number;
  hedged(attempt: number, delayMs: number): void;
  won(attempt: number): void;
  settled(start: number, won: boolean, thrown: boolean, outcome: unknown, scope: Scope | undefined): void;
}

/** One attempt of a hedged call, with its own cancellation scope linked to the call's. */
class Attempt<R> {
  done = false;
  constructor(
    private readonly run: HedgeRun<R>,
    readonly n: number,
    readonly scope: Scope,
  ) {}

  readonly ok = (value: R): void => {
    this.done = true;
    this.run.onValue(this, value);
  };

  readonly err = (error: unknown): void => {
    this.done = true;
    this.run.onError(error);
  };
}

/**
 * The state of one hedged call: the attempts started, the pending hedge timer
 * (an entry of the clock's shared deadline timer), and the last failure.
 * Settles with the first accepted outcome, then aborts and unlinks the rest.
 */
export class HedgeRun<R> implements DeadlineEntry {
  at = Infinity;
  heapIndex = -1;
  readonly promise: Promise<R>;
  private resolve!: (value: R) => void;
  private reject!: (error: unknown) => void;
  private readonly attempts: Attempt<R>[] = [];
  private pending = 0;
  private settled = false;
  private lastFailure: unknown = undefined;
  private lastThrown = true;
  private delayMs = 0;

  constructor(
    private readonly owner: HedgeOwner,
    private readonly op: Operation<R>,
    private readonly ctx: Context,
    private readonly next: Chain | undefined,
    private readonly start: number,
  ) {
    this.promise = new Promise<R>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }

  /** Starts the primary attempt and arms the first hedge. */
  begin(): Promise<R> {
    this.launch();
    this.arm();
    return this.promise;
  }

  /** @internal the hedge timer fired. */
  expire(): void {
    if (this.settled || this.ctx.scope?.aborted) return;
    this.hedgeNow(this.delayMs);
  }

  /** @internal an attempt returned a value. */
  onValue(attempt: Attempt<R>, value: R): void {
    if (this.settled) return;
    this.pending--;
    const handleResult = this.owner.handleResult;
    if (handleResult !== undefined && judge(handleResult, value)) {
      this.failed(value, false);
      return;
    }
    this.owner.won(attempt.n);
    this.finish(attempt, value, false);
  }

  /** @internal an attempt threw (or was cut off by the call's own cancellation). */
  onError(error: unknown): void {
    if (this.settled) return;
    this.pending--;
    // The caller or an enclosing deadline gave up: every attempt is already aborted with it.
    if (hardAborted(this.ctx)) return this.finish(undefined, this.ctx.scope!.reason, true);
    const handle = this.owner.handle;
    if (handle !== undefined && !judge(handle, error)) return this.finish(undefined, error, true);
    this.failed(error, true);
  }

  private failed(failure: unknown, thrown: boolean): void {
    this.lastFailure = failure;
    this.lastThrown = thrown;
    // Polly: a handled failure starts the next hedge at once. Not against load shedding: it would be shed too.
    if (this.attempts.length <= this.owner.maxHedged && !this.ctx.scope?.aborted && !isShedRejection(failure)) {
      if (this.heapIndex >= 0) this.owner.timer.remove(this);
      this.hedgeNow(0);
    } else if (this.pending === 0) this.finish(undefined, this.lastFailure, this.lastThrown);
  }

  private hedgeNow(delayMs: number): void {
    this.owner.hedged(this.attempts.length + 1, delayMs);
    this.launch();
    this.arm();
  }

  private launch(): void {
    const c = this.ctx;
    const n = this.attempts.length + 1;
    const scope = new Scope(c.scope, undefined, Infinity, undefined, this.owner.name, false);
    const attempt = new Attempt(this, n, scope);
    this.attempts.push(attempt);
    this.pending++;
    let value: Promise<R>;
    try {
      value = runNext(this.op, new Context(c.clock, scope, c.deadline, c.attempt + n - 1, c.key, c.meta), this.next);
    } catch (error) {
      value = Promise.reject(error);
    }
    value.then(attempt.ok, attempt.err);
  }

  /** Arms the timer of the next hedge, if one may start; a delay of 0 starts it now. */
  private arm(): void {
    for (;;) {
      const n = this.attempts.length + 1;
      if (n > this.owner.maxHedged + 1 || this.settled || this.ctx.scope?.aborted) return;
      const delay = this.owner.delayFor(n, this.ctx);
      if (delay === Infinity) return;
      if (delay > 0) {
        this.delayMs = delay;
        this.at = this.owner.clock.now() + delay;
        this.owner.timer.add(this);
        return;
      }
      this.owner.hedged(n, 0);
      this.launch();
    }
  }

  private finish(winner: Attempt<R> | undefined, outcome: unknown, thrown: boolean): void {
    this.settled = true;
    if (this.heapIndex >= 0) this.owner.timer.remove(this);
    let lost: unknown;
    for (const a of this.attempts) {
      // The hedge is the losers' caller and cancels them: policies inside record nothing for them.
      if (a !== winner && !a.done && !a.scope.aborted) a.scope.abort((lost ??= lostReason()), true, false);
      a.scope.dispose();
    }
    this.owner.settled(this.start, winner !== undefined, thrown, outcome, this.ctx.scope);
    if (thrown) this.reject(outcome);
    else this.resolve(outcome as R);
  }
}

function lostReason(): DOMException {
  return new DOMException('another hedged attempt won', 'AbortError');
}
