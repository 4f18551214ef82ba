import { expectError, expectType } from 'tsd';
import { constant, exponential, sloBudget, strategies, tokenBudget, type ExecutionContext } from '../../dist/index.js';
import { fromConfig } from '../../dist/config.js';

interface User {
  id: string;
}
declare const getUser: (ctx: ExecutionContext) => Promise<User>;

expectType<Promise<User | null>>(strategies.standard({ fallback: () => null }).execute(getUser));
expectType<Promise<User | 'guest'>>(strategies.layeredBreakers({ fallback: async () => 'guest' as const }).execute(getUser));
expectType<Promise<User>>(strategies.failFast({ timeoutMs: 100 }).execute(getUser));

const guest = (): { id: 'guest' } => ({ id: 'guest' });
expectType<Promise<User | { id: 'guest' }>>(
  fromConfig({ policies: [{ type: 'timeout', ms: 100 }, { type: 'fallback', handler: 'guest' }] }, { guest }).execute(getUser),
);
expectType<Promise<User | 1 | 2>>(
  fromConfig({ policies: [{ type: 'fallbackChain', handlers: ['a', 'b'] }] }, { a: () => 1 as const, b: async () => 2 as const }).execute(getUser),
);
expectType<Promise<User | null>>(fromConfig({ strategy: 'standard', fallback: 'none' }, { none: () => null }).execute(getUser));

// In code, backoff and budget take the objects retry() takes, or their data form.
const shared = tokenBudget({ ratio: 0.1 });
expectType<Promise<User | null>>(strategies.standard({ backoff: exponential({ initial: 50 }), fallback: () => null }).execute(getUser));
expectType<Promise<User>>(strategies.boundedRetry({ backoff: constant(10) }).execute(getUser));
expectType<Promise<User>>(strategies.guardedRetry({ backoff: (retry: number) => retry * 100 }).execute(getUser));
expectType<Promise<User>>(strategies.idempotentRetry({ backoff: { kind: 'linear', ms: 10, step: 5 } }).execute(getUser));
expectType<Promise<User>>(strategies.budgetedRetry({ budget: shared, backoff: exponential() }).execute(getUser));
expectType<Promise<User>>(strategies.budgetedRetry({ budget: sloBudget({ maxRetries: 2 }) }).execute(getUser));
expectType<Promise<User>>(strategies.budgetedRetry({ budget: { kind: 'token', ratio: 0.2 } }).execute(getUser));
expectError(strategies.failFast({ backoff: exponential() }));
expectError(strategies.guardedRetry({ budget: shared }));
expectType<Promise<User | null>>(strategies.standard({ budget: shared, fallback: () => null }).execute(getUser));
expectType<Promise<User | null>>(strategies.standard({ budget: false, concurrency: false, fallback: () => null }).execute(getUser));
expectError(strategies.standard({ budget: true, fallback: () => null }));
expectError(strategies.boundedRetry({ backoff: 'exponential' }));
