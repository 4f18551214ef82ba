import { expectAssignable, expectError, expectNotAssignable, expectType } from 'tsd';
import type { z } from 'zod';
import {
  adaptiveBreaker,
  breaker,
  breakerRegistry,
  circuitBreaker,
  fallback,
  keyedBreaker,
  pipe,
  policy,
  retry,
  sreBreaker,
  timeout,
  type AdaptiveBreakerOptions,
  type AdaptiveBreakerPolicy,
  type BreakerRegistry,
  type BreakerState,
  type CircuitBreakerOptions,
  type CircuitBreakerPolicy,
  type CircuitBreakerStrategyOptions,
  type ExecutionContext,
  type BreakerPermit,
  type Policy,
  type PolicyEvent,
  type SreBreakerPolicy,
} from '../../dist/index.js';
import { type AdaptiveBreakerOptionsSchema } from '../../dist/config.js';

interface User {
  id: string;
}
declare const getUser: (ctx: ExecutionContext) => Promise<User>;

expectType<Promise<User | null>>(pipe(timeout(100), retry(), breaker(), fallback(() => null)).execute(getUser));
expectType<Promise<User>>(pipe(timeout(100), circuitBreaker({ strategy: 'errorRatio', threshold: 0.5 })).execute(getUser));
expectType<Promise<number | 'stale'>>(policy().timeout(100).retry().breaker().fallback(() => 'stale' as const).execute(async () => 1));
expectType<Promise<number>>(policy().circuitBreaker({ strategy: 'consecutiveFailures', threshold: 5 }).execute(async () => 1));
expectType<Promise<number>>(policy().sreBreaker({ k: 2 }).execute(async () => 1));
expectAssignable<Policy<never>>(breaker());
expectAssignable<Policy<never>>(keyedBreaker((ctx) => ctx.meta.host ?? ''));

expectType<SreBreakerPolicy>(sreBreaker());
expectType<BreakerPermit>(breaker().allow());
expectType<BreakerState>(breaker().state);
expectType<'closed' | 'open'>(sreBreaker().state);
expectType<AdaptiveBreakerPolicy>(breaker());
expectType<AdaptiveBreakerPolicy>(adaptiveBreaker({ tripMs: 500 }));
expectType<number>(breaker().stats().admitRatio);
expectType<BreakerState>(circuitBreaker({ strategy: 'errorCount' }).state);
expectType<number>(circuitBreaker({ strategy: 'errorCount' }).stats().consecutiveFailures);
// A count window and a growing open period.
expectType<BreakerState>(circuitBreaker({ trip: 'errorRatio', window: { type: 'count', size: 100 } }).state);
expectType<BreakerState>(circuitBreaker({ trip: 'errorCount', openMs: (openings, stats) => openings * 1_000 + stats.failures, maxOpenMs: 60_000 }).state);
expectType<BreakerState>(circuitBreaker({ trip: 'errorCount', openMs: { delay: (n: number) => n * 1_000, max: 10_000 } }).state);
expectError(circuitBreaker({ trip: 'errorRatio', window: { type: 'time', size: 100 } }));
expectError(circuitBreaker({ trip: 'errorRatio', window: { type: 'count' } }));
expectError(circuitBreaker({ trip: 'errorRatio', openMs: '5s' }));
expectType<number>(sreBreaker().stats().workingBuckets);
expectType<BreakerRegistry<CircuitBreakerPolicy>>(breakerRegistry({ defaults: { strategy: 'errorRatio' } }));
expectType<BreakerRegistry<AdaptiveBreakerPolicy>>(breakerRegistry());
expectType<BreakerRegistry<AdaptiveBreakerPolicy>>(breakerRegistry({ defaults: { tripMs: 500 } }));
expectType<BreakerRegistry<SreBreakerPolicy>>(breakerRegistry({ defaults: { family: 'sre', k: 2 } }));

// The written-out options interface is the schema's input type, both ways.
declare const written: AdaptiveBreakerOptions;
declare const parsed: z.input<typeof AdaptiveBreakerOptionsSchema>;
expectAssignable<z.input<typeof AdaptiveBreakerOptionsSchema>>(written);
expectAssignable<AdaptiveBreakerOptions>(parsed);
expectType<Required<AdaptiveBreakerOptions>>({} as Required<z.input<typeof AdaptiveBreakerOptionsSchema>>);
expectNotAssignable<AdaptiveBreakerOptions>({ minK: 1.1 });

declare const event: PolicyEvent;
if (event.type === 'stateChange') {
  expectType<BreakerState>(event.to);
  expectType<number | undefined>(event.figure);
}
if (event.type === 'forcePass') expectType<number>(event.dropRatio);

expectError(breaker({ k: 'high' }));
expectError(breaker({ tripMs: '250' }));
expectError(breaker({ minK: 1.1 }));
expectError(policy().breaker({ probeRatio: 'some' }));
expectError(sreBreaker({ buckets: '40' }));
expectError(circuitBreaker({ strategy: 'errorRatio', threshold: 'half' }));
expectError(circuitBreaker({ strategy: 'errorRatio', slowCallMs: 100 }));
expectError(circuitBreaker({ strategy: 'sometimes' }));
expectError(circuitBreaker({ threshold: 0.5 }));
expectError(circuitBreaker({ strategy: 'custom' }));
expectError(policy().circuitBreaker({ strategy: 'errorRatio', threshold: 'half' }));
expectError(policy().breaker({ k: 'high' }));

// circuitBreaker names its trip rule by `trip`, or by `strategy`, its deprecated name; never both.
expectType<CircuitBreakerPolicy>(circuitBreaker({ trip: 'errorRatio', threshold: 0.5 }));
expectType<CircuitBreakerPolicy>(circuitBreaker({ strategy: 'errorRatio', threshold: 0.5 }));
expectType<CircuitBreakerPolicy>(circuitBreaker({ trip: 'custom', readyToTrip: (s) => s.consecutiveFailures > 2 }));
expectType<Promise<number>>(policy().circuitBreaker({ trip: 'consecutiveFailures', threshold: 5 }).execute(async () => 1));
expectType<BreakerRegistry<CircuitBreakerPolicy>>(breakerRegistry({ defaults: { trip: 'errorRatio' } }));
expectType<void>(circuitBreaker({ trip: 'errorRatio' }).reconfigure({ trip: 'errorRatio', threshold: 0.3 }));
expectType<void>(circuitBreaker({ strategy: 'errorRatio' }).reconfigure({ strategy: 'errorRatio', threshold: 0.3 }));
expectAssignable<CircuitBreakerOptions>({ trip: 'slowCallRatio', slowCallMs: 500 });
expectAssignable<CircuitBreakerStrategyOptions>({ strategy: 'slowCallRatio', slowCallMs: 500 });
expectNotAssignable<CircuitBreakerStrategyOptions>({ trip: 'slowCallRatio', slowCallMs: 500 });
expectError(circuitBreaker({ trip: 'errorRatio', strategy: 'errorRatio' }));
expectError(circuitBreaker({ trip: 'errorRatio', threshold: 'half' }));
expectError(circuitBreaker({ trip: 'errorRatio', slowCallMs: 100 }));
expectError(circuitBreaker({ trip: 'sometimes' }));
expectError(circuitBreaker({ trip: 'custom' }));
expectError(policy().circuitBreaker({ trip: 'errorRatio', strategy: 'errorRatio' }));
expectError(breakerRegistry({ defaults: { trip: 'errorRatio', strategy: 'errorRatio' } }));
expectError(circuitBreaker({ trip: 'errorRatio' }).reconfigure({ trip: 'errorRatio', strategy: 'errorRatio' }));
