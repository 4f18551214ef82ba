import type { Observable } from 'rxjs';
import { policy } from '../lib/builder.js';
import type { Clock } from '../lib/clock.js';
import type { PolicyEvent } from '../lib/events.js';
import type { ExecuteOptions, Policy } from '../lib/policy.js';
import { tokenBudget } from '../policies/retry/index.js';
import type { Dependency } from './dependency.js';
import { MODEL } from './model.js';

/** What a degraded answer (a fallback's) is, told apart from C's by identity. */
export const DEGRADED = Object.freeze({ from: 'fallback' });
/** The fallback handler every row with a fallback uses. */
const degraded = (): typeof DEGRADED => DEGRADED;

/** A writer row (`writeBehind`): `write(payload)` resolves when delivered or durably queued. */
export interface Writer {
  write(payload: unknown, options?: ExecuteOptions): Promise<unknown>;
  readonly events$?: Observable<PolicyEvent>;
}

/** What B calls C through: a policy, or a writer. */
export type Protection = Policy<unknown> | Writer;

/** Builds a row's protection for one run, on the lab's clock and seeded random source. */
export type RowFactory = (clock: Clock, random: () => number, c: Dependency) => Protection;

/** One row of the lab: how to build it, and whether it holds a breaker (for `rtoMax`). */
export interface RowSpec {
  readonly make: RowFactory;
  readonly breaker: boolean;
}

const T = MODEL.attemptTimeoutMs;
const row = (make: RowFactory, breaker = false): RowSpec => ({ make, breaker });
const b = (clock: Clock, random: () => number) => policy({ clock, random });

/**
 * Every row of the lab, in table order: name → factory. Adding a row is one
 * line. `baseline` has no protection at all (B waits as long as A lets it);
 * `naiveRetry` is the common anti-pattern: 3 tries of 300 ms, no budget, no breaker.
 */
export const ROWS = {
  baseline: row((clock) => policy({ clock })),
  naiveRetry: row((clock, random) => b(clock, random).timeout(T).retry({ maxAttempts: 3 })),
  failFast: row((clock, random) => b(clock, random).timeout(T).sreBreaker(), true),
  boundedRetry: row((clock, random) => b(clock, random).timeout(T).retry({ maxAttempts: 3 }).timeout(MODEL.callerPatienceMs)),
  budgetedRetry: row((clock, random) => b(clock, random).timeout(T).retry({ maxAttempts: 3, budget: tokenBudget() })),
  standard: row((clock, random) => b(clock, random).timeout(T).retry({ maxAttempts: 3 }).sreBreaker().fallback(degraded), true),
  guardedRetry: row((clock, random) => b(clock, random).timeout(T).circuitBreaker({ strategy: 'errorRatio' }).retry({ maxAttempts: 3 }), true),
  slowCallShield: row(
    (clock, random) => b(clock, random).timeout(T).circuitBreaker({ strategy: 'slowCallRatio', slowCallMs: 200 }).fallback(degraded),
    true,
  ),
  errorCountTrip: row((clock, random) => b(clock, random).circuitBreaker({ strategy: 'consecutiveFailures', threshold: 5 }).fallback(degraded), true),
  fallbackChain: row((clock, random) => b(clock, random).timeout(T).sreBreaker().fallbackChain(degraded), true),
  layeredBreakers: row(
    (clock, random) =>
      b(clock, random)
        .timeout(T)
        .keyedBreaker((ctx) => ctx.meta.method ?? 'get')
        .keyedBreaker((ctx) => ctx.meta.service ?? 'C')
        .fallback(degraded),
    true,
  ),
} satisfies Record<string, RowSpec>;

/** A row's name. */
export type RowName = keyof typeof ROWS;
/** Every row name, in table order. */
export const ROW_NAMES = Object.keys(ROWS) as RowName[];
