import type { Policy } from '../../lib/policy.js';
import type { AdmitRequest, AsyncPermitSource, Permit } from './permit.js';

/**
 * A permit held inside a running `policy.execute`: the operation the policy
 * runs is "wait until this permit settles". `success()` resolves it,
 * `failure(e)` rejects it with `e`, `release()` aborts the call as its own
 * caller (which every breakwater policy records as nothing).
 */
class PolicyPermit implements Permit {
  /** Resolves with this permit once the policy runs the operation; rejects when the policy refuses the call. */
  readonly admitted: Promise<Permit>;
  private readonly ctrl = new AbortController();
  private ok: (() => void) | undefined;
  private fail: ((error: unknown) => void) | undefined;

  constructor(policy: Policy<unknown>, request: AdmitRequest | undefined) {
    this.admitted = new Promise<Permit>((admit, refuse) => {
      const run = policy.execute(
        () =>
          new Promise<void>((ok, fail) => {
            this.ok = ok;
            this.fail = fail;
            admit(this);
          }),
        // The request's criticality reaches the policy; its deadline does not: a deadline passing inside would end
        // the operation, and free a bulkhead's slot, while the handler still runs.
        request === undefined ? { signal: this.ctrl.signal } : { signal: this.ctrl.signal, meta: { ...request.meta } },
      );
      // Before admission a rejection refuses the call; after it, the caller already has its answer.
      run.then(undefined, refuse);
    });
  }

  success(): void {
    this.ok?.();
  }

  failure(error?: unknown): void {
    this.fail?.(error ?? new Error('call failed'));
  }

  release(): void {
    const reason = new Error('released');
    // Abort first, so the policies see the caller's own cancellation (recorded as nothing); then end
    // the operation, so a bulkhead frees the slot it holds until the operation settles.
    this.ctrl.abort(reason);
    this.fail?.(reason);
  }
}

/**
 * Turns any policy into a permit source for the HTTP guards: each `allow()`
 * starts a `policy.execute` whose operation lasts until the permit settles,
 * so a rate limiter (local or through Redis), a bulkhead (with its queue) or
 * a whole pipeline can stand in front of handlers. It resolves when the
 * policy admits the call and rejects with the policy's rejection
 * (`RateLimitedError` → 429, `BulkheadRejectedError` → 503) when it refuses.
 * Breakers, load shedders and adaptive concurrency limiters have a
 * synchronous `allow()` of their own: give them directly.
 *
 * @example
 * ```ts
 * app.use(protectExpress(policySource(rateLimiter({ algorithm: tokenBucket({ rate: 100, burst: 20 }) }))));
 * ```
 */
export function policySource(policy: Policy<unknown>): AsyncPermitSource {
  return {
    name: policy.name,
    allow: (request?: AdmitRequest) => new PolicyPermit(policy, request).admitted,
  };
}
