import { expectAssignable, expectNotAssignable, expectType } from 'tsd';
import {
  breaker,
  retry,
  type BreakerRejectedEvent,
  type CacheHitEvent,
  type ConfigAppliedEvent,
  type GiveUpEvent,
  type LimitRejectedEvent,
  type OutcomeEvent,
  type PolicyEvent,
  type PolicyEventTypes,
  type ReplayedEvent,
  type RetryEvent,
  type StateChangeEvent,
  type TimeoutEvent,
} from '../../dist/index.js';

// Each policy's events reach the shared map and union from their own folder (declaration merging),
// in the built declaration files too.
expectType<RetryEvent>({} as PolicyEventTypes['retry']);
expectType<TimeoutEvent>({} as PolicyEventTypes['timeout']);
expectType<StateChangeEvent>({} as PolicyEventTypes['stateChange']);
expectType<ConfigAppliedEvent>({} as PolicyEventTypes['configApplied']);
expectType<ReplayedEvent>({} as PolicyEventTypes['replayed']);
expectType<OutcomeEvent>({} as PolicyEventTypes['outcome']);
expectAssignable<PolicyEvent>({} as CacheHitEvent);
expectAssignable<PolicyEvent>({} as LimitRejectedEvent);
expectNotAssignable<PolicyEvent>({ type: 'noSuchEvent', policy: 'p' });

declare const e: PolicyEvent;
if (e.type === 'giveUp') expectType<GiveUpEvent>(e);
if (e.type === 'stateChange') expectType<StateChangeEvent>(e);

retry().events$.subscribe((event) => {
  if (event.type === 'retry') expectType<number>(event.attempt);
});
breaker().events$.subscribe((event) => {
  if (event.type === 'rejected') expectType<BreakerRejectedEvent>(event);
});

// Every event's `type` is its key in the map, so no two events share a `type`.
type Mismatched = { [K in keyof PolicyEventTypes]: PolicyEventTypes[K]['type'] extends K ? (K extends PolicyEventTypes[K]['type'] ? never : K) : K }[keyof PolicyEventTypes];
expectType<never>({} as Mismatched);
expectType<LimitRejectedEvent>({} as PolicyEventTypes['limitRejected']);
expectType<BreakerRejectedEvent>({} as Extract<PolicyEvent, { type: 'rejected' }>);
