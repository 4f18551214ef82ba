import { expectAssignable, expectDeprecated, expectNotDeprecated, expectType } from 'tsd';
import {
  breaker,
  circuitBreaker,
  keyedBreaker,
  loadShedder,
  sreBreaker,
  type BreakerPermit,
  type CircuitBreaker,
  type CircuitBreakerPolicy,
  type CircuitBreakerStrategyOptions,
  type ErrorRatioOptions,
  type KeyedBreaker,
  type KeyedBreakerPolicy,
  type LoadShedder,
  type LoadShedderPolicy,
  type Permit,
  type SreBreaker,
  type SreBreakerPolicy,
} from '../../dist/index.js';

// Each deprecated alias names the same type as its new name, both ways.
expectType<SreBreaker>(sreBreaker());
expectAssignable<SreBreakerPolicy>({} as SreBreaker);
expectType<CircuitBreaker>(circuitBreaker({ strategy: 'errorRatio' }));
expectAssignable<CircuitBreakerPolicy>({} as CircuitBreaker);
expectType<KeyedBreaker<SreBreakerPolicy>>(keyedBreaker(() => 'k', { defaults: { family: 'sre' } }));
expectAssignable<KeyedBreakerPolicy>({} as KeyedBreaker);
expectType<LoadShedder>(loadShedder());
expectAssignable<LoadShedderPolicy>({} as LoadShedder);
expectType<Permit>(breaker().allow());
expectAssignable<BreakerPermit>({} as Permit);

// circuitBreaker's `strategy` option is the deprecated name of `trip`.
declare const legacy: Extract<CircuitBreakerStrategyOptions, { strategy: 'errorRatio' }>;
declare const current: ErrorRatioOptions;
expectDeprecated(legacy.strategy);
expectNotDeprecated(current.trip);
