import { describe, expect, it } from 'vitest';
import { checkOptions, Findings } from '../../../lib/options.js';
import { ConfigError } from '../../../lib/errors.js';
import { TestClock } from '../../../lib/testing.js';
import { circuitBreakerOptions, hasOption } from '../../../policies/circuit-breaker/options.js';
import { issuesOf } from '../../helpers/config-issues.js';

const check = (input: unknown) => checkOptions(circuitBreakerOptions, input, 'circuitBreaker');
const yes = () => true;
const clock = new TestClock();

/** One input of every trip rule, without the rule's name. */
const RULES: Record<string, Record<string, unknown>> = {
  slowCallRatio: { threshold: 0.3, slowCallMs: 200 },
  errorRatio: { threshold: 0.5, minRequests: 10, clock },
  errorCount: { threshold: 3, windowMs: 5_000, buckets: 5 },
  consecutiveFailures: { threshold: 2, handle: yes },
  dynamicThreshold: { weights: { rps: 0.1 }, baseRps: 50 },
  custom: { readyToTrip: yes, name: 'c' },
};

describe('circuitBreakerOptions', () => {
  it('one mistake, one report: the grid rule runs only on options that passed their own rules', () => {
    expect(issuesOf(() => check({ trip: 'errorRatio', buckets: 0 }))).toEqual([{ path: 'buckets', message: 'expected an integer >= 1' }]);
    expect(issuesOf(() => check({ trip: 'errorRatio', windowMs: 1_000, buckets: 3 }))).toEqual([
      { path: 'buckets', message: 'must divide windowMs (1000) into whole milliseconds' },
    ]);
  });

  it('resolves trip and its deprecated name strategy to the same options, for every trip rule', () => {
    for (const [rule, rest] of Object.entries(RULES)) {
      const byTrip = check({ trip: rule, ...rest });
      expect(byTrip, rule).toEqual(check({ strategy: rule, ...rest }));
      expect(byTrip.strategy, rule).toBe(rule);
      expect('trip' in byTrip, rule).toBe(false);
    }
  });

  it('refuses trip and strategy together, naming both, whether they agree or not', () => {
    const both = { path: 'strategy', message: 'expected trip or strategy, not both (strategy is the deprecated name of trip)' };
    expect(issuesOf(() => check({ trip: 'errorRatio', strategy: 'errorRatio' }))).toEqual([both]);
    expect(issuesOf(() => check({ trip: 'errorRatio', strategy: 'errorCount', threshold: 2 }))).toEqual([both]);
    expect(() => check({ trip: 'errorRatio', strategy: 'errorRatio' })).toThrow(
      'invalid circuitBreaker options: strategy: expected trip or strategy, not both (strategy is the deprecated name of trip)',
    );
  });

  it('says trip, never strategy, to a caller who wrote trip', () => {
    const variants = "Invalid discriminator value. Expected 'slowCallRatio' | 'errorRatio' | 'errorCount' | 'consecutiveFailures' | 'dynamicThreshold' | 'custom'";
    expect(issuesOf(() => check({ trip: 'sometimes' }))).toEqual([{ path: 'trip', message: variants }]);
    expect(issuesOf(() => check({ trip: 7 }))).toEqual([{ path: 'trip', message: variants }]);
    expect(issuesOf(() => check({ strategy: 'sometimes' }))).toEqual([{ path: 'strategy', message: variants }]);
    // the other options keep their paths, nested ones included
    expect(issuesOf(() => check({ trip: 'dynamicThreshold', weights: { rps: -1 }, openMs: 0 })).map((i) => i.path)).toEqual(['weights.rps', 'openMs']);
    for (const issue of issuesOf(() => check({ trip: 'errorRatio', threshold: 2, windowMs: 1_000, buckets: 3, extra: 1 }))) {
      expect(`${issue.path}: ${issue.message}`).not.toMatch(/strategy/);
    }
  });

  it('renames only the option at its own depth: inside defaults, defaults.trip', () => {
    const found = new Findings();
    circuitBreakerOptions({ trip: 'nope' }, ['defaults'], found);
    expect(found.issues().map((i) => i.path)).toEqual(['defaults.trip']);
    const both = new Findings();
    circuitBreakerOptions({ trip: 'errorRatio', strategy: 'errorRatio' }, ['defaults'], both);
    expect(both.issues().map((i) => i.path)).toEqual(['defaults.strategy']);
  });

  it('with neither, says strategy, as the config schema does', () => {
    expect(issuesOf(() => check({ threshold: 0.5 })).map((i) => i.path)).toEqual(['strategy']);
  });

  it('takes an option set to undefined as not given', () => {
    expect(check({ strategy: 'errorRatio', trip: undefined })).toEqual(check({ strategy: 'errorRatio' }));
    expect(check({ trip: 'errorRatio', strategy: undefined })).toEqual(check({ strategy: 'errorRatio' }));
  });

  it('refuses what is not an object as before', () => {
    for (const v of ['x', null, 3]) expect(() => check(v)).toThrow(ConfigError);
  });
});

describe('hasOption', () => {
  it('is true only for a key set to something other than undefined', () => {
    expect(hasOption({ trip: 'errorRatio' }, 'trip')).toBe(true);
    expect(hasOption({ trip: null }, 'trip')).toBe(true);
    expect(hasOption({ trip: undefined }, 'trip')).toBe(false);
    expect(hasOption({}, 'trip')).toBe(false);
  });
});
