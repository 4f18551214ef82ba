import { Guard, Scope, type Context } from './context.js';

/** What a single-flight tells the policy that runs it. */
export interface FlightHost {
  /** The flight is over or abandoned: callers arriving from now on must start a new one. */
  forget(flight: { readonly key: string }): void;
  /** One caller's outcome, under its call's `scope` (`undefined`: nothing could cancel that call). */
  settled(start: number, failed: boolean, error: unknown, scope: Scope | undefined): void;
  /** True while the policy reports outcomes (someone listens to its events). */
  listening(): boolean;
}

/**
 * One shared run per key in this process (single-flight): every caller of
 * the key that arrives while it runs joins it and gets its outcome. The run
 * sees {@link SingleFlight.scope}, which aborts only when every joined caller
 * has left; a caller's own abort (its caller, its deadline) rejects that
 * caller alone, at once. Subclasses make the run and set `promise`.
 *
 * @example
 * ```ts
 * class Fetch<R> extends SingleFlight<R> {
 *   readonly promise = runNext(op, new Context(clock, this.scope, undefined, 1, key, meta), next);
 * }
 * const answer = flight.join(ctx, clock.now());
 * ```
 */
export abstract class SingleFlight<R> {
  /** The shared outcome every caller gets. */
  abstract readonly promise: Promise<R>;
  /** The shared run's scope: aborted only when every joined caller has left. */
  readonly scope: Scope;
  /** Callers waiting on the run now. */
  callers = 0;
  /** Callers that ever joined. */
  joins = 0;
  private over = false;

  constructor(
    /** The key the callers share. */
    readonly key: string,
    /** The policy's name (on the scope). */
    name: string,
    /** @internal the policy's side. */
    readonly host: FlightHost,
  ) {
    this.scope = new Scope(undefined, undefined, Infinity, undefined, name, false);
  }

  /** Adds a caller; its promise settles with the run, or at once when the caller's own scope aborts. */
  join(c: Context, start: number): Promise<R> {
    this.callers++;
    this.joins++;
    const scope = c.scope;
    if (scope === undefined) return this.observe(start);
    return new Member<R>(scope, this, start).watch(this.promise);
  }

  /** A caller gave up; the last one to leave a run that has not settled abandons it and aborts its scope. */
  leave(scope: Scope): void {
    if (--this.callers > 0 || this.over) return;
    this.host.forget(this);
    this.scope.abort(scope.reason, scope.byCaller, false);
  }

  /** The run has settled: callers that leave from now on abandon nothing. */
  protected markOver(): void {
    this.over = true;
  }

  /** A caller nothing can cancel waits on the run: reported only while the policy listens. */
  private observe(start: number): Promise<R> {
    const host = this.host;
    if (!host.listening()) return this.promise;
    return this.promise.then(
      (value) => {
        host.settled(start, false, undefined, undefined);
        return value;
      },
      (error: unknown) => {
        host.settled(start, true, error, undefined);
        throw error;
      },
    );
  }
}

/** One caller's wait on a flight: settles with it, or alone when the caller's own scope aborts. */
class Member<R> extends Guard<R> {
  constructor(
    scope: Scope,
    private readonly flight: SingleFlight<R>,
    private readonly start: number,
  ) {
    super(scope, false);
  }

  protected override settleOk(value: R): void {
    this.flight.host.settled(this.start, false, undefined, this.scope);
    super.settleOk(value);
  }

  protected override settleErr(error: unknown): void {
    this.flight.host.settled(this.start, true, error, this.scope);
    super.settleErr(error);
  }

  protected override fail(error: unknown): void {
    if (this.settled) return;
    this.flight.leave(this.scope);
    this.flight.host.settled(this.start, true, error, this.scope);
    super.fail(error);
  }
}
