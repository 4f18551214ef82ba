/**
 * The plain option checks of `retry` and the zod schemas behind
 * `breakwater/config` agree: each case goes through both, and both accept it
 * with the same result or reject it with the same issues (path and message).
 * The type pins keep each written-out options interface equal to its schema's
 * input type.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { z } from 'zod';
import { retryOptions, type RetryOptions } from '../../../policies/retry/options.js';
import { constant, exponentialOptions, type ExponentialOptions } from '../../../policies/retry/backoff.js';
import { sloBudgetOptions, tokenBudget, tokenBudgetOptions, type SloBudgetOptions, type TokenBudgetOptions } from '../../../policies/retry/budget.js';
import { ExponentialOptionsSchema, RetryOptionsSchema, SloBudgetOptionsSchema, TokenBudgetOptionsSchema } from '../../../policies/retry/schema.js';
import { parity, schema, clock, yes } from '../../helpers/parity.js';

parity(
  'retry',
  retryOptions,
  RetryOptionsSchema,
  [{}, { maxAttempts: 1, backoff: constant(5), maxDelayMs: 0, handle: yes, handleResult: yes, budget: tokenBudget(), name: 'r', clock, random: Math.random }, { backoff: () => 3 }],
  [{ maxAttempts: 0 }, { maxAttempts: 2.5 }, { maxDelayMs: -1 }, { backoff: 5 }, { budget: {} }, { handle: true }, { name: '' }, { random: 0.3 }, { maxAttempts: 0, maxDelayMs: -1, extra: 1 }],
);
parity(
  'exponential',
  exponentialOptions,
  ExponentialOptionsSchema,
  [{}, { initial: 5, multiplier: 1, max: 5, jitter: 'none' }],
  [{ initial: 0 }, { multiplier: 0.5 }, { max: 50 }, { initial: 200, max: 100 }, { jitter: 'wild' }, { multiplier: 0.5, max: 50, other: 1 }, { initial: 'x', max: 1 }],
);
parity('tokenBudget', tokenBudgetOptions, TokenBudgetOptionsSchema, [{}, { ratio: 1, minPerSecond: 0, windowMs: 1 }], [{ ratio: 1.5 }, { minPerSecond: -1 }, { windowMs: 0 }]);
parity('sloBudget', sloBudgetOptions, SloBudgetOptionsSchema, [{}, { sloWindowMs: 1, fraction: 0, maxRetries: 0, latencyWindowMs: 1 }], [
  { sloWindowMs: 0 },
  { fraction: -0.1 },
  { maxRetries: -1 },
  { maxRetries: 0.5 },
  { latencyWindowMs: -3 },
]);

describe('options interfaces equal their schemas', () => {
  it('pins each interface to its schema input type', () => {
    expectTypeOf<RetryOptions>().toEqualTypeOf<z.input<typeof RetryOptionsSchema>>();
    expectTypeOf<ExponentialOptions>().toEqualTypeOf<z.input<typeof ExponentialOptionsSchema>>();
    expectTypeOf<TokenBudgetOptions>().toEqualTypeOf<z.input<typeof TokenBudgetOptionsSchema>>();
    expectTypeOf<SloBudgetOptions>().toEqualTypeOf<z.input<typeof SloBudgetOptionsSchema>>();
  });
});
