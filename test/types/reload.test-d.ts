import { expectError, expectType } from 'tsd';
import { adaptiveLimiter, breakerRegistry, idempotent, keyedBreaker, loadShedder, memoryStore } from '../../dist/index.js';

// What a hot reload may give each policy: the options a config can carry, never a clock, a name or a function it cannot.
const shed = loadShedder();
expectType<void>(shed.reconfigure({ cpuThreshold: 0.8, coolOffMs: 2_000, reserve: { sheddable: 0.3 }, windowMs: 5_000, buckets: 50 }));
expectError(shed.reconfigure({ cpu: 0.5 }));
expectError(shed.reconfigure({ name: 'other' }));

const limiter = adaptiveLimiter();
expectType<void>(limiter.reconfigure({ algorithm: { kind: 'vegas', alpha: 2, beta: 4 }, minLimit: 2, maxLimit: 50, partitions: { live: 1 } }));
expectError(limiter.reconfigure({ isOverload: () => true }));
expectError(limiter.reconfigure({ clock: { now: () => 0 } }));

const once = idempotent();
expectType<void>(once.reconfigure({ leaseMs: 10_000, ttlMs: 60_000, renewLease: true, onInProgress: 'reject', pollMs: 50, storeTimeoutMs: 500, failOpen: true }));
expectError(once.reconfigure({ store: memoryStore() }));
expectError(once.reconfigure({ handleResult: () => false }));

const registry = breakerRegistry({ defaults: { trip: 'consecutiveFailures', threshold: 5 } });
expectType<void>(registry.reconfigure({ defaults: { trip: 'consecutiveFailures', threshold: 10 }, idleMs: 60_000 }));
expectError(registry.reconfigure({ defaults: { trip: 'consecutiveFailures', clock: { now: () => 0 } } }));
expectError(registry.reconfigure({ maxKeys: 10 }));
expectType<void>(keyedBreaker((ctx) => ctx.meta.host ?? '').reconfigure({ defaults: { family: 'sre', k: 2 } }));
