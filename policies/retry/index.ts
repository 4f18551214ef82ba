export { retry, RetryPolicy } from './retry.js';
export { sleep } from '../../lib/sleep.js';
export type { RetryOptions } from './options.js';
export { constant, linear, exponential, type Backoff, type BackoffFunction, type ExponentialOptions, type Jitter } from './backoff.js';
export {
  tokenBudget,
  sloBudget,
  type RetryBudget,
  type TokenBudgetOptions,
  type SloBudgetOptions,
} from './budget.js';
export type { RetryEvent, GiveUpEvent, SuccessEvent } from './events.js';
