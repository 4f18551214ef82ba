import { describe, expectTypeOf, it } from 'vitest';
import type { ConfigAnswer, EntryAnswer, StrategyAnswer } from '../../config/types.js';

// Type-level only: `tsc --noEmit -p .` (run by `npm test`'s build and by every commit) fails when one does not hold.
type H = { stale: () => Promise<{ cached: true }>; empty: () => null; count: () => number; notAFunction: 5 };

describe('config/types.ts: the answer type of a config, from the handlers it names', () => {
  it('an entry adds what its fallback-like handler returns, awaited; other entries add nothing', () => {
    expectTypeOf<EntryAnswer<{ type: 'fallback'; handler: 'stale' }, H>>().toEqualTypeOf<{ cached: true }>();
    expectTypeOf<EntryAnswer<{ type: 'fallbackChain'; handlers: readonly ('empty' | 'count')[] }, H>>().toEqualTypeOf<null | number>();
    expectTypeOf<EntryAnswer<{ type: 'degrade'; to: 'count' }, H>>().toEqualTypeOf<number>();
    expectTypeOf<EntryAnswer<{ type: 'chaos'; result: 'empty' }, H>>().toEqualTypeOf<null>();
    expectTypeOf<EntryAnswer<{ type: 'timeout'; ms: 5 }, H>>().toEqualTypeOf<never>();
    // a name that is not a handler, or not a function, adds nothing
    expectTypeOf<EntryAnswer<{ type: 'fallback'; handler: 'missing' }, H>>().toEqualTypeOf<never>();
    expectTypeOf<EntryAnswer<{ type: 'fallback'; handler: 'notAFunction' }, H>>().toEqualTypeOf<never>();
  });

  it('a strategy adds what its fallback, fallbacks and to name', () => {
    expectTypeOf<StrategyAnswer<{ strategy: 'x'; fallback: 'count' }, H>>().toEqualTypeOf<number>();
    expectTypeOf<StrategyAnswer<{ strategy: 'x'; fallbacks: readonly ('empty' | 'stale')[] }, H>>().toEqualTypeOf<null | { cached: true }>();
    expectTypeOf<StrategyAnswer<{ strategy: 'x'; to: 'empty' }, H>>().toEqualTypeOf<null>();
    expectTypeOf<StrategyAnswer<{ strategy: 'failFast' }, H>>().toEqualTypeOf<never>();
  });

  it('a config with policies is the union of its entries; a strategy config its strategy; anything else unknown', () => {
    type Policies = { policies: readonly ({ type: 'timeout'; ms: 5 } | { type: 'fallback'; handler: 'count' } | { type: 'chaos'; result: 'empty' })[] };
    expectTypeOf<ConfigAnswer<Policies, H>>().toEqualTypeOf<number | null>();
    expectTypeOf<ConfigAnswer<{ strategy: 'adaptiveDegrade'; fallback: 'stale' }, H>>().toEqualTypeOf<{ cached: true }>();
    expectTypeOf<ConfigAnswer<{ other: true }, H>>().toEqualTypeOf<unknown>();
  });
});
