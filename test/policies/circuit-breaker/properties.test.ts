import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  circuitBreaker,
  sreBreaker,
  type CircuitBreakerOptions,
  type Clock,
  type BreakerPermit,
  type PolicyEvent,
} from '../../../api/index.js';
import { T0 } from '../../helpers/breakers.js';
import { runs } from '../../helpers/fuzz.js';

/** A synchronous manual clock: properties need no timers. */
function manualClock(): Clock & { t: number } {
  return { t: T0, now() { return this.t; }, setTimeout: () => 0, clearTimeout: () => {} };
}

type Step =
  | { op: 'success' | 'failure' | 'hold' }
  | { op: 'settle'; which: number; how: 'success' | 'failure' | 'release' }
  | { op: 'advance'; ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant<Step>({ op: 'success' }), weight: 3 },
  { arbitrary: fc.constant<Step>({ op: 'failure' }), weight: 3 },
  { arbitrary: fc.constant<Step>({ op: 'hold' }), weight: 3 },
  {
    arbitrary: fc.record({ op: fc.constant('settle' as const), which: fc.nat(), how: fc.constantFrom('success' as const, 'failure' as const, 'release' as const) }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant('advance' as const), ms: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 3_000 })) }), weight: 2 },
);

const machineOptions: fc.Arbitrary<CircuitBreakerOptions> = fc.oneof(
  fc.record({ strategy: fc.constant('errorRatio' as const), threshold: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ strategy: fc.constant('slowCallRatio' as const), threshold: fc.double({ min: 0, max: 1, noNaN: true }), slowCallMs: fc.integer({ min: 0, max: 200 }) }),
  fc.record({ strategy: fc.constant('errorCount' as const), threshold: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ strategy: fc.constant('consecutiveFailures' as const), threshold: fc.integer({ min: 0, max: 6 }) }),
  fc.record({ strategy: fc.constant('dynamicThreshold' as const), baseRps: fc.integer({ min: 1, max: 50 }) }),
);

const LEGAL = new Set(['closed>open:threshold', 'open>half-open:retryTimeout', 'half-open>open:probeFailed', 'half-open>open:halfOpenTimeout', 'half-open>closed:probesSucceeded']);

let transitions = 0;
let halfOpenAdmits = 0;

describe('circuitBreaker properties', () => {
  it('makes only legal transitions; never trips under minRequests (but consecutiveFailures); half-open admits at most `probes` at once', () => {
    fc.assert(
      fc.property(
        machineOptions,
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.array(step, { minLength: 20, maxLength: 120, size: 'max' }),
        (options, minRequests, probes, steps) => {
          const clock = manualClock();
          const b = circuitBreaker({ ...options, minRequests, probes, openMs: 200, maxHalfOpenMs: 2_000, windowMs: 1_000, buckets: 4, clock });
          let state = b.state as string;
          let probesInFlight = new Set<BreakerPermit>();
          // rxjs reports a throwing subscriber asynchronously: collect, assert after each step.
          const wrong: string[] = [];
          b.events$.subscribe((e: PolicyEvent) => {
            if (e.type !== 'stateChange') return;
            transitions++;
            if (e.from !== state) wrong.push(`from ${e.from}, was ${state}`);
            if (!LEGAL.has(`${e.from}>${e.to}:${e.reason}`)) wrong.push(`${e.from}>${e.to}:${e.reason}`);
            if (e.reason === 'threshold' && options.strategy !== 'consecutiveFailures' && b.stats().total < minRequests) {
              wrong.push(`tripped with ${b.stats().total} < ${minRequests}`);
            }
            state = e.to;
            probesInFlight = new Set();
          });
          const held: BreakerPermit[] = [];
          for (const s of steps) {
            expect(wrong).toEqual([]);
            if (s.op === 'advance') {
              clock.t += s.ms;
              continue;
            }
            if (s.op === 'settle') {
              const p = held.splice(s.which % Math.max(held.length, 1), 1)[0];
              if (p === undefined) continue;
              probesInFlight.delete(p);
              p[s.how]();
              continue;
            }
            let p: BreakerPermit;
            try {
              p = b.allow();
            } catch {
              continue;
            }
            if (b.state === 'half-open') {
              halfOpenAdmits++;
              probesInFlight.add(p);
              expect(probesInFlight.size).toBeLessThanOrEqual(probes);
            }
            if (s.op === 'hold') held.push(p);
            else {
              probesInFlight.delete(p);
              p[s.op]();
            }
          }
          expect(wrong).toEqual([]);
        },
      ),
      { numRuns: runs(500) },
    );
    // the runs must reach the states they check
    expect(transitions).toBeGreaterThan(1_500);
    expect(halfOpenAdmits).toBeGreaterThan(1_000);
  });
});

describe('sreBreaker properties', () => {
  it('never sheds, nor draws, while the step-6 drop ratio is <= 0; moves only between closed and open', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 20, maxLength: 150, size: 'max' }), fc.double({ min: 1.1, max: 3, noNaN: true }), fc.integer({ min: 0, max: 8 }), (steps, k, protection) => {
        const clock = manualClock();
        let draws = 0;
        const b = sreBreaker({ clock, k, protection, forcePassMs: 100_000, random: () => (draws++, 0) });
        const wrong: string[] = [];
        b.events$.subscribe((e) => {
          if (e.type === 'stateChange' && !/^(closed>open|open>closed)$/.test(`${e.from}>${e.to}`)) wrong.push(`${e.from}>${e.to}`);
        });
        const held: BreakerPermit[] = [];
        for (const s of steps) {
          if (s.op === 'advance') {
            clock.t += s.ms;
            continue;
          }
          if (s.op === 'settle') {
            held.splice(s.which % Math.max(held.length, 1), 1)[0]?.[s.how]();
            continue;
          }
          const st = b.stats();
          const w = k - ((k - 1.1) * st.failingBuckets) / 40;
          const ratio = (st.total - protection - Math.max(w, 1.1) * st.accepts) / (st.total + 1);
          const before = draws;
          let p: BreakerPermit | undefined;
          try {
            p = b.allow();
          } catch {
            expect(ratio).toBeGreaterThan(0);
            continue;
          }
          if (ratio <= 0) {
            expect(draws).toBe(before);
            expect(b.state).toBe('closed');
          } else expect(b.state).toBe('open');
          if (s.op === 'hold') held.push(p);
          else p[s.op]();
        }
        expect(wrong).toEqual([]);
      }),
      { numRuns: runs(500) },
    );
  });
});
