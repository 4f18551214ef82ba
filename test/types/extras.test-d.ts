import { expectAssignable, expectError, expectType } from 'tsd';
import {
  cache,
  chaos,
  hedge,
  memoryCacheStore,
  pipe,
  policy,
  retry,
  staleFallback,
  timeout,
  type CacheStore,
  type ChaosPolicy,
  type Policy,
  type PolicyEvent,
  type StaleEntry,
} from '../../dist/index.js';

// hedge and cache only pass results through
expectType<Promise<number>>(policy().hedge({ delayMs: 10, maxHedged: 2 }).execute(async () => 1));
expectType<Promise<number>>(policy().timeout(100).hedge().retry().execute(async () => 1));
expectType<Promise<number>>(policy().cache({ ttlMs: 10 }).execute(async () => 1, { key: 'k' }));
expectAssignable<Policy<never>>(hedge());
expectAssignable<Policy<never>>(cache({ ttlMs: 10 }));

// chaos widens by its substitute result
expectType<ChaosPolicy<'x'>>(chaos({ result: () => 'x' as const, injectionRate: 0.1 }));
expectType<ChaosPolicy<never>>(chaos({ fault: new Error('boom'), injectionRate: 0.1 }));
expectType<Promise<number | 'x'>>(policy().chaos({ result: () => 'x' as const, injectionRate: 0.1 }).execute(async () => 1));
expectType<Promise<number | 'x'>>(pipe(chaos({ result: async () => 'x' as const }), timeout(100), retry()).execute(async () => 1));
expectType<Promise<number>>(policy().chaos({ latency: 100 }).execute(async () => 1));
expectType<Promise<number | 'x' | null>>(
  policy().chaos({ result: () => 'x' as const }).fallback(() => null).execute(async () => 1),
);

// the stale snapshot source
const users = cache({ ttlMs: 1_000 });
expectType<Promise<StaleEntry<{ id: string }> | undefined>>(users.stale<{ id: string }>('k'));
expectType<Promise<number | { id: string }>>(policy().use(users).fallback(staleFallback<{ id: string }>(users)).execute(async () => 1));
expectAssignable<CacheStore>(memoryCacheStore({ maxEntries: 10 }));

// events
declare const event: PolicyEvent;
if (event.type === 'hedged') expectType<number>(event.delayMs);
if (event.type === 'won') expectType<number>(event.attempt);
if (event.type === 'injected') expectType<'fault' | 'latency' | 'result'>(event.kind);
if (event.type === 'hit') expectType<boolean>(event.stale);
if (event.type === 'miss') expectType<boolean>(event.coalesced);
if (event.type === 'revalidated') expectType<boolean>(event.ok);

// bad options
expectError(hedge({ maxHedged: '2' }));
expectError(hedge({ delayMs: '10' }));
expectError(policy().hedge({ maxHedged: '2' }));
expectError(chaos({ fault: 1, injectionRate: '0.1' }));
expectError(chaos({ fault: 1, enabled: 'yes' }));
expectError(cache({}));
expectError(cache({ ttlMs: '10' }));
expectError(policy().cache({ ttlMs: 10, store: 'redis' }));
expectError(memoryCacheStore({ maxEntries: '10' }));
