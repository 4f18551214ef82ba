// The variants compared: how the service B calls the upstream C. Each is
// configured as its documentation suggests, with the settings written in
// docs/performance.md ("Fault benchmark"). Every variant's fallback answers
// the same constant, so A can tell a real answer from a fallback.
import { circuitBreaker, fallback, handleAll, retry, SamplingBreaker, timeout, TimeoutStrategy, wrap } from 'cockatiel';
import CircuitBreaker from 'opossum';
import { policy, strategies } from '../../dist/index.js';

/** What B answers A with. */
export const REAL = 'real';
export const FALLBACK = 'fallback';
const f = () => FALLBACK;

/** One line per variant, for the table and the results. */
export const about = {
  bare: 'the call alone: no timeout, no retry, no breaker, no fallback',
  canonical: 'policy().timeout(300).retry({ maxAttempts: 3 }).breaker().fallback(f)',
  standard: 'strategies.standard({ timeoutMs: 300, maxAttempts: 3, fallback: f })',
  cockatiel:
    'wrap(fallback(handleAll, f), circuitBreaker(handleAll, { halfOpenAfter: 5_000, breaker: new SamplingBreaker({ threshold: 0.5, duration: 10_000 }) }), retry(handleAll, { maxAttempts: 2 }), timeout(300, TimeoutStrategy.Aggressive))',
  opossum:
    'new CircuitBreaker(action, { timeout: 3000, errorThresholdPercentage: 50, resetTimeout: 30000 }).fallback(f); action: 3 tries, no delay, each aborted after 300 ms',
};

/** The variants' names, in table order. */
export const variantNames = Object.keys(about);

/**
 * Makes the variant `name` around `callC(signal)` (a call to C that rejects
 * on any status but 200 and aborts when `signal` does). Returns a function
 * that makes one protected call and resolves with `REAL` or `FALLBACK`, or
 * rejects.
 */
export function makeVariant(name, callC) {
  switch (name) {
    case 'bare':
      return () => callC(undefined);
    case 'canonical': {
      const p = policy().timeout(300).retry({ maxAttempts: 3 }).breaker().fallback(f);
      return () => p.execute((ctx) => callC(ctx.signal));
    }
    case 'standard': {
      const p = strategies.standard({ timeoutMs: 300, maxAttempts: 3, fallback: f });
      return () => p.execute((ctx) => callC(ctx.signal));
    }
    case 'cockatiel': {
      // wrap's first argument is outermost: fallback(breaker(retry(timeout(call)))).
      // cockatiel's maxAttempts counts retries: 2 retries, 3 tries, as the others.
      const p = wrap(
        fallback(handleAll, f),
        circuitBreaker(handleAll, { halfOpenAfter: 5_000, breaker: new SamplingBreaker({ threshold: 0.5, duration: 10_000 }) }),
        retry(handleAll, { maxAttempts: 2 }),
        timeout(300, TimeoutStrategy.Aggressive),
      );
      return () => p.execute(({ signal }) => callC(signal));
    }
    case 'opossum': {
      // opossum has no retry or per-attempt timeout of its own: both live in the
      // action, as its README's users write them; its own options are the README's.
      const action = async () => {
        let last;
        for (let i = 0; i < 3; i++) {
          const ctrl = new AbortController();
          const timer = setTimeout(() => ctrl.abort(new Error('attempt timed out')), 300);
          try {
            return await callC(ctrl.signal);
          } catch (error) {
            last = error;
          } finally {
            clearTimeout(timer);
          }
        }
        throw last;
      };
      const breaker = new CircuitBreaker(action, { timeout: 3000, errorThresholdPercentage: 50, resetTimeout: 30000 });
      breaker.fallback(f);
      return () => breaker.fire();
    }
    default:
      throw new Error(`unknown variant ${name}; known: ${variantNames.join(', ')}`);
  }
}
