// The subjects compared: breakwater (from the build in dist/) and the
// reference libraries, each configured as its documentation suggests.
import {
  circuitBreaker as cockatielBreaker,
  ConsecutiveBreaker,
  ExponentialBackoff,
  fallback as cockatielFallback,
  handleAll,
  retry as cockatielRetry,
  SamplingBreaker,
  timeout as cockatielTimeout,
  TimeoutStrategy,
  wrap,
} from 'cockatiel';
import Opossum from 'opossum';
import { breaker, circuitBreaker, policy, sreBreaker, timeout } from '../../dist/index.js';

/** The operation every subject protects: an async function that succeeds at once. */
export const op = async () => 1;

/** `policy().timeout(1000).retry({ maxAttempts: 3 }).breaker().fallback(() => 0)`: timeout innermost, fallback outermost. */
export function canonicalChain() {
  return policy().timeout(1000).retry({ maxAttempts: 3 }).breaker().fallback(() => 0);
}

/** cockatiel's equivalent. Its `wrap` puts its FIRST argument outermost: fallback(breaker(retry(timeout(op)))). */
export function cockatielChain() {
  return wrap(
    cockatielFallback(handleAll, () => 0),
    cockatielBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
    cockatielRetry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() }), // 2 retries: 3 tries in all
    cockatielTimeout(1000, TimeoutStrategy.Cooperative),
  );
}

export const ourBreakers = {
  'breaker (default)': () => breaker(),
  sreBreaker: () => sreBreaker(),
  'circuitBreaker(errorRatio)': () => circuitBreaker({ trip: 'errorRatio' }),
};

export const cockatielBreakers = {
  'cockatiel ConsecutiveBreaker': () => cockatielBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
  'cockatiel SamplingBreaker': () =>
    cockatielBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new SamplingBreaker({ threshold: 0.5, duration: 10_000 }) }),
};

/** opossum around `fn`. `timeout: false` leaves out its per-call timer, so its figure is the breaker's alone (the fairest for it). */
export function opossum(fn, options = { timeout: false }) {
  return new Opossum(fn, options);
}

/** breakwater's timeout alone. */
export function ourTimeout() {
  return timeout(1000);
}

/** cockatiel's cheapest timeout: cooperative (no race, only an AbortController and a timer). */
export function cockatielTimeoutPolicy() {
  return cockatielTimeout(1000, TimeoutStrategy.Cooperative);
}
