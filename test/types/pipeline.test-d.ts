import { expectAssignable, expectError, expectType } from 'tsd';
import {
  fallback,
  fallbackChain,
  pipe,
  policy,
  retry,
  timeout,
  type ExecutionContext,
  type Policy,
  type PolicyEvent,
} from '../../dist/index.js';

interface User {
  id: string;
}
declare const getUser: (ctx: ExecutionContext) => Promise<User>;

expectType<Promise<number>>(policy().timeout(100).retry({ maxAttempts: 3 }).execute(async () => 1));
expectType<Promise<number | 'stale'>>(policy().timeout(100).fallback(() => 'stale' as const).execute(async () => 1));
expectType<Promise<User | null>>(pipe(timeout(100), retry(), fallback(() => null)).execute(getUser));
expectType<Promise<User | 0 | 'x'>>(pipe(fallback(() => 0 as const), fallback(async () => 'x' as const)).execute(getUser));
expectType<Promise<User | 1 | 2>>(pipe(fallbackChain(() => 1 as const, async () => 2 as const)).execute(getUser));
expectType<Promise<User | 'a' | 'b'>>(policy().fallbackChain(() => 'a' as const, () => 'b' as const).execute(getUser));
declare const clock: ExecutionContext['clock'];
expectType<Promise<User | 1 | 2>>(fallbackChain(() => 1 as const, async () => 2 as const, { clock, name: 'reads' }).execute(getUser));
expectType<Promise<User | 'x'>>(fallback(() => 'x' as const, { clock }).execute(getUser));
expectError(fallbackChain(() => 1, { clok: clock }));
expectType<Promise<string>>(policy().execute(() => 'plain'));
expectType<Promise<string>>(policy().retry().execute(() => Promise.resolve('x') as PromiseLike<string>));

declare const custom: Policy<'custom'>;
expectType<Promise<number | 'custom'>>(policy().use(custom).execute(async () => 1));
expectType<Promise<number | 'custom' | null>>(pipe(custom, fallback(() => null)).execute(async () => 1));
expectAssignable<Policy<never>>(timeout(10));
expectAssignable<Policy<never>>(retry());

declare const event: PolicyEvent;
if (event.type === 'retry') expectType<number>(event.delayMs);

expectError(retry({ maxAttempts: '3' }));
expectError(retry({ jitter: 'full' }));
expectError(timeout('100'));
expectError(timeout({ ms: 100, mode: 'eager' }));
expectError(policy().retry({ maxAttempts: '3' }));

// Not policies, and misspelt builder options, are refused by the types too (and at run time, with a ConfigError).
expectError(pipe(timeout(10), {}));
expectError(policy().use({ execute: async () => 1 }));
expectError(policy({ clok: 1 }));
