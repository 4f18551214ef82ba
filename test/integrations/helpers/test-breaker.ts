import { BehaviorSubject, type Observable } from 'rxjs';
import { systemClock, type Clock } from '../../../lib/clock.js';
import { cancelledByCaller, executeWith, runNext } from '../../../lib/context.js';
import { BrokenCircuitError } from '../../../lib/errors.js';
import { EventSource, type PolicyEvent } from '../../../lib/events.js';
import { ANSWER, RUN, type Chain, type ExecuteOptions, type ExecutionContext, type Operation, type Policy } from '../../../lib/policy.js';
import type { Permit, PermitSource } from '../../../integrations/shared/permit.js';

type State = 'closed' | 'open' | 'half-open';

/**
 * A minimal, honest stand-in for breakwater's breakers (which live on another
 * branch): opens on the `failures`-th failure in a row, sheds with
 * `BrokenCircuitError` (with `retryAfterMs`) while open, admits one probe
 * after `openMs`, closes on its success and reopens on its failure. Permit
 * API, `state$`, and `outcome` / `stateChange` / `rejected` events.
 */
export class TestBreaker implements Policy<never>, PermitSource {
  declare readonly [ANSWER]?: () => never;
  readonly name: string;
  readonly events$: Observable<PolicyEvent>;
  readonly state$: Observable<State>;
  /** Permits handed out and settled, by how. */
  readonly settled = { success: 0, failure: 0, release: 0 };
  private readonly events = new EventSource();
  private readonly subject = new BehaviorSubject<State>('closed');
  private readonly clock: Clock;
  private readonly failures: number;
  private readonly openMs: number;
  private streak = 0;
  private openedAt = 0;
  private probing = false;

  constructor(options: { name?: string; failures?: number; openMs?: number; clock?: Clock } = {}) {
    this.name = options.name ?? 'breaker';
    this.failures = options.failures ?? 3;
    this.openMs = options.openMs ?? 1_000;
    this.clock = options.clock ?? systemClock;
    this.events$ = this.events.events$;
    this.state$ = this.subject.asObservable();
  }

  get state(): State {
    return this.subject.value;
  }

  allow(): Permit {
    const now = this.clock.now();
    if (this.state === 'open') {
      if (now - this.openedAt < this.openMs) throw this.reject(this.openedAt + this.openMs - now);
      this.move('half-open', 'openElapsed');
    }
    if (this.state === 'half-open') {
      if (this.probing) throw this.reject(undefined);
      this.probing = true;
    }
    return new TestPermit(this, this.state);
  }

  execute<R>(op: Operation<R>, options?: ExecuteOptions): Promise<R> {
    return executeWith(this, op, options, this.clock);
  }

  async [RUN]<R>(op: Operation<R>, ctx: ExecutionContext, next: Chain | undefined): Promise<R> {
    const start = this.clock.now();
    let permit: Permit;
    try {
      permit = this.allow();
    } catch (error) {
      this.outcome('rejected', start, error);
      throw error;
    }
    try {
      const value = await runNext(op, ctx, next);
      permit.success();
      this.outcome('success', start);
      return value;
    } catch (error) {
      if (cancelledByCaller(ctx)) permit.release();
      else {
        permit.failure(error);
        this.outcome('failure', start, error);
      }
      throw error;
    }
  }

  /** @internal */
  settle(admittedIn: State, how: 'success' | 'failure' | 'release'): void {
    this.settled[how]++;
    if (admittedIn === 'half-open') {
      this.probing = false;
      if (how === 'success') this.move('closed', 'probeSucceeded');
      else if (how === 'failure') this.trip('probeFailed');
      return;
    }
    if (this.state !== 'closed') return; // a late outcome from an older state
    if (how === 'success') this.streak = 0;
    else if (how === 'failure' && ++this.streak >= this.failures) this.trip('threshold');
  }

  private trip(reason: string): void {
    this.openedAt = this.clock.now();
    this.move('open', reason, this.streak);
  }

  private move(to: State, reason: string, figure?: number): void {
    const from = this.state;
    this.streak = 0;
    this.subject.next(to);
    if (this.events.observed) this.events.emit({ type: 'stateChange', policy: this.name, from, to, reason, figure } as never);
  }

  private reject(retryAfterMs: number | undefined): BrokenCircuitError {
    if (this.events.observed) this.events.emit({ type: 'rejected', policy: this.name, state: this.state, retryAfterMs } as never);
    return new BrokenCircuitError(this.name, retryAfterMs);
  }

  private outcome(result: 'success' | 'failure' | 'rejected', start: number, error?: unknown): void {
    if (this.events.observed) {
      this.events.emit({ type: 'outcome', policy: this.name, result, durationMs: this.clock.now() - start, error });
    }
  }
}

class TestPermit implements Permit {
  private done = false;
  constructor(
    private readonly breaker: TestBreaker,
    private readonly admittedIn: State,
  ) {}
  success(): void {
    this.settle('success');
  }
  failure(): void {
    this.settle('failure');
  }
  release(): void {
    this.settle('release');
  }
  private settle(how: 'success' | 'failure' | 'release'): void {
    if (this.done) return;
    this.done = true;
    this.breaker.settle(this.admittedIn, how);
  }
}
