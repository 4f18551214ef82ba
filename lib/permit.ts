/** Settlement: the call succeeded (or threw a value `handle` does not count). */
export const SUCCESS = 0;
/** The call failed (a thrown value `handle` counts, a result `handleResult` counts, or `permit.failure()`). */
export const FAILURE = 1;
/** Nothing to record: the caller cancelled, or an inner policy shed the call. */
export const RELEASE = 2;
/** An enclosing deadline passed: a failure, and a slow call. */
export const TIMEOUT = 3;
/** One of {@link SUCCESS}, {@link FAILURE}, {@link RELEASE}, {@link TIMEOUT}. */
export type Settlement = 0 | 1 | 2 | 3;

/** What a permit and an isolation handle call back into. */
export interface BreakerCore {
  complete(token: number, start: number, settlement: Settlement, error: unknown): void;
  endIsolation(epoch: number): void;
}

/**
 * An admitted call, from the low-level permit API: settle it with exactly
 * one of `success()`, `failure()` or `release()`; later calls do nothing.
 *
 * @example
 * ```ts
 * const permit = breaker.allow(); // throws BrokenCircuitError when shed
 * try { const r = await call(); permit.success(); return r; }
 * catch (e) { permit.failure(e); throw e; }
 * ```
 */
export class BreakerPermit {
  private settled = false;

  constructor(
    private readonly breaker: BreakerCore,
    private readonly token: number,
    private readonly start: number,
  ) {}

  /** Records a success. */
  success(): void {
    if (this.settled) return;
    this.settled = true;
    this.breaker.complete(this.token, this.start, SUCCESS, undefined);
  }

  /** Records a failure; `error` goes into the `outcome` event. */
  failure(error?: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.breaker.complete(this.token, this.start, FAILURE, error);
  }

  /** Gives the slot back recording nothing (the caller cancelled). */
  release(): void {
    if (this.settled) return;
    this.settled = true;
    this.breaker.complete(this.token, this.start, RELEASE, undefined);
  }
}

/**
 * Returned by `isolate()`: the breaker stays open until every handle is
 * disposed. Disposing twice does nothing. Works with `using`.
 *
 * @example
 * ```ts
 * const maintenance = breaker.isolate(); // shed every call
 * await migrate();
 * maintenance.dispose(); // closed again, with empty counters
 * ```
 */
export class IsolationHandle {
  private disposed = false;

  constructor(
    private readonly breaker: BreakerCore,
    private readonly epoch: number,
  ) {}

  /** Ends this isolation; the last one to end closes the breaker with empty counters. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.breaker.endIsolation(this.epoch);
  }

  /** Same as {@link IsolationHandle.dispose}. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}


/** @deprecated Renamed {@link BreakerPermit}; this alias goes in the next major version. */
export const Permit = BreakerPermit;
/** @deprecated Renamed {@link BreakerPermit}; this alias goes in the next major version. */
export type Permit = BreakerPermit;
