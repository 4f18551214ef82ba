import { expectAssignable, expectError, expectType } from 'tsd';
import type { z } from 'zod';
import { adaptiveLimiter, fallback, isConcurrencyLimitedError, pipe, policy, retry, strategies, timeout, type AdaptiveLimiterOptions, type AdaptiveLimiterPolicy, type AdaptiveLimiterStats, type ConcurrencyLimitedError, type LimitChangeReason, type LimiterPermit, type Policy, type PolicyEvent } from '../../dist/index.js';
import { AdaptiveLimiterOptionsSchema } from '../../dist/config.js';
import type { PermitSource } from '../../dist/http.js';

interface User {
  id: string;
}
declare const getUser: () => Promise<User>;

// The written-out options are exactly the schema's input.
declare const schemaInput: z.input<typeof AdaptiveLimiterOptionsSchema>;
declare const written: AdaptiveLimiterOptions;
expectType<AdaptiveLimiterOptions>(schemaInput);
expectType<z.input<typeof AdaptiveLimiterOptionsSchema>>(written);

expectType<AdaptiveLimiterPolicy>(adaptiveLimiter());
expectAssignable<Policy<never>>(adaptiveLimiter({ algorithm: 'vegas' }));
expectType<Promise<User>>(adaptiveLimiter().execute(getUser));
expectType<Promise<User>>(policy().timeout(300).adaptiveLimit().retry({ maxAttempts: 3 }).execute(getUser));
expectType<Promise<User | null>>(pipe(timeout(300), adaptiveLimiter({ algorithm: { kind: 'aimd', backoffRatio: 0.8 } }), retry(), fallback(() => null)).execute(getUser));
expectType<LimiterPermit>(adaptiveLimiter().allow());
expectType<LimiterPermit>(adaptiveLimiter({ reserve: { sheddable: 0.2 }, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' }).allow({ meta: { traffic: 'live' } }));
expectType<number>(adaptiveLimiter({ partitions: { critical: 0.5 } }).inFlightIn('critical'));
expectError(adaptiveLimiter({ partitions: { live: '90%' } }));
expectError(adaptiveLimiter().allow({ meta: { criticality: 1 } }));
expectType<AdaptiveLimiterStats>(adaptiveLimiter().stats());
expectType<number>(adaptiveLimiter().limit);
// A server guard takes it as it is: its allow() admits synchronously.
expectAssignable<PermitSource>(adaptiveLimiter());

declare const error: unknown;
if (isConcurrencyLimitedError(error)) {
  expectType<ConcurrencyLimitedError>(error);
  expectType<number | undefined>(error.retryAfterMs);
  expectType<'CONCURRENCY_LIMITED'>(error.code);
}

declare const event: PolicyEvent;
if (event.type === 'limitChanged') {
  expectType<number>(event.to);
  expectType<LimitChangeReason>(event.reason);
  expectType<number | undefined>(event.baselineMs);
}

// strategies.standard takes one per attempt
expectType<Promise<User | null>>(strategies.standard({ timeoutMs: 300, concurrency: true, fallback: () => null }).execute(getUser));
expectType<Promise<User | null>>(strategies.standard({ concurrency: { algorithm: 'aimd', isOverload: (e) => e instanceof Error }, fallback: () => null }).execute(getUser));
expectError(strategies.standard({ concurrency: { limit: 3 }, fallback: () => null }));

expectError(adaptiveLimiter({ algorithm: 'bbr' }));
expectError(adaptiveLimiter({ algorithm: { kind: 'aimd', tolerance: 2 } }));
expectError(adaptiveLimiter({ initialLimit: '20' }));
expectError(adaptiveLimiter({ limit: 20 }));
expectError(adaptiveLimiter({ isOverload: true }));
expectError(policy().adaptiveLimit({ maxLimit: 'many' }));
