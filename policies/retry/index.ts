export { retry, RetryPolicy } from './retry.js';
export { sleep } from '../../lib/sleep.js';
export { RetryOptionsSchema, type RetryOptions } from './options.js';
export { constant, linear, exponential, ExponentialOptionsSchema, type Backoff, type BackoffFunction, type ExponentialOptions, type Jitter } from './backoff.js';
export {
  tokenBudget,
  sloBudget,
  TokenBudgetOptionsSchema,
  SloBudgetOptionsSchema,
  type RetryBudget,
  type TokenBudgetOptions,
  type SloBudgetOptions,
} from './budget.js';
export type { RetryEvent, GiveUpEvent, SuccessEvent } from './events.js';
