import { Redis } from 'ioredis';
import { expectAssignable, expectError, expectType } from 'tsd';
import {
  bulkhead,
  keyedBulkhead,
  keyedRate,
  idempotent,
  leakyBucket,
  memoryStore,
  pipe,
  policy,
  rateLimiter,
  slidingWindow,
  timeout,
  tokenBucket,
  type IdempotencyStore,
  type Policy,
  type PolicyEvent,
  type RateAlgorithm,
} from '../../dist/index.js';
import { redisStore, redisTokenBucket } from '../../dist/redis.js';

interface Receipt {
  id: string;
}
declare const charge: () => Promise<Receipt>;
declare const redis: Redis;

expectType<Promise<Receipt>>(idempotent().execute(charge, { key: 'order:1' }));
expectType<Promise<Receipt>>(bulkhead({ limit: 2 }).execute(charge));
expectType<Promise<Receipt>>(rateLimiter({ algorithm: tokenBucket({ rate: 10 }) }).execute(charge));
expectType<Promise<Receipt>>(policy().timeout(100).idempotent().bulkhead({ limit: 1, queue: 5 }).rateLimiter({ algorithm: leakyBucket({ rate: 1 }) }).execute(charge));
expectType<Promise<Receipt | null>>(policy().bulkhead({ limit: 1 }).fallback(() => null).execute(charge));
expectType<Promise<Receipt>>(pipe(timeout(100), idempotent({ store: redisStore(redis, { prefix: 'p:' }) }), bulkhead({ limit: 4 })).execute(charge));
expectAssignable<Policy<never>>(idempotent());
expectAssignable<Policy<never>>(bulkhead({ limit: 1 }));
expectAssignable<Policy<never>>(rateLimiter({ algorithm: slidingWindow({ limit: 1, windowMs: 1_000 }) }));
expectAssignable<IdempotencyStore>(memoryStore());
expectAssignable<IdempotencyStore>(redisStore(redis));
expectAssignable<RateAlgorithm>(redisTokenBucket(redis, { key: 'k', rate: 5, burst: 2 }));

declare const event: PolicyEvent;
if (event.type === 'localFallback') expectType<boolean>(event.active);
if (event.type === 'takeover') expectType<string>(event.token);
if (event.type === 'queued') expectType<number>(event.queued);

expectError(bulkhead({ limit: '2' }));
expectError(bulkhead({ limit: 2, queue: 'none' }));
expectError(bulkhead({}));
expectError(tokenBucket({ rate: '5' }));
expectError(leakyBucket({ rate: 1, size: 2 }));
expectError(slidingWindow({ limit: 1 }));
expectError(rateLimiter({ algorithm: 'tokenBucket' }));
expectError(idempotent({ onInProgress: 'queue' }));
expectError(idempotent({ leaseMs: '1s' }));
expectError(idempotent({ store: {} }));
expectError(policy().idempotent({ failOpen: 1 }));
expectError(redisStore(redis, { prefix: 1 }));
expectError(redisTokenBucket(redis, { rate: 1 }));

// Keyed limits: a key function and an algorithm per key.
expectType<Promise<Receipt>>(keyedBulkhead({ key: (ctx) => ctx.meta.tenant ?? '', limit: 2, maxKeys: 100 }).execute(charge, { meta: { tenant: 't' } }));
expectAssignable<Policy<never>>(keyedBulkhead({ key: () => 'k', limit: 1 }));
expectAssignable<RateAlgorithm>(keyedRate({ key: (ctx) => ctx.meta.route ?? '', algorithm: { kind: 'tokenBucket', rate: 5 } }));
expectAssignable<RateAlgorithm>(keyedRate({ key: () => 'k', algorithm: () => tokenBucket({ rate: 5 }), idleMs: 60_000 }));
expectAssignable<RateAlgorithm>(redisTokenBucket(redis, { key: (ctx) => `tenant:${ctx.meta.tenant}`, rate: 5, maxKeys: 1_000 }));
expectError(keyedBulkhead({ limit: 1 }));
expectError(keyedBulkhead({ key: 'tenant', limit: 1 }));
expectError(keyedRate({ key: () => 'k', algorithm: 'tokenBucket' }));
expectError(keyedRate({ key: () => 'k', algorithm: { kind: 'tokenBucket', rate: 1 }, maxKeys: '10' }));
expectError(redisTokenBucket(redis, { key: 5, rate: 1 }));

// Criticality: a reserve per criticality, partitions by a ctx.meta key.
expectType<Promise<Receipt>>(bulkhead({ limit: 10, reserve: { sheddable: 0.3 }, partitions: { live: 0.9, batch: 0.1 }, partitionBy: 'traffic' }).execute(charge, { meta: { criticality: 'sheddable' } }));
expectType<number>(bulkhead({ limit: 10, partitions: { live: 1 } }).runningIn('live'));
expectType<Promise<Receipt>>(rateLimiter({ algorithm: tokenBucket({ rate: 10 }), reserve: { default: 0.1, sheddable: 0.4 } }).execute(charge));
expectError(bulkhead({ limit: 2, reserve: { critical: 0.1 } }));
expectError(bulkhead({ limit: 2, reserve: 0.1 }));
expectError(bulkhead({ limit: 2, partitions: [0.9, 0.1] }));
expectError(rateLimiter({ algorithm: tokenBucket({ rate: 10 }), reserve: { sheddable: '0.4' } }));
