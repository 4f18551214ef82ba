import { describe, expect, it } from 'vitest';
import { breaker, ConfigError } from '../../../api/index.js';
import { needed } from '../../../integrations/redis/fleet-options.js';
import { redisFleet, type RedisFleetOptions } from '../../../integrations/redis/index.js';

const client = { evalsha: () => Promise.resolve([]), eval: () => Promise.resolve([]) };

describe('RedisFleetOptionsSchema', () => {
  const check = (options: unknown, redis: unknown = client, b: unknown = breaker()) => {
    try {
      void redisFleet(redis as never, b as never, options as RedisFleetOptions).dispose();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as ConfigError).issues;
    }
    return [];
  };

  it('refuses what is not an ioredis client or not a breaker, naming both', () => {
    expect(check({ key: 'k' }, { evalsha: () => undefined }, {})).toEqual([
      { path: 'redis', message: 'expected an ioredis client (evalsha, eval)' },
      { path: 'breaker', message: 'expected a breakwater breaker (isolate, state, state$)' },
    ]);
  });

  it('refuses bad options with a ConfigError of redisFleet naming the option and the rule', () => {
    expect(check({})).toEqual([{ path: 'key', message: 'expected a non-empty string' }]);
    expect(check({ key: 'k', quorum: 0 })).toEqual([{ path: 'quorum', message: 'expected an integer >= 1' }]);
    expect(check({ key: 'k', quorum: 1.5 })).toEqual([{ path: 'quorum', message: 'expected an integer >= 1' }]);
    expect(check({ key: 'k', quorum: { share: 0 } })).toEqual([{ path: 'quorum.share', message: 'expected a number in (0, 1]' }]);
    expect(check({ key: 'k', quorum: { share: 0.5, atLeast: 0 } })).toEqual([{ path: 'quorum.atLeast', message: 'expected an integer >= 1' }]);
    expect(check({ key: 'k', summaryMs: 0 })).toEqual([{ path: 'summaryMs', message: 'expected a number greater than 0' }]);
    expect(check({ key: 'k', summaryMs: 100, commandTimeoutMs: 101, staleMs: 1_000 })).toEqual([{ path: 'commandTimeoutMs', message: 'expected at most summaryMs' }]);
    expect(check({ key: 'k', summaryMs: 1_000, commandTimeoutMs: 200, staleMs: 1_200 })).toEqual([
      { path: 'staleMs', message: 'expected more than summaryMs + commandTimeoutMs (a live instance would look dead between two summaries)' },
    ]);
    // the default staleMs, 3 × summaryMs, leaves room for the default deadline
    expect(check({ key: 'k', summaryMs: 100, commandTimeoutMs: 100 })).toEqual([]);
    expect(check({ key: 'k', instanceId: '' })).toEqual([{ path: 'instanceId', message: 'expected a non-empty string' }]);
    expect(check({ key: 'k', ttl: 5 })).toEqual([{ path: 'ttl', message: 'unknown option' }]);
    expect(() => redisFleet(client, breaker(), { key: 'k', summaryMs: -1 })).toThrow('invalid redisFleet options: summaryMs: expected a number greater than 0');
  });

  it('needs a count, or a share of the live instances with a floor', () => {
    expect(needed(3, 10)).toBe(3);
    expect(needed({ share: 0.5, atLeast: 2 }, 4)).toBe(2);
    expect(needed({ share: 0.5, atLeast: 2 }, 5)).toBe(3);
    expect(needed({ share: 0.5, atLeast: 2 }, 1)).toBe(2);
    expect(needed({ share: 0.3, atLeast: 1 }, 10)).toBe(3);
    expect(needed({ share: 1, atLeast: 1 }, 7)).toBe(7);
  });
});

